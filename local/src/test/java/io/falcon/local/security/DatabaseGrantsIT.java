package io.falcon.local.security;

import static io.falcon.testkit.builders.JobRowBuilder.jobRow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.cdc.CdcConfig;
import io.falcon.cdc.CdcIngest;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.Topics;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.SharedKeys;
import io.falcon.statussink.SchemaMigrator;
import io.falcon.testkit.kafka.TopicReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/mysql/20-falcon-users.sql and 30-falcon-clusters-grants.sql, as docker-compose runs them, on the embedded MariaDB (for a database of
 * this test's own): each user can do its component's work and nothing more.
 */
class DatabaseGrantsIT {
    private static final Path USERS = Path.of("..", "deploy", "mysql", "20-falcon-users.sql");
    private static final Path CLUSTERS_GRANTS = Path.of("..", "deploy", "mysql", "30-falcon-clusters-grants.sql");
    private static final Path JOBS_GUARD = Path.of("..", "deploy", "mysql", "25-falcon-jobs-guard.sql");

    private static EmbeddedMariaDb db;
    private static String database;

    @BeforeAll
    static void createUsers() throws Exception {
        db = SharedInfra.mariaDb();
        database = SharedInfra.uniqueName("grants").replaceAll("[^A-Za-z0-9_]", "_");
        db.createDatabase(database);
        try (Connection admin = db.connect(database);
                Statement statement = admin.createStatement()) {
            JobsTable.create(admin);
            run(statement, USERS);
            run(statement, JOBS_GUARD);
        }
        // as docker-compose: the status-sink's first start applies its migration, then db-grants runs
        SchemaMigrator.migrate(db.jdbcUrl(database), "falcon_sink", "falcon-sink-dev");
        try (Connection admin = db.connect(database);
                Statement statement = admin.createStatement()) {
            run(statement, CLUSTERS_GRANTS);
        }
    }

    /**
     * The file names docker-compose's database; its statements are run one by one as the mysql client of MySQL's
     * init does, DELIMITER lines included.
     */
    private static void run(Statement statement, Path file) throws Exception {
        String script = Files.readString(file).replace(" falcon.", " " + database + ".");
        String delimiter = ";";
        StringBuilder pending = new StringBuilder();
        for (String line : script.split("\n")) {
            if (line.startsWith("--")) {
                continue;
            }
            if (line.startsWith("DELIMITER ")) {
                delimiter = line.substring("DELIMITER ".length()).strip();
                continue;
            }
            pending.append(line).append('\n');
            int end;
            while ((end = pending.indexOf(delimiter)) >= 0) {
                String sql = pending.substring(0, end).strip();
                pending.delete(0, end + delimiter.length());
                if (!sql.isBlank()) {
                    statement.execute(sql);
                }
            }
        }
        assertThat(pending.toString()).isBlank();
    }

    private static Connection as(String user, String password) throws SQLException {
        return DriverManager.getConnection(db.jdbcUrl(database), user, password);
    }

    @Test
    void theStatusSinkAppliesItsMigrationAndWritesStatusesButCreatesNoOtherTable() throws Exception {
        // a second start finds its migration applied
        SchemaMigrator.migrate(db.jdbcUrl(database), "falcon_sink", "falcon-sink-dev");
        insertJob("grants-sink-1");
        try (Connection sink = as("falcon_sink", "falcon-sink-dev");
                Statement statement = sink.createStatement()) {
            assertThat(statement.executeUpdate("UPDATE jobs SET status = 'Running' WHERE id = 'grants-sink-1'"))
                    .isOne();
            statement.executeUpdate("INSERT INTO falcon_status_versions (job_id, version) VALUES ('grants-sink-1', 1)");
            assertThatThrownBy(() -> statement.execute("CREATE TABLE not_the_migrations (x INT)"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.execute("DELETE FROM jobs WHERE id = 'grants-sink-1'"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() ->
                            statement.execute("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec) VALUES"
                                    + " ('x', 'a', 'n', 'v5e', '2x4', '{}')"))
                    .hasMessageContaining("denied");
        }
    }

    @Test
    void theCliSubmitsAndRegistersButCannotCreateTablesOrDeleteJobs() throws Exception {
        try (Connection cli = as("falcon_cli", "falcon-cli-dev");
                Statement statement = cli.createStatement()) {
            statement.executeUpdate("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec) VALUES"
                    + " ('grants-cli-1', 'alice', 'n', 'v5e', '2x4', '{}')");
            assertThat(statement.executeUpdate("UPDATE jobs SET status = 'Aborting' WHERE id = 'grants-cli-1'"))
                    .isOne();
            assertThatThrownBy(() -> statement.execute("DELETE FROM jobs WHERE id = 'grants-cli-1'"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.execute("CREATE TABLE mine (x INT)"))
                    .hasMessageContaining("denied");
            statement.executeUpdate("INSERT INTO clusters (id, name, project, location, tpu_type, gcs_bucket) VALUES"
                    + " ('grants-c1', 'c1', 'p', 'us-central1', 'v5e', 'b')");
        }
    }

    @Test
    void theConsoleReadsJobsAndClustersAndWritesNothing() throws Exception {
        try (Connection cli = as("falcon_cli", "falcon-cli-dev");
                Statement statement = cli.createStatement()) {
            statement.executeUpdate("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec) VALUES"
                    + " ('grants-console-1', 'alice', 'n', 'v5e', '2x4', '{}')");
        }
        try (Connection console = as("falcon_console", "falcon-console-dev");
                Statement statement = console.createStatement()) {
            try (var rows = statement.executeQuery("SELECT status FROM jobs WHERE id = 'grants-console-1'")) {
                assertThat(rows.next()).isTrue();
            }
            try (var rows = statement.executeQuery("SELECT COUNT(*) FROM clusters")) {
                assertThat(rows.next()).isTrue();
            }
            assertThatThrownBy(() -> statement.executeUpdate(
                            "UPDATE jobs SET status = 'Aborting' WHERE id = 'grants-console-1'"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.executeUpdate("INSERT INTO jobs (id, actor, name, tpu_type, topology,"
                            + " spec) VALUES ('grants-console-2', 'a', 'n', 'v5e', '2x4', '{}')"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE clusters SET status = 'offline'"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.execute("SELECT * FROM falcon_status_versions"))
                    .hasMessageContaining("denied");
        }
    }

    /**
     * The upper components' user: it inserts a request and aborts or re-prioritizes it; it cannot write Falcon's
     * columns, insert a row that looks taken or finished, set any status but Aborting, or touch clusters.
     */
    @Test
    void theUpperComponentsSubmitAbortAndReprioritizeAndNothingMore() throws Exception {
        try (Connection upper = as("falcon_upper", "falcon-upper-dev");
                Statement statement = upper.createStatement()) {
            statement.executeUpdate("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, priority) VALUES"
                    + " ('grants-up-1', 'alice', 'n', 'v5e', '2x4', '{}', 3)");
            statement.executeUpdate("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec) VALUES"
                    + " ('grants-up-2', 'alice', 'n', 'v5e', '2x4', '{}')");
            assertThat(statement.executeUpdate("UPDATE jobs SET priority = 5 WHERE id = 'grants-up-1'"))
                    .isOne();
            assertThat(statement.executeUpdate(
                            "UPDATE jobs SET status = 'Aborting', aborting_at = NOW(3) WHERE id = 'grants-up-1'"))
                    .isOne();
            try (var rows =
                    statement.executeQuery("SELECT status, reason, message FROM jobs WHERE id = 'grants-up-1'")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString("status")).isEqualTo("Aborting");
            }

            // a row that shows itself taken or finished: Falcon's columns are not the upper components'
            assertThatThrownBy(() -> statement.executeUpdate(
                            "INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, status) VALUES"
                                    + " ('grants-up-3', 'mallory', 'n', 'v5e', '2x4', '{}', 'Succeeded')"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.executeUpdate(
                            "INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, cluster_id) VALUES"
                                    + " ('grants-up-3', 'mallory', 'n', 'v5e', '2x4', '{}', 'c1')"))
                    .hasMessageContaining("denied");
            // another tenant's job finished, revived or re-pointed
            assertThatThrownBy(() ->
                            statement.executeUpdate("UPDATE jobs SET status = 'Succeeded' WHERE id = 'grants-up-2'"))
                    .hasMessageContaining("only to Aborting");
            assertThatThrownBy(() ->
                            statement.executeUpdate("UPDATE jobs SET status = 'Pending' WHERE id = 'grants-up-1'"))
                    .hasMessageContaining("only to Aborting");
            assertThatThrownBy(() -> statement.executeUpdate(
                            "UPDATE jobs SET message = 'done', reason = 'JobFailed' WHERE id = 'grants-up-2'"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.executeUpdate(
                            "UPDATE jobs SET spec = '{\"image\":\"evil\"}' WHERE id = 'grants-up-2'"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM jobs WHERE id = 'grants-up-2'"))
                    .hasMessageContaining("denied");
            // the clusters table is the operators'
            assertThatThrownBy(() -> statement.executeQuery("SELECT * FROM clusters"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE clusters SET gcs_bucket = 'mine'"))
                    .hasMessageContaining("denied");
        }
        // the status-sink still writes every status of those rows
        try (Connection sink = as("falcon_sink", "falcon-sink-dev");
                Statement statement = sink.createStatement()) {
            assertThat(statement.executeUpdate(
                            "UPDATE jobs SET status = 'Aborted', aborted_at = NOW(3) WHERE id = 'grants-up-1'"))
                    .isOne();
            assertThat(statement.executeUpdate("UPDATE jobs SET status = 'Running' WHERE id = 'grants-up-2'"))
                    .isOne();
        }
    }

    /** Debezium snapshots and streams with only REPLICATION SLAVE / CLIENT and SELECT on the two tables. */
    @Test
    void cdcIngestStreamsWithReplicationAndSelectOnTheTwoTablesOnly() throws Exception {
        try (Connection cdc = as("falcon_cdc", "falcon-cdc-dev");
                Statement statement = cdc.createStatement()) {
            assertThatThrownBy(() -> statement.executeQuery("SELECT * FROM " + database + ".falcon_status_versions"))
                    .hasMessageContaining("denied");
            assertThatThrownBy(() -> statement.execute("UPDATE jobs SET status = 'Failed'"))
                    .hasMessageContaining("denied");
        }
        String before = "grants-cdc-snapshot";
        String after = "grants-cdc-streamed";
        insertJob(before);
        Map<String, String> settings = new HashMap<>();
        settings.put(CdcIngestKeys.FLAVOR.key(), "mariadb");
        settings.put(CdcIngestKeys.DB_HOST.key(), db.host());
        settings.put(CdcIngestKeys.DB_PORT.key(), Integer.toString(db.port()));
        settings.put(CdcIngestKeys.DB_USER.key(), "falcon_cdc");
        settings.put(CdcIngestKeys.DB_PASSWORD.key(), "falcon-cdc-dev");
        settings.put(CdcIngestKeys.DB_NAME.key(), database);
        settings.put(CdcIngestKeys.SERVER_ID.key(), Long.toString(6000 + Math.floorMod(database.hashCode(), 1000)));
        settings.put(CdcIngestKeys.ENGINE_NAME.key(), database + "-cdc");
        settings.put(CdcIngestKeys.TOPIC_PREFIX.key(), database);
        settings.put(CdcIngestKeys.OFFSETS_TOPIC.key(), database + ".cdc.offsets");
        settings.put(CdcIngestKeys.SCHEMA_HISTORY_TOPIC.key(), database + ".cdc.schema-history");
        settings.put(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), SharedInfra.kafka().bootstrapServers());
        settings.put(SharedKeys.KAFKA_REPLICATION_FACTOR.key(), "1");
        try (TopicReader<String, JobChange> jobs = TopicReader.fromBeginning(
                                SharedInfra.kafka().bootstrapServers(), Topics.CDC_JOBS)
                        .skippingUndecodable();
                CdcIngest cdc = new CdcIngest(CdcConfig.from(settings))) {
            cdc.start();
            jobs.awaitValue("the snapshot of " + before, Duration.ofSeconds(90), change -> isJob(change, before));
            insertJob(after);
            jobs.awaitValue("the binlog insert of " + after, Duration.ofSeconds(60), change -> isJob(change, after));
        }
    }

    private static boolean isJob(JobChange change, String id) {
        return change.after().map(row -> row.id().equals(id)).orElse(false);
    }

    private static void insertJob(String id) throws SQLException {
        try (Connection cli = as("falcon_cli", "falcon-cli-dev");
                Statement statement = cli.createStatement()) {
            var row = jobRow(id).tpuType("v5e").topology("2x4").build();
            statement.executeUpdate("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec) VALUES ('" + row.id()
                    + "', 'alice', 'n', '" + row.tpuType() + "', '" + row.topology() + "', '{}')");
        }
    }
}
