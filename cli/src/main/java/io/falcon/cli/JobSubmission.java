package io.falcon.cli;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Optional;

/** Submits and aborts jobs the way the upper components do: an INSERT, and an UPDATE to Aborting. */
public final class JobSubmission {
    /** A request row of the jobs table. */
    public record Request(
            String id,
            String actor,
            String name,
            String tpuType,
            String topology,
            String spec,
            Optional<String> supplyMode,
            Optional<Long> timeoutSeconds) {}

    private JobSubmission() {}

    public static void submit(Connection connection, Request request) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, supply_mode, timeout_seconds, status)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'Pending')")) {
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
