package io.falcon.bench.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the jobs rows of a run as the upper components do, and remembers each row's last status, so that a status
 * moving backwards between two samples is caught: a final row changing at all, or a Running row going back to Pending.
 * Aborting is written by the upper component itself and sits beside Pending and Running, so it is not ranked.
 */
public final class RowSampler {

    /**
     * A row as last sampled. {@code abortRequested}: its aborting_at is set, which only the upper components' abort
     * writes (Falcon never does): whether an abort landed, also when the answer to it was lost (a broken connection).
     */
    public record Row(String id, String status, Optional<String> reason, boolean abortRequested) {
        public boolean isFinal() {
            return status.equals("Succeeded") || status.equals("Failed") || status.equals("Aborted");
        }
    }

    /** A row's status as first seen in a sample, for the report's history of a job. */
    public record Seen(Instant at, String status) {
        @Override
        public String toString() {
            return at + " " + status;
        }
    }

    private final String runId;
    private final Map<String, Row> last = new HashMap<>();
    private final Map<String, List<Seen>> history = new HashMap<>();
    private final List<Moved> backwards = new ArrayList<>();
    private long samples;

    public RowSampler(String runId) {
        this.runId = runId;
    }

    /** Samples every row of the run once; returns them. */
    public synchronized Map<String, Row> sample(Connection connection) throws SQLException {
        Map<String, Row> now = new HashMap<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT id, status, reason, aborting_at IS NOT NULL FROM jobs WHERE id LIKE ?")) {
            select.setString(1, runId + "-%");
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    Row row = new Row(
                            rows.getString(1),
                            rows.getString(2),
                            Optional.ofNullable(rows.getString(3)).filter(r -> !r.isEmpty()),
                            rows.getBoolean(4));
                    now.put(row.id(), row);
                    Row before = last.put(row.id(), row);
                    if (before == null || !describe(before).equals(describe(row))) {
                        history.computeIfAbsent(row.id(), id -> new ArrayList<>())
                                .add(new Seen(Instant.now(), describe(row)));
                    }
                    if (before != null && movedBackwards(before, row)) {
                        backwards.add(new Moved(row.id(), describe(before), describe(row)));
                    }
                }
            }
        }
        samples++;
        return now;
    }

    static boolean movedBackwards(Row before, Row after) {
        if (before.isFinal()) {
            return !before.status().equals(after.status()) || !before.reason().equals(after.reason());
        }
        return before.status().equals("Running") && after.status().equals("Pending");
    }

    private static String describe(Row row) {
        return row.status() + row.reason().map(r -> "/" + r).orElse("");
    }

    /** Each status (and reason) a row showed, in order, with when a sample first saw it. */
    public synchronized List<Seen> history(String id) {
        return List.copyOf(history.getOrDefault(id, List.of()));
    }

    /** A row whose status moved backwards between two samples. */
    public record Moved(String id, String before, String after) {}

    public synchronized List<Moved> backwards() {
        return List.copyOf(backwards);
    }

    public synchronized long samples() {
        return samples;
    }

    public synchronized Map<String, Row> lastSeen() {
        return Map.copyOf(last);
    }
}
