package io.falcon.cli;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Optional;

/** Submits and aborts jobs the way the upper components do: an INSERT, and an UPDATE to Aborting. */
public final class JobSubmission {
    /** A request row of the jobs table; priority empty leaves the column NULL (and out of the INSERT). */
    public record Request(
            String id,
            String actor,
            String name,
            String tpuType,
            String topology,
            String spec,
            Optional<String> supplyMode,
            Optional<Long> timeoutSeconds,
            Optional<Long> priority) {

        public Request(
                String id,
                String actor,
                String name,
                String tpuType,
                String topology,
                String spec,
                Optional<String> supplyMode,
                Optional<Long> timeoutSeconds) {
            this(id, actor, name, tpuType, topology, spec, supplyMode, timeoutSeconds, Optional.empty());
        }

        public Request withPriority(long value) {
            return new Request(
                    id, actor, name, tpuType, topology, spec, supplyMode, timeoutSeconds, Optional.of(value));
        }
    }

    private JobSubmission() {}

    public static void submit(Connection connection, Request request) throws SQLException {
        // The priority column is named only when set, so that a jobs table without it still takes submissions.
        String sql = request.priority().isPresent()
                ? "INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, supply_mode, timeout_seconds, status,"
                        + " priority) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'Pending', ?)"
                : "INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, supply_mode, timeout_seconds, status)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'Pending')";
        try (PreparedStatement insert = connection.prepareStatement(sql)) {
            insert.setString(1, request.id());
            insert.setString(2, request.actor());
            insert.setString(3, request.name());
            insert.setString(4, request.tpuType());
            insert.setString(5, request.topology());
            insert.setString(6, request.spec());
            insert.setString(7, request.supplyMode().orElse(null));
            if (request.timeoutSeconds().isPresent()) {
                insert.setLong(8, request.timeoutSeconds().get());
            } else {
                insert.setNull(8, Types.BIGINT);
            }
            if (request.priority().isPresent()) {
                insert.setLong(9, request.priority().get());
            }
            insert.executeUpdate();
        }
    }

    public static boolean abort(Connection connection, String jobId) throws SQLException {
        try (PreparedStatement update =
                connection.prepareStatement("UPDATE jobs SET status = 'Aborting', aborting_at = CURRENT_TIMESTAMP(3)"
                        + " WHERE id = ? AND status NOT IN ('Succeeded', 'Failed', 'Aborted', 'Aborting')")) {
            update.setString(1, jobId);
            return update.executeUpdate() == 1;
        }
    }
}
