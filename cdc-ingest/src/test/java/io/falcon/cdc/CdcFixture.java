package io.falcon.cdc;

import io.falcon.embedded.Database;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.KafkaBroker;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.SharedKeys;
import io.falcon.testkit.kafka.TopicReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * One test's world: a fresh database (jobs and clusters from the shipped DDL) on the shared database server, its own
 * topics on the shared broker, a config pointing at both, and readers of the output topics. The server and broker are
 * SharedInfra's: the embedded MariaDB and broker, or MySQL 8.4 and Kafka in Docker for the mysql8 profile; the
 * connector follows the server's flavor.
 */
final class CdcFixture implements AutoCloseable {
    final Database db = SharedInfra.database();
    final KafkaBroker kafka = SharedInfra.broker();
    final String name = SharedInfra.uniqueName("cdc");
    final CdcConfig config;
    private final List<CdcIngest> started = new ArrayList<>();
    private TopicReader<String, JobChange> jobs;
    private TopicReader<String, ClusterChange> clusters;
    private TopicReader<String, DeadLetter> deadLetters;

    CdcFixture() {
        this(Map.of());
    }

    /** With extra settings, e.g. another flavor. */
    CdcFixture(Map<String, String> extra) {
        db.createDatabase(name);
        sql(
                ddl(Path.of("..", "docs", "schema", "jobs.sql")),
                ddl(Path.of("..", "status-sink", "src", "main", "resources", "db", "migration", "V1__clusters.sql")));
        Map<String, String> m = new HashMap<>();
        m.put(CdcIngestKeys.FLAVOR.key(), db.flavor().setting());
        m.put(CdcIngestKeys.DB_HOST.key(), db.host());
        m.put(CdcIngestKeys.DB_PORT.key(), Integer.toString(db.port()));
        m.put(CdcIngestKeys.DB_USER.key(), db.user());
        m.put(CdcIngestKeys.DB_PASSWORD.key(), db.password());
        m.put(CdcIngestKeys.DB_NAME.key(), name);
        m.put(
                CdcIngestKeys.SERVER_ID.key(),
                Long.toString(ThreadLocalRandom.current().nextLong(10_000, 4_000_000_000L)));
        m.put(SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), kafka.bootstrapServers());
        m.put(CdcIngestKeys.TOPIC_PREFIX.key(), name);
        m.put(SharedKeys.KAFKA_REPLICATION_FACTOR.key(), "1");
        m.put(CdcIngestKeys.OFFSETS_TOPIC.key(), name + ".offsets");
        m.put(CdcIngestKeys.SCHEMA_HISTORY_TOPIC.key(), name + ".schema-history");
        m.put(CdcIngestKeys.OFFSET_FLUSH_INTERVAL.key(), "200ms");
        m.put(CdcIngestKeys.RESTART_BACKOFF.key(), "500ms");
        m.putAll(extra);
        // the output topics are not settings: each fixture publishes to its own through the test-only method
        config = CdcConfig.from(m).withOutputTopics(name + ".jobs", name + ".clusters", name + ".dead-letter");
    }

    /** The embedded MariaDB, for tests that stop and start the server (they run on it only). */
    EmbeddedMariaDb embeddedDb() {
        if (db instanceof EmbeddedMariaDb embedded) {
            return embedded;
        }
        throw new IllegalStateException(
                "this test stops and starts the server: it needs the embedded MariaDB, not " + db);
    }

    /** Starts an ingest on this fixture's config; closed with the fixture. */
    CdcIngest startIngest() {
        CdcIngest ingest = new CdcIngest(config);
        started.add(ingest);
        ingest.start();
        return ingest;
    }

    /** This fixture's jobs topic, read from the beginning. */
    TopicReader<String, JobChange> jobs() {
        if (jobs == null) {
            jobs = TopicReader.fromBeginning(kafka.bootstrapServers(), Topics.CDC_JOBS, config.jobsTopic());
        }
        return jobs;
    }

    TopicReader<String, ClusterChange> clusters() {
        if (clusters == null) {
            clusters = TopicReader.fromBeginning(kafka.bootstrapServers(), Topics.CDC_CLUSTERS, config.clustersTopic());
        }
        return clusters;
    }

    TopicReader<String, DeadLetter> deadLetters() {
        if (deadLetters == null) {
            deadLetters =
                    TopicReader.fromBeginning(kafka.bootstrapServers(), Topics.DEAD_LETTER, config.deadLetterTopic());
        }
        return deadLetters;
    }

    /** A new UTC session on this fixture's database; the caller closes it. */
    Connection connect() throws SQLException {
        Connection c = db.connect(name);
        try (Statement s = c.createStatement()) {
            s.execute("SET time_zone = '+00:00'");
        }
        return c;
    }

    /** Runs statements in one UTC session, autocommit. */
    void sql(String... statements) {
        try (Connection c = db.connect(name);
                Statement s = c.createStatement()) {
            s.execute("SET time_zone = '+00:00'");
            for (String st : statements) {
                s.execute(st);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("SQL failed: " + String.join("; ", statements), e);
        }
    }

    static String insertJob(String id, String spec) {
        return "INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, created_at, updated_at) VALUES ('" + id
                + "', 'alice', 'train-" + id + "', 'v5e', '2x4', '" + spec.replace("'", "''")
                + "', '2025-03-01 10:15:30.123', '2025-03-01 10:15:30.123')";
    }

    static String insertCluster(String id, String status) {
        return "INSERT INTO clusters (id, name, project, location, tpu_type, gcs_bucket, status, created_at) VALUES ('"
                + id + "', 'edge-" + id + "', 'proj', 'us-central2-b', 'v5e', 'gs://b-" + id + "', '" + status
                + "', '2025-01-02 03:04:05.006')";
    }

    private static String ddl(Path path) {
        try {
            String text = Files.readString(path);
            // strip comment lines; one statement per file
            return text.lines()
                    .filter(l -> !l.trim().startsWith("--"))
                    .collect(Collectors.joining("\n"))
                    .trim()
                    .replaceAll(";\\s*$", "");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the reference DDL " + path.toAbsolutePath(), e);
        }
    }

    @Override
    public void close() {
        for (CdcIngest i : started) {
            i.close();
        }
        for (TopicReader<?, ?> r : new TopicReader<?, ?>[] {jobs, clusters, deadLetters}) {
            if (r != null) {
                r.close();
            }
        }
    }
}
