package io.falcon.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.SharedKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One test's world: a fresh database (jobs and clusters from the shipped DDL) on the shared MariaDB, its own topics
 * on the shared broker, a config pointing at both, and readers of the output topics.
 */
final class CdcFixture implements AutoCloseable {
    final EmbeddedMariaDb db = SharedInfra.mariaDb();
    final EmbeddedKafka kafka = SharedInfra.kafka();
    final String name = SharedInfra.uniqueName("cdc");
    final CdcConfig config;
    private final List<CdcIngest> started = new ArrayList<>();
    private Reader<JobChange> jobs;
    private Reader<ClusterChange> clusters;
    private Reader<DeadLetter> deadLetters;

    CdcFixture() {
        this(Map.of());
    }

    /** With extra settings, e.g. another flavor. */
    CdcFixture(Map<String, String> extra) {
        db.createDatabase(name);
        sql(ddl(Path.of("..", "docs", "schema", "jobs.sql")),
                ddl(Path.of("..", "status-sink", "src", "main", "resources", "db", "migration", "V1__clusters.sql")));
        Map<String, String> m = new HashMap<>();
        m.put(CdcIngestKeys.DB_HOST.key(), db.host());
        m.put(CdcIngestKeys.DB_PORT.key(), Integer.toString(db.port()));
        m.put(CdcIngestKeys.DB_USER.key(), db.user());
        m.put(CdcIngestKeys.DB_PASSWORD.key(), db.password());
        m.put(CdcIngestKeys.DB_NAME.key(), name);
        m.put(CdcIngestKeys.SERVER_ID.key(),
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

    /** Starts an ingest on this fixture's config; closed with the fixture. */
    CdcIngest startIngest() {
        CdcIngest ingest = new CdcIngest(config);
        started.add(ingest);
        ingest.start();
        return ingest;
    }

    Reader<JobChange> jobs() {
        if (jobs == null) {
            jobs = new Reader<>(kafka, config.jobsTopic(), b -> Topics.CDC_JOBS.valueSerde().deserializer()
                    .deserialize(config.jobsTopic(), b));
        }
        return jobs;
    }

    Reader<ClusterChange> clusters() {
        if (clusters == null) {
            clusters = new Reader<>(kafka, config.clustersTopic(), b -> Topics.CDC_CLUSTERS.valueSerde().deserializer()
                    .deserialize(config.clustersTopic(), b));
        }
        return clusters;
    }

    Reader<DeadLetter> deadLetters() {
        if (deadLetters == null) {
            deadLetters = new Reader<>(kafka, config.deadLetterTopic(), b -> Topics.DEAD_LETTER.valueSerde()
                    .deserializer().deserialize(config.deadLetterTopic(), b));
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
        try (Connection c = db.connect(name); Statement s = c.createStatement()) {
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
            return text.lines().filter(l -> !l.trim().startsWith("--")).collect(Collectors.joining("\n")).trim()
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
        for (Reader<?> r : new Reader<?>[] {jobs, clusters, deadLetters}) {
            if (r != null) {
                r.close();
            }
        }
    }

    /** Reads a topic from the beginning, keeping everything read so far. */
    static final class Reader<V> implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final java.util.function.Function<byte[], V> decode;
        final List<ConsumerRecord<String, V>> records = new ArrayList<>();

        Reader(EmbeddedKafka kafka, String topic, java.util.function.Function<byte[], V> decode) {
            this.decode = decode;
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(pi -> new TopicPartition(topic, pi.partition())).toList();
            assertThat(partitions).as("partitions of " + topic).isNotEmpty();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        /** Polls until the values read so far satisfy the condition; fails after the timeout. */
        List<V> awaitValues(Duration timeout, String what, Predicate<List<V>> condition) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    records.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.key(),
                            decode.apply(r.value())));
                }
                List<V> values = values();
                if (condition.test(values)) {
                    return values;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; read "
                            + values.size() + " records: " + values);
                }
            }
        }

        /** Polls for a while and returns everything read. */
        List<V> drain(Duration quiet) {
            long deadline = System.nanoTime() + quiet.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    records.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.key(),
                            decode.apply(r.value())));
                }
            }
            return values();
        }

        List<V> values() {
            return records.stream().map(ConsumerRecord::value).toList();
        }

        @Override
        public void close() {
            consumer.close(Duration.ofSeconds(2));
        }
    }
}
