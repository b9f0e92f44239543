package io.falcon.events.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads the jobs table the way an upper component does: Status, Reason, Message and the scheduling columns. */
public final class JobBoard {
    /** One job as the upper components see it. */
    public record JobView(
            String id,
            String actor,
            String name,
            String status,
            Optional<String> reason,
            String message,
            Optional<String> clusterId,
            Optional<String> nodePoolName,
            Optional<String> jobUid,
            Optional<LocalDateTime> dispatchedAt,
            Optional<LocalDateTime> finishedAt,
            Optional<LocalDateTime> abortedAt) {

        public boolean isTerminal() {
            return status.equals("Succeeded") || status.equals("Failed") || status.equals("Aborted");
        }

        /** What a watcher shows when it changes. */
        public String headline() {
            return status + reason.map(r -> "/" + r).orElse("") + (message.isEmpty() ? "" : "  " + message);
        }
    }

    private JobBoard() {}

    /** The columns {@link #view} reads, in its order. */
    private static final String VIEW_COLUMNS = "id, actor, name, status, reason, message, cluster_id, node_pool_name,"
            + " job_uid, dispatched_at, finished_at, aborted_at";

    private static JobView view(ResultSet rows) throws SQLException {
        return new JobView(
                rows.getString(1),
                rows.getString(2),
                rows.getString(3),
                rows.getString(4),
                Optional.ofNullable(rows.getString(5)).filter(r -> !r.isEmpty()),
                Optional.ofNullable(rows.getString(6)).orElse(""),
                Optional.ofNullable(rows.getString(7)),
                Optional.ofNullable(rows.getString(8)),
                Optional.ofNullable(rows.getString(9)),
                time(rows, 10),
                time(rows, 11),
                time(rows, 12));
    }

    /**
     * A TIMESTAMP column as the session's wall-clock time. Read as a time, never as the driver's text: MariaDB
     * Connector/J's text of a binary-protocol TIMESTAMP(3) drops the leading zeros of the fraction (47.078 came back
     * as "47.78000"), which reorders times compared as strings.
     */
    private static Optional<LocalDateTime> time(ResultSet rows, int column) throws SQLException {
        return Optional.ofNullable(rows.getObject(column, LocalDateTime.class));
    }

    /** How the CLI prints a time: the session's wall clock to the millisecond, the way MySQL writes TIMESTAMP(3). */
    public static String format(LocalDateTime time) {
        return TIME_FORMAT.format(time);
    }

    private static final DateTimeFormatter TIME_FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    public static List<JobView> read(Connection connection) throws SQLException {
        List<JobView> jobs = new ArrayList<>();
        try (PreparedStatement select =
                        connection.prepareStatement("SELECT " + VIEW_COLUMNS + " FROM jobs ORDER BY created_at, id");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                jobs.add(view(rows));
            }
        }
        return jobs;
    }

    public static Optional<JobView> find(Connection connection, String jobId) throws SQLException {
        return read(connection, new Filter(Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(jobId), 1))
                .stream()
                .findFirst();
    }

    /** Which jobs to list: every present field must match; newest first, at most limit rows. */
    public record Filter(
            Optional<String> status,
            Optional<String> actor,
            Optional<String> clusterId,
            Optional<String> id,
            int limit) {
        public static Filter all(int limit) {
            return new Filter(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), limit);
        }
    }

    /** The jobs that match the filter, newest first (the SQL does the filtering, so it scales with the table). */
    public static List<JobView> read(Connection connection, Filter filter) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT " + VIEW_COLUMNS + " FROM jobs WHERE 1 = 1");
        List<String> parameters = new ArrayList<>();
        filter.status().ifPresent(v -> {
            sql.append(" AND status = ?");
            parameters.add(v);
        });
        filter.actor().ifPresent(v -> {
            sql.append(" AND actor = ?");
            parameters.add(v);
        });
        filter.clusterId().ifPresent(v -> {
            sql.append(" AND cluster_id = ?");
            parameters.add(v);
        });
        filter.id().ifPresent(v -> {
            sql.append(" AND id = ?");
            parameters.add(v);
        });
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT ").append(Math.max(1, filter.limit()));
        List<JobView> jobs = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < parameters.size(); i++) {
                select.setString(i + 1, parameters.get(i));
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    jobs.add(view(rows));
                }
            }
        }
        return jobs;
    }

    /**
     * Each registered cluster's name by its id (the clusters table), so that a person sees {@code c1 (edge-us-east)}
     * rather than an id alone. A database without the clusters table gives none: the ids are shown alone.
     */
    public static Map<String, String> clusterNames(Connection connection) {
        Map<String, String> names = new LinkedHashMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT id, name FROM clusters");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                names.put(rows.getString(1), rows.getString(2));
            }
        } catch (SQLException e) {
            return Map.of();
        }
        return names;
    }

    /** A cluster as a person reads it: its id, then its name when the clusters table has one ({@code c1 (edge-a)}). */
    public static String clusterLabel(String clusterId, Map<String, String> names) {
        String name = names.get(clusterId);
        return name == null || name.isBlank() || name.equals(clusterId) ? clusterId : clusterId + " (" + name + ")";
    }

    /** Every column of one job row, in table order (NULL columns have no entry), or empty if there is no such job. */
    public static Optional<Map<String, String>> columns(Connection connection, String jobId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT * FROM jobs WHERE id = ?")) {
            select.setString(1, jobId);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return Optional.empty();
                }
                ResultSetMetaData meta = rows.getMetaData();
                Map<String, String> columns = new LinkedHashMap<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    String value = isTime(meta.getColumnType(i))
                            ? time(rows, i).map(JobBoard::format).orElse(null)
                            : rows.getString(i);
                    if (value != null) {
                        columns.put(meta.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT), value);
                    }
                }
                return Optional.of(columns);
            }
        }
    }

    private static boolean isTime(int sqlType) {
        return sqlType == java.sql.Types.TIMESTAMP || sqlType == java.sql.Types.TIMESTAMP_WITH_TIMEZONE;
    }
}
