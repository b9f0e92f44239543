package io.falcon.local;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads the jobs table the way an upper component does: Status, Reason, Message and the scheduling columns. */
public final class JobBoard {
    /** One job as the upper components see it. */
    public record JobView(String id, String actor, String name, String status, Optional<String> reason,
            String message, Optional<String> clusterId, Optional<String> nodePoolName, Optional<String> jobUid,
            Optional<String> dispatchedAt, Optional<String> finishedAt, Optional<String> abortedAt) {

        public boolean isTerminal() {
            return status.equals("Succeeded") || status.equals("Failed") || status.equals("Aborted");
        }

        /** What a watcher shows when it changes. */
        public String headline() {
            return status + reason.map(r -> "/" + r).orElse("") + (message.isEmpty() ? "" : "  " + message);
        }
    }

    private JobBoard() {
    }

    public static List<JobView> read(Connection connection) throws SQLException {
        List<JobView> jobs = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT id, actor, name, status, reason, message, cluster_id, node_pool_name, job_uid, dispatched_at,"
                        + " finished_at, aborted_at FROM jobs ORDER BY created_at, id");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                jobs.add(new JobView(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
                        Optional.ofNullable(rows.getString(5)).filter(r -> !r.isEmpty()),
                        Optional.ofNullable(rows.getString(6)).orElse(""), Optional.ofNullable(rows.getString(7)),
                        Optional.ofNullable(rows.getString(8)), Optional.ofNullable(rows.getString(9)),
                        Optional.ofNullable(rows.getString(10)), Optional.ofNullable(rows.getString(11)),
                        Optional.ofNullable(rows.getString(12))));
            }
        }
        return jobs;
    }

    public static Optional<JobView> find(Connection connection, String jobId) throws SQLException {
        return read(connection).stream().filter(j -> j.id().equals(jobId)).findFirst();
    }
}
