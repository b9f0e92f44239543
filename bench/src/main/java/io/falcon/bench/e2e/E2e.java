package io.falcon.bench.e2e;

import io.falcon.local.LocalFalcon;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/** What a stage works with: Falcon in this JVM, its database, the fleet's milestones and the row log. */
final class E2e {
    static final Set<String> FINAL = Set.of("Succeeded", "Failed", "Aborted");
    static final String IMAGE = "us-docker.pkg.dev/falcon-e2e/jobs/train:1";

    final LocalFalcon falcon;
    final E2eOptions options;
    final Timeline timeline;
    final RowLog rows;
    final PrintStream out;
    private SteadyRun steady;

    E2e(LocalFalcon falcon, E2eOptions options, Timeline timeline, RowLog rows, PrintStream out) {
        this.falcon = falcon;
        this.options = options;
        this.timeline = timeline;
        this.rows = rows;
        this.out = out;
    }

    Connection connect() {
        try {
            return falcon.connect();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to the database", e);
        }
    }

    /** The steady-rate run that stages b and d measure; run once, by whichever asks first. */
    synchronized SteadyRun steady() throws Exception {
        if (steady == null) {
            steady = SteadyRun.run(this);
        }
        return steady;
    }

    /** The steady run if a stage ran it, else null. */
    synchronized SteadyRun steadyIfRan() {
        return steady;
    }

    /** A job row to INSERT. */
    record JobRow(String id, String actor, String tpuType, String topology, double runSeconds) {
        String spec() {
            return "{\"image\":\"" + IMAGE + "\",\"command\":[\"python\",\"train.py\"],"
                    + "\"env\":{\"FALCON_SIM_DURATION_SECONDS\":\"" + runSeconds + "\"}}";
        }
    }

    /** One INSERT (autocommit); the job's INSERT time is taken just before the statement is sent. */
    void insert(Connection c, JobRow job) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(
                "INSERT INTO jobs (id, actor, name, tpu_type, topology, spec) VALUES (?, ?, ?, ?, ?, ?)")) {
            bind(insert, 0, job);
            timeline.inserted(job.id(), Instant.now());
            insert.executeUpdate();
        }
    }

    /** One multi-row INSERT of all the jobs (one statement, autocommit); returns when it returned. */
    Instant insertBatch(Connection c, List<JobRow> jobs) throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec) VALUES ");
        for (int i = 0; i < jobs.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?, ?, ?, ?, ?)");
        }
        try (PreparedStatement insert = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < jobs.size(); i++) {
                bind(insert, i * 6, jobs.get(i));
            }
            Instant at = Instant.now();
            for (JobRow job : jobs) {
                timeline.inserted(job.id(), at);
            }
            insert.executeUpdate();
        }
        return Instant.now();
    }

    private static void bind(PreparedStatement insert, int offset, JobRow job) throws SQLException {
        insert.setString(offset + 1, job.id());
        insert.setString(offset + 2, job.actor());
        insert.setString(offset + 3, "e2e");
        insert.setString(offset + 4, job.tpuType());
        insert.setString(offset + 5, job.topology());
        insert.setString(offset + 6, job.spec());
    }

    /**
     * Aborts every row whose id starts with {@code prefix} and is not final, as an upper component does; the last
     * submitted first, so that a waiting job's abort does not move the jobs behind it (and re-tell their positions).
     */
    int abortAll(String prefix) throws SQLException {
        try (Connection c = connect();
                PreparedStatement update =
                        c.prepareStatement("UPDATE jobs SET status = 'Aborting', aborting_at = CURRENT_TIMESTAMP(3)"
                                + " WHERE id LIKE ? AND status NOT IN ('Succeeded', 'Failed', 'Aborted', 'Aborting')"
                                + " ORDER BY id DESC")) {
            update.setString(1, prefix + "%");
            return update.executeUpdate();
        }
    }

    /** Waits until every job's row shows a final status (as the row log saw it); returns false on timeout. */
    boolean awaitRows(Collection<String> ids, Predicate<RowLog.Change> done, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (ids.stream().allMatch(id -> rows.last(id).filter(done).isPresent())) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    boolean awaitFinal(Collection<String> ids, Duration timeout) throws InterruptedException {
        return awaitRows(ids, ch -> FINAL.contains(ch.status()), timeout);
    }

    void log(String format, Object... args) {
        out.printf("%tT  " + format + "%n", prepend(java.time.LocalTime.now(), args));
    }

    private static Object[] prepend(Object first, Object[] rest) {
        Object[] all = new Object[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
