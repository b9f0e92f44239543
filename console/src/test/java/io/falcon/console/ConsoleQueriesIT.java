package io.falcon.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.console.view.Cursor;
import io.falcon.console.view.JobFilter;
import io.falcon.console.view.ListedJob;
import io.falcon.console.view.Page;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.security.DatabaseTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's page queries against the reference DDL with 100,000 waiting jobs in one queue (and some running,
 * acquiring and other actors' jobs beside them): each page query uses an index of the DDL, needs no filesort of the
 * queue, and reads a bounded number of rows (the server's own handler counters, not a timing), on every page.
 */
class ConsoleQueriesIT {
    private static final int WAITING = 100_000;
    private static final int PAGE = 50;
    /** Rows a page may read: the page, the one more that says there is more, and a few index lookups beyond. */
    private static final long BOUND = 4L * PAGE;

    private static String database;
    private static ConsoleDatabase console;

    @BeforeAll
    static void fill() throws Exception {
        EmbeddedMariaDb db = SharedInfra.mariaDb();
        database = SharedInfra.uniqueName("console");
        db.createDatabase(database);
        try (Connection c = db.connect(database);
                Statement s = c.createStatement()) {
            JobsTable.create(c);
            s.execute(Files.readString(Path.of("../status-sink/src/main/resources/db/migration/V1__clusters.sql"))
                    .lines()
                    .filter(l -> !l.startsWith("--"))
                    .reduce("", (a, b) -> a + "\n" + b)
                    .replaceAll(";\\s*$", ""));
            s.execute(
                    "INSERT INTO clusters (id, name, project, location, tpu_type, gcs_bucket) VALUES"
                            + " ('c1', 'edge-a', 'p', 'us-east5', 'v6e', 'b1'), ('c2', 'edge-b', 'p', 'us-east5', 'v6e', 'b2')");
            c.setAutoCommit(false);
            LocalDateTime base = LocalDateTime.of(2026, 12, 1, 0, 0);
            int batch = 2_000;
            for (int from = 0; from < WAITING; from += batch) {
                StringBuilder insert = new StringBuilder("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec,"
                        + " status, reason, message, cluster_id, created_at) VALUES ");
                for (int i = from; i < from + batch; i++) {
                    insert.append(i == from ? "" : ",")
                            .append("('w-")
                            .append(i)
                            .append("', 'actor-")
                            .append(i % 50)
                            .append("', 'n', 'v6e', '2x4', '{}', 'Pending', 'Waiting', '队列位置 #")
                            .append(i + 1)
                            .append("', 'c1', '")
                            // ten jobs per millisecond: equal created_at values, so the id breaks ties
                            .append(java.sql.Timestamp.valueOf(base.plusNanos((i / 10) * 1_000_000L)))
                            .append("')");
                }
                s.execute(insert.toString());
            }
            // another cluster's queue, interleaved in time: a plan along (status, created_at) would read through it
            for (int from = 0; from < 20_000; from += batch) {
                StringBuilder insert = new StringBuilder("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec,"
                        + " status, reason, message, cluster_id, created_at) VALUES ");
                for (int i = from; i < from + batch; i++) {
                    insert.append(i == from ? "" : ",")
                            .append("('o-")
                            .append(i)
                            .append("', 'other', 'n', 'v6e', '2x4', '{}', 'Pending', 'Waiting', '', 'c2', '")
                            .append(java.sql.Timestamp.valueOf(base.plusNanos(i * 5_000_000L)))
                            .append("')");
                }
                s.execute(insert.toString());
            }
            for (int i = 0; i < 300; i++) {
                s.execute("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, status, reason, cluster_id,"
                        + " created_at) VALUES ('r-" + i
                        + "', 'runner', 'n', 'v6e', '2x4', '{}', 'Running', NULL, 'c1',"
                        + " '2026-11-30 00:00:00')");
            }
            for (int i = 0; i < 5; i++) {
                s.execute("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, status, reason, cluster_id)"
                        + " VALUES ('a-" + i + "', 'acq', 'n', 'v6e', '2x4', '{}', 'Pending', 'Provisioning', 'c1')");
            }
            s.execute("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, status, cluster_id) VALUES"
                    + " ('other-topology', 'zed', 'n', 'v6e', '4x4', '{}', 'Pending', 'c1')");
            c.commit();
            s.execute("ANALYZE TABLE jobs");
        }
        console = new ConsoleDatabase(db.jdbcUrl(database), db.user(), db.password(), DatabaseTls.DRIVER_DEFAULT);
    }

    /** Rows the server read for one query: the growth of the session's Handler_read_* counters. */
    private static long rowsRead(Connection c, String sql, List<Object> parameters) throws SQLException {
        long before = handlerReads(c);
        try (PreparedStatement select = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.size(); i++) {
                select.setObject(i + 1, parameters.get(i));
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    // read them all, as the page does
                }
            }
        }
        return handlerReads(c) - before;
    }

    private static long handlerReads(Connection c) throws SQLException {
        long sum = 0;
        try (Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SHOW SESSION STATUS LIKE 'Handler_read%'")) {
            while (rows.next()) {
                sum += rows.getLong(2);
            }
        }
        return sum;
    }

    /** EXPLAIN's rows: the index each table access uses and its Extra. */
    private static List<Map<String, String>> explain(Connection c, String sql, List<Object> parameters)
            throws SQLException {
        List<Map<String, String>> out = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < parameters.size(); i++) {
                select.setObject(i + 1, parameters.get(i));
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    out.add(Map.of(
                            "key", String.valueOf(rows.getString("key")),
                            "Extra", String.valueOf(rows.getString("Extra"))));
                }
            }
        }
        return out;
    }

    private static void assertIndexedAndBounded(String sql, List<Object> parameters, String index) throws SQLException {
        try (Connection c = SharedInfra.mariaDb().connect(database)) {
            List<Map<String, String>> plan = explain(c, sql, parameters);
            assertThat(plan).as(sql).hasSize(1);
            assertThat(plan.get(0).get("key")).as(sql).isEqualTo(index);
            assertThat(plan.get(0).get("Extra")).as(sql).doesNotContain("filesort");
            assertThat(rowsRead(c, sql, parameters)).as(sql).isLessThanOrEqualTo(BOUND);
        }
    }

    private static List<Object> queue(String status, Cursor after) {
        return List.of(
                "c1",
                "2x4",
                status,
                java.sql.Timestamp.valueOf(after.createdAt()),
                java.sql.Timestamp.valueOf(after.createdAt()),
                after.id(),
                PAGE + 1);
    }

    @Test
    void theWaitingPagesReadAPageAlongTheQueueIndexOnEveryPage() throws Exception {
        Cursor first = new Cursor(LocalDateTime.of(1970, 1, 1, 0, 0), "");
        assertIndexedAndBounded(ConsoleDatabase.queuePhase(false), queue("Pending", first), "idx_jobs_queue");
        // deep in the queue: the keyset starts there, nothing before it is read
        Page<ListedJob> deep = console.waiting("c1", "2x4", Cursor.parse("2026-12-01T00:00:09.000~w-90005"), PAGE);
        assertThat(deep.items()).hasSize(PAGE);
        assertThat(deep.items().get(0).id()).isEqualTo("w-90006");
        assertIndexedAndBounded(
                ConsoleDatabase.queuePhase(false),
                queue("Pending", Cursor.parse("2026-12-01T00:00:09.000~w-90005").orElseThrow()),
                "idx_jobs_queue");
    }

    @Test
    void pagingThroughTheQueueShowsEveryJobOnceInSubmissionOrder() throws Exception {
        Page<ListedJob> page = console.waiting("c1", "2x4", Optional.empty(), PAGE);
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            page.items().forEach(j -> seen.add(j.id()));
            page = console.waiting("c1", "2x4", page.next(), PAGE);
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 5 * PAGE; i++) {
            expected.add("w-" + i);
        }
        // w-0..w-9 share a millisecond: the id orders them (as text), so compare as sets within the first page
        assertThat(seen).hasSize(5 * PAGE).doesNotHaveDuplicates();
        assertThat(seen).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(page.next()).isPresent();
    }

    @Test
    void runningAndAcquiringAndTopologiesUseTheQueueIndex() throws Exception {
        Cursor first = new Cursor(LocalDateTime.of(1970, 1, 1, 0, 0), "");
        assertIndexedAndBounded(ConsoleDatabase.queuePhase(true), queue("Running", first), "idx_jobs_queue");
        assertThat(console.running("c1", "2x4", Optional.empty(), PAGE).items())
                .hasSize(PAGE)
                .allMatch(j -> j.status().equals("Running"));
        assertIndexedAndBounded(ConsoleDatabase.ACQUIRING_JOBS, List.of("c1", "2x4", PAGE), "idx_jobs_queue");
        assertThat(console.acquiring("c1", "2x4", PAGE))
                .extracting(ListedJob::id)
                .hasSize(5);
        try (Connection c = SharedInfra.mariaDb().connect(database)) {
            List<Map<String, String>> plan = explain(c, ConsoleDatabase.NEXT_TOPOLOGY, List.of("c1", "2x4"));
            assertThat(plan.get(0).get("key")).isEqualTo("idx_jobs_queue");
            assertThat(plan.get(0).get("Extra")).doesNotContain("filesort");
            assertThat(rowsRead(c, ConsoleDatabase.NEXT_TOPOLOGY, List.of("c1", "")))
                    .isLessThanOrEqualTo(4);
            assertThat(rowsRead(c, ConsoleDatabase.NEXT_TOPOLOGY, List.of("c1", "2x4")))
                    .isLessThanOrEqualTo(4);
        }
        assertThat(console.topologies("c1")).containsExactly("2x4", "4x4");
    }

    @Test
    void theSearchReadsAPageAlongAnIndexForEachFilter() throws Exception {
        record Case(JobFilter filter, String index) {}
        for (Case c : List.of(
                new Case(JobFilter.NONE, "idx_jobs_created"),
                new Case(JobFilter.of(null, "actor-7", null, null), "idx_jobs_actor"),
                new Case(JobFilter.of(null, null, "Running", null), "idx_jobs_status"),
                new Case(JobFilter.of(null, null, null, "c1"), "idx_jobs_cluster"),
                new Case(JobFilter.of("w-5", null, null, null), "PRIMARY"))) {
            ConsoleDatabase.Search search = ConsoleDatabase.search(c.filter(), false);
            List<Object> parameters = new ArrayList<>(search.parameters());
            parameters.add(PAGE + 1);
            assertIndexedAndBounded(search.sql(), parameters, c.index());
        }
        Page<ListedJob> bob = console.search(JobFilter.of(null, "actor-7", null, null), Optional.empty(), PAGE);
        assertThat(bob.items()).hasSize(PAGE).allMatch(j -> j.actor().equals("actor-7"));
        Page<ListedJob> next = console.search(JobFilter.of(null, "actor-7", null, null), bob.next(), PAGE);
        assertThat(next.items()).hasSize(PAGE).noneMatch(bob.items()::contains);
        assertThat(next.items().get(0).createdAt())
                .isBefore(bob.items().get(PAGE - 1).createdAt());
    }
}
