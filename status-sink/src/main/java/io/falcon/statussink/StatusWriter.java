package io.falcon.statussink;

import io.falcon.events.status.TaskStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Writes task statuses into the jobs table in one transaction. The guards live in the WHERE clause, so they hold
 * whatever order events arrive in: a terminal row keeps its status and reason (only its Message may be amended, by
 * an event with the same status and reason: a node-pool deletion that keeps failing, seed error table
 * "最终失败则追加 Message"), a row the upper component set to Aborting only moves on to a terminal status (or gets
 * its Aborting message refreshed), and an event not newer than the last one applied to the job
 * (falcon_status_versions) changes nothing.
 *
 * <p>dispatched_at is written as the status carries it, also when empty: a job whose Job waits for the nodes of a
 * flex-start pool has no dispatch time until they come (its execution timeout counts from then), though its Job was
 * submitted before. The other scheduling columns keep what they had when the status has none.
 *
 * <p>The version of a terminal job is pruned after a retention ({@link StatusVersionPruner}); a terminal row without
 * a version row is sealed, amendments included, since a late or duplicated event could no longer be told from a
 * newer one. For the same reason a batch is written in rounds, at most one status per job each, with the versions
 * recorded after every round: the guard of a job's second status in a batch sees the version of its first.
 */
public final class StatusWriter {
    static final String UPDATE = """
            UPDATE jobs SET
              status = ?, reason = ?, message = ?,
              cluster_id = COALESCE(?, cluster_id),
              node_pool_name = COALESCE(?, node_pool_name),
              k8s_job_name = COALESCE(?, k8s_job_name),
              job_uid = COALESCE(?, job_uid),
              dispatched_at = ?,
              finished_at = COALESCE(?, finished_at),
              aborted_at = COALESCE(?, aborted_at)
            WHERE id = ?
              AND (status NOT IN ('Succeeded', 'Failed', 'Aborted')
                   OR (status = ? AND COALESCE(reason, '') = COALESCE(?, '')
                       AND EXISTS (SELECT 1 FROM falcon_status_versions s WHERE s.job_id = ?)))
              AND (status <> 'Aborting' OR ? IN ('Aborting', 'Succeeded', 'Failed', 'Aborted'))
              AND NOT EXISTS (SELECT 1 FROM falcon_status_versions v WHERE v.job_id = ? AND v.version >= ?)
            """;
    /** terminal_at is assigned first: MySQL evaluates the assignments in order, and it compares the old version. */
    static final String RECORD_VERSION = """
            INSERT INTO falcon_status_versions (job_id, version, terminal_at) VALUES (?, ?, ?)
            ON DUPLICATE KEY UPDATE
              terminal_at = IF(VALUES(version) >= version, VALUES(terminal_at), terminal_at),
              version = GREATEST(version, VALUES(version))
            """;

    /** What one batch did: rows changed, and events whose job does not exist (to be dead-lettered). */
    public record Outcome(int applied, int guarded, List<TaskStatus> unknownJobs) {}

    private final Clock clock;

    public StatusWriter() {
        this(Clock.systemUTC());
    }

    /** clock stamps the terminal writes, from which the retention of their versions runs. */
    public StatusWriter(Clock clock) {
        this.clock = clock;
    }

    public Outcome write(Connection connection, List<TaskStatus> statuses) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (PreparedStatement update = connection.prepareStatement(UPDATE)) {
            int applied = 0;
            List<TaskStatus> unchanged = new ArrayList<>();
            for (List<TaskStatus> round : rounds(statuses)) {
                for (TaskStatus status : round) {
                    bind(update, status);
                    update.addBatch();
                }
                int[] counts = update.executeBatch();
                List<TaskStatus> appliedInRound = new ArrayList<>();
                for (int i = 0; i < counts.length; i++) {
                    if (counts[i] > 0 || counts[i] == PreparedStatement.SUCCESS_NO_INFO) {
                        appliedInRound.add(round.get(i));
                    } else {
                        unchanged.add(round.get(i));
                    }
                }
                recordVersions(connection, appliedInRound);
                applied += appliedInRound.size();
            }
            Set<String> existing = existing(connection, unchanged);
            List<TaskStatus> unknown = unchanged.stream()
                    .filter(s -> !existing.contains(s.jobId()))
                    .toList();
            connection.commit();
            return new Outcome(applied, unchanged.size() - unknown.size(), unknown);
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /**
     * The batch in rounds, arrival order kept: round n holds the (n+1)-th status of each job. Usually one round; a
     * job with several transitions in the batch adds one per extra transition.
     */
    static List<List<TaskStatus>> rounds(List<TaskStatus> statuses) {
        List<List<TaskStatus>> rounds = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (TaskStatus status : statuses) {
            int round = seen.merge(status.jobId(), 1, Integer::sum) - 1;
            if (round == rounds.size()) {
                rounds.add(new ArrayList<>());
            }
            rounds.get(round).add(status);
        }
        return rounds;
    }

    private static void bind(PreparedStatement update, TaskStatus status) throws SQLException {
        int i = 1;
        update.setString(i++, status.status().name());
        setOptional(update, i++, status.reason().map(Enum::name));
        update.setString(i++, status.message());
        setOptional(update, i++, status.clusterId());
        setOptional(update, i++, status.nodePoolName());
        setOptional(update, i++, status.k8sJobName());
        setOptional(update, i++, status.jobUid());
        setTime(update, i++, status.dispatchedAt());
        setTime(update, i++, status.finishedAt());
        setTime(update, i++, status.abortedAt());
        update.setString(i++, status.jobId());
        update.setString(i++, status.status().name());
        setOptional(update, i++, status.reason().map(Enum::name));
        update.setString(i++, status.jobId());
        update.setString(i++, status.status().name());
        update.setString(i++, status.jobId());
        update.setLong(i, status.version());
    }

    private void recordVersions(Connection connection, List<TaskStatus> applied) throws SQLException {
        if (applied.isEmpty()) {
            return;
        }
        Optional<Instant> now = Optional.of(clock.instant());
        try (PreparedStatement record = connection.prepareStatement(RECORD_VERSION)) {
            for (TaskStatus status : applied) {
                record.setString(1, status.jobId());
                record.setLong(2, status.version());
                setTime(record, 3, status.status().isTerminal() ? now : Optional.empty());
                record.addBatch();
            }
            record.executeBatch();
        }
    }

    private static Set<String> existing(Connection connection, List<TaskStatus> statuses) throws SQLException {
        Set<String> found = new HashSet<>();
        if (statuses.isEmpty()) {
            return found;
        }
        try (PreparedStatement select = connection.prepareStatement("SELECT id FROM jobs WHERE id = ?")) {
            for (TaskStatus status : statuses) {
                select.setString(1, status.jobId());
                try (var rows = select.executeQuery()) {
                    if (rows.next()) {
                        found.add(rows.getString(1));
                    }
                }
            }
        }
        return found;
    }

    private static void setOptional(PreparedStatement statement, int index, Optional<String> value)
            throws SQLException {
        if (value.isPresent()) {
            statement.setString(index, value.get());
        } else {
            statement.setNull(index, Types.VARCHAR);
        }
    }

    private static void setTime(PreparedStatement statement, int index, Optional<Instant> value) throws SQLException {
        if (value.isPresent()) {
            // With the session at UTC (see StatusSink) this is exact whatever the JVM's time zone.
            statement.setObject(index, LocalDateTime.ofInstant(value.get(), ZoneOffset.UTC));
        } else {
            statement.setNull(index, Types.TIMESTAMP);
        }
    }
}
