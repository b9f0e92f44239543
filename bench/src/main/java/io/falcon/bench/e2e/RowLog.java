package io.falcon.bench.e2e;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * When each row showed each Status / Reason / Message, seen from outside Falcon: a trigger on the jobs table appends
 * every change of those columns (and every INSERT) to {@code e2e_row_log} with the database's clock, in the writer's
 * transaction; a thread tails that table every {@code period}. A change is visible to readers when its transaction
 * commits, so the time the tail first read it ({@link Change#seenAt}) is at most one period plus one query after the row
 * showed it; the trigger's time ({@link Change#dbAt}) is a lower bound (taken before the writer's commit).
 */
final class RowLog implements AutoCloseable {

    /** One change of a row, as the tail saw it. */
    record Change(long seq, String jobId, String status, String reason, String message, Instant dbAt, Instant seenAt) {}

    private final Supplier<Connection> connections;
    private final Duration period;
    private final Map<String, List<Change>> byJob = new ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread tail;
    private volatile long polls;
    private volatile long pollNanos;

    private RowLog(Supplier<Connection> connections, Duration period) {
        this.connections = connections;
        this.period = period;
        this.tail = new Thread(this::tailLoop, "e2e-row-log-tail");
        this.tail.setDaemon(true);
    }

    /** Creates the log table and the triggers (replacing earlier ones) and starts the tail. */
    static RowLog install(Supplier<Connection> connections, Duration period) throws SQLException {
        try (Connection c = connections.get();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS e2e_row_log ("
                    + " seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
                    + " job_id VARCHAR(64) NOT NULL, status VARCHAR(16), reason VARCHAR(32), message TEXT,"
                    + " at TIMESTAMP(6) NOT NULL)");
            s.execute("DROP TRIGGER IF EXISTS e2e_row_log_update");
            s.execute("DROP TRIGGER IF EXISTS e2e_row_log_insert");
            s.execute("CREATE TRIGGER e2e_row_log_update AFTER UPDATE ON jobs FOR EACH ROW"
                    + " IF NOT (OLD.status <=> NEW.status AND OLD.reason <=> NEW.reason"
                    + " AND OLD.message <=> NEW.message) THEN"
                    + " INSERT INTO e2e_row_log (job_id, status, reason, message, at)"
                    + " VALUES (NEW.id, NEW.status, NEW.reason, NEW.message, SYSDATE(6));"
                    + " END IF");
            s.execute("CREATE TRIGGER e2e_row_log_insert AFTER INSERT ON jobs FOR EACH ROW"
                    + " INSERT INTO e2e_row_log (job_id, status, reason, message, at)"
                    + " VALUES (NEW.id, NEW.status, NEW.reason, NEW.message, SYSDATE(6))");
        }
        RowLog log = new RowLog(connections, period);
        log.tail.start();
        return log;
    }

    /** Every change of the job seen so far, in the order the database logged them. */
    List<Change> changes(String jobId) {
        List<Change> list = byJob.get(jobId);
        if (list == null) {
            return List.of();
        }
        synchronized (list) {
            return List.copyOf(list);
        }
    }

    /** The first change of the job at or after {@code from} (by seen time) that matches. */
    Optional<Change> first(String jobId, java.util.function.Predicate<Change> matching) {
        return changes(jobId).stream().filter(matching).findFirst();
    }

    /** The last change of the job seen so far. */
    Optional<Change> last(String jobId) {
        List<Change> all = changes(jobId);
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** Mean time of one tail query, and how many ran. */
    String pollStats() {
        long n = polls;
        return n == 0 ? "no polls" : String.format("%d polls, %.2f ms each", n, pollNanos / 1e6 / n);
    }

    private void tailLoop() {
        long cursor = 0;
        // seq numbers below the cursor not yet seen (a transaction that took them has not committed), with when
        // they were first missed; given up after a while (a rolled-back transaction leaves a gap for good)
        TreeMap<Long, Long> gaps = new TreeMap<>();
        Connection c = null;
        PreparedStatement query = null;
        while (running.get()) {
            long started = System.nanoTime();
            try {
                if (c == null) {
                    c = connections.get();
                    query = c.prepareStatement(COLUMNS + " WHERE seq > ? ORDER BY seq LIMIT 5000");
                }
                query.setLong(1, cursor);
                List<Change> rows = new ArrayList<>();
                read(query, rows);
                if (!gaps.isEmpty()) {
                    StringBuilder in = new StringBuilder();
                    gaps.keySet().stream()
                            .limit(500)
                            .forEach(seq ->
                                    in.append(in.length() == 0 ? "" : ",").append(seq));
                    try (PreparedStatement missed =
                            c.prepareStatement(COLUMNS + " WHERE seq IN (" + in + ") ORDER BY seq")) {
                        read(missed, rows);
                    }
                }
                long nowMs = System.currentTimeMillis();
                for (Change change : rows) {
                    long seq = change.seq();
                    if (seq <= cursor && gaps.remove(seq) == null) {
                        continue; // seen already
                    }
                    for (long missing = cursor + 1; missing < seq; missing++) {
                        gaps.put(missing, nowMs);
                    }
                    cursor = Math.max(cursor, seq);
                    List<Change> list = byJob.computeIfAbsent(change.jobId(), k -> new ArrayList<>());
                    synchronized (list) {
                        list.add(change);
                        if (list.size() > 1 && list.get(list.size() - 2).seq() > seq) {
                            // found late (its transaction committed after a later one): keep commit order
                            list.sort(java.util.Comparator.comparingLong(Change::seq));
                        }
                    }
                }
                gaps.values().removeIf(since -> nowMs - since > 5_000);
                polls++;
                pollNanos += System.nanoTime() - started;
            } catch (SQLException e) {
                closeQuietly(c);
                c = null;
                query = null;
            }
            long left = period.toNanos() - (System.nanoTime() - started);
            if (left > 0) {
                try {
                    Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
        closeQuietly(c);
    }

    private static final String COLUMNS = "SELECT seq, job_id, status, reason, message, at FROM e2e_row_log";

    private static void read(PreparedStatement query, List<Change> into) throws SQLException {
        try (ResultSet rs = query.executeQuery()) {
            Instant seenAt = Instant.now();
            while (rs.next()) {
                into.add(new Change(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getString(4),
                        rs.getString(5),
                        rs.getTimestamp(6).toInstant(),
                        seenAt));
            }
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // going away anyway
            }
        }
    }

    /** How many jobs have any change seen. */
    int jobsSeen() {
        return byJob.size();
    }

    Map<String, Integer> statusCounts(java.util.Collection<String> jobIds) {
        Map<String, Integer> counts = new HashMap<>();
        for (String id : jobIds) {
            String key = last(id).map(ch -> ch.status() + (ch.reason() == null ? "" : "/" + ch.reason()))
                    .orElse("(not seen)");
            counts.merge(key, 1, Integer::sum);
        }
        return new TreeMap<>(counts);
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        tail.interrupt();
        tail.join(2_000);
    }
}
