package io.falcon.console;

import io.falcon.console.view.ClusterInfo;
import io.falcon.console.view.Cursor;
import io.falcon.console.view.JobFilter;
import io.falcon.console.view.ListedJob;
import io.falcon.console.view.Page;
import io.falcon.events.jobs.JobBoard;
import io.falcon.events.security.DatabaseTls;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console's reads of the jobs and clusters tables (a SELECT-only user). Every list is a keyset page read along
 * one index of the reference DDL (docs/schema/jobs.sql): a page reads the rows it shows and one more, never the table,
 * so it stays as fast with 100,000 waiting jobs as with ten ({@code ConsoleQueriesIT} checks the plans and the rows
 * read). A job's page reads its row by primary key through {@link JobBoard#columns}, the CLI's own reading.
 */
public final class ConsoleDatabase {
    /** The reasons of a job that holds one of its queue's slots (acquiring a pool, or about to run again). */
    static final List<String> ACQUIRING = List.of("Provisioning", "ClusterBusy", "WaitingForNode", "Dispatching");

    /**
     * The queue reads name their index: with one queue much longer than the others, the optimizer's statistics make
     * (status, created_at) look as good, and that order would read every Pending job of the fleet on a deep page. The
     * console needs the reference DDL's indexes (docs/console.md); a database without them refuses the query.
     */
    private static final String QUEUE_INDEX = " FORCE INDEX (idx_jobs_queue)";

    private static final String COLUMNS =
            "id, actor, name, tpu_type, topology, status, reason, message, cluster_id, priority, created_at";

    private final String url;
    private final String user;
    private final String password;
    private final DatabaseTls tls;

    public ConsoleDatabase(String url, String user, String password, DatabaseTls tls) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.tls = tls;
    }

    public Connection connect() throws SQLException {
        Connection connection = DriverManager.getConnection(url, tls.jdbcProperties(url, user, password));
        connection.setReadOnly(true);
        return connection;
    }

    public List<ClusterInfo> clusters() throws SQLException {
        List<ClusterInfo> out = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement select = c.prepareStatement("SELECT id, name, project, location, tpu_type,"
                        + " gcs_bucket, default_reservation, status FROM clusters ORDER BY id");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                out.add(new ClusterInfo(
                        rows.getString(1),
                        rows.getString(2),
                        rows.getString(3),
                        rows.getString(4),
                        rows.getString(5),
                        rows.getString(6),
                        Optional.ofNullable(rows.getString(7)).filter(r -> !r.isBlank()),
                        Optional.ofNullable(rows.getString(8)).orElse("")));
            }
        }
        return out;
    }

    /** At most this many topologies are listed per cluster (GKE offers fewer per TPU generation). */
    static final int MAX_TOPOLOGIES = 32;

    /**
     * The topologies of a cluster's queues (of the jobs ever placed there), one index lookup each: the next topology
     * after the last one found, along idx_jobs_queue (a loose index scan the optimizer does not always choose).
     */
    public List<String> topologies(String clusterId) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement select = c.prepareStatement(NEXT_TOPOLOGY)) {
            String after = "";
            while (out.size() < MAX_TOPOLOGIES) {
                select.setString(1, clusterId);
                select.setString(2, after);
                try (ResultSet rows = select.executeQuery()) {
                    if (!rows.next()) {
                        break;
                    }
                    after = rows.getString(1);
                    out.add(after);
                }
            }
        }
        return out;
    }

    static final String NEXT_TOPOLOGY = "SELECT topology FROM jobs" + QUEUE_INDEX
            + " WHERE cluster_id = ? AND topology > ? ORDER BY topology LIMIT 1";

    static final String ACQUIRING_JOBS = "SELECT " + COLUMNS + " FROM jobs" + QUEUE_INDEX
            + " WHERE cluster_id = ? AND topology = ?"
            + " AND status = 'Pending' AND reason IN ('Provisioning', 'ClusterBusy', 'WaitingForNode', 'Dispatching',"
            + " 'Retrying') ORDER BY reason, created_at, id LIMIT ?";

    /** A queue's jobs of one phase, in submission order, after the cursor: along idx_jobs_queue. */
    static String queuePhase(boolean running) {
        return "SELECT " + COLUMNS + " FROM jobs" + QUEUE_INDEX
                + " WHERE cluster_id = ? AND topology = ? AND status = ?"
                + (running ? " AND reason IS NULL" : " AND reason = 'Waiting'")
                + " AND created_at >= ? AND (created_at > ? OR id > ?) ORDER BY created_at, id LIMIT ?";
    }

    public List<ListedJob> acquiring(String clusterId, String topology, int limit) throws SQLException {
        try (Connection c = connect();
                PreparedStatement select = c.prepareStatement(ACQUIRING_JOBS)) {
            select.setString(1, clusterId);
            select.setString(2, topology);
            select.setInt(3, limit);
            return list(select);
        }
    }

    /** Waiting jobs (Pending/Waiting) of the queue, a page after the cursor. */
    public Page<ListedJob> waiting(String clusterId, String topology, Optional<Cursor> after, int pageSize)
            throws SQLException {
        return phase(clusterId, topology, "Pending", false, after, pageSize);
    }

    public Page<ListedJob> running(String clusterId, String topology, Optional<Cursor> after, int pageSize)
            throws SQLException {
        return phase(clusterId, topology, "Running", true, after, pageSize);
    }

    private Page<ListedJob> phase(
            String clusterId, String topology, String status, boolean running, Optional<Cursor> after, int pageSize)
            throws SQLException {
        Cursor from = after.orElse(new Cursor(LocalDateTime.of(1970, 1, 1, 0, 0), ""));
        try (Connection c = connect();
                PreparedStatement select = c.prepareStatement(queuePhase(running))) {
            select.setString(1, clusterId);
            select.setString(2, topology);
            select.setString(3, status);
            select.setTimestamp(4, Timestamp.valueOf(from.createdAt()));
            select.setTimestamp(5, Timestamp.valueOf(from.createdAt()));
            select.setString(6, from.id());
            select.setInt(7, pageSize + 1);
            return Page.of(list(select), pageSize);
        }
    }

    /** The rows of the given jobs (each by primary key), those that exist. */
    public List<ListedJob> jobs(java.util.Collection<String> ids) throws SQLException {
        if (ids.isEmpty()) {
            return List.of();
        }
        String marks = String.join(", ", java.util.Collections.nCopies(ids.size(), "?"));
        try (Connection c = connect();
                PreparedStatement select =
                        c.prepareStatement("SELECT " + COLUMNS + " FROM jobs WHERE id IN (" + marks + ")")) {
            int i = 1;
            for (String id : ids) {
                select.setString(i++, id);
            }
            return list(select);
        }
    }

    /** The search: one page of jobs matching the filter, newest first, before the cursor. */
    public Page<ListedJob> search(JobFilter filter, Optional<Cursor> before, int pageSize) throws SQLException {
        Search search = search(filter, before.isPresent());
        try (Connection c = connect();
                PreparedStatement select = c.prepareStatement(search.sql())) {
            int i = 1;
            for (String p : search.parameters()) {
                select.setString(i++, p);
            }
            if (before.isPresent()) {
                select.setTimestamp(i++, Timestamp.valueOf(before.get().createdAt()));
                select.setTimestamp(i++, Timestamp.valueOf(before.get().createdAt()));
                select.setString(i++, before.get().id());
            }
            select.setInt(i, pageSize + 1);
            return Page.of(list(select), pageSize);
        }
    }

    /** The search's SQL and its string parameters (then the cursor's three, if any, and the limit). */
    record Search(String sql, List<String> parameters) {}

    static Search search(JobFilter filter, boolean withCursor) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM jobs WHERE 1 = 1");
        List<String> parameters = new ArrayList<>();
        for (Map.Entry<String, Optional<String>> field : List.of(
                Map.entry("id", filter.id()),
                Map.entry("actor", filter.actor()),
                Map.entry("status", filter.status()),
                Map.entry("cluster_id", filter.clusterId()))) {
            field.getValue().ifPresent(v -> {
                sql.append(" AND ").append(field.getKey()).append(" = ?");
                parameters.add(v);
            });
        }
        if (withCursor) {
            sql.append(" AND created_at <= ? AND (created_at < ? OR id < ?)");
        }
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT ?");
        return new Search(sql.toString(), parameters);
    }

    /** Every column of the job's row (JobBoard's reading, the CLI's `falcon show`), if there is such a job. */
    public Optional<Map<String, String>> row(String jobId) throws SQLException {
        try (Connection c = connect()) {
            return JobBoard.columns(c, jobId);
        }
    }

    private static List<ListedJob> list(PreparedStatement select) throws SQLException {
        List<ListedJob> out = new ArrayList<>();
        try (ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                int priority = rows.getInt(10);
                Optional<Integer> prio = rows.wasNull() ? Optional.empty() : Optional.of(priority);
                out.add(new ListedJob(
                        rows.getString(1),
                        rows.getString(2),
                        rows.getString(3),
                        rows.getString(4),
                        rows.getString(5),
                        rows.getString(6),
                        Optional.ofNullable(rows.getString(7)).filter(r -> !r.isEmpty()),
                        Optional.ofNullable(rows.getString(8)).orElse(""),
                        Optional.ofNullable(rows.getString(9)),
                        prio,
                        rows.getObject(11, LocalDateTime.class)));
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "ConsoleDatabase[as " + user + "]";
    }
}
