package io.falcon.bench;

import io.falcon.cdc.CdcConfig;
import io.falcon.cdc.CdcIngest;
import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.events.Topics;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.SharedKeys;
import io.falcon.statussink.SchemaMigrator;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * INSERT into jobs -> JobChange on falcon.cdc.jobs, through the real Debezium engine, MariaDB binlog and Kafka.
 * Part 1 inserts one row at a time at a steady rate and reports the latency of each; part 2 inserts a burst and
 * reports how fast the changes arrive. Usage: CdcLatencyHarness [paced rows, default 300] [burst rows, default 5000]
 */
public final class CdcLatencyHarness {
    private CdcLatencyHarness() {}

    public static void main(String[] args) throws Exception {
        int pacedRows = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int burstRows = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        try (EmbeddedKafka kafka = EmbeddedKafka.launch();
                EmbeddedMariaDb db = EmbeddedMariaDb.launch()) {
            db.createDatabase("bench");
            try (Connection c = db.connect("bench")) {
                JobsTable.create(c);
            }
            SchemaMigrator.migrate(db.jdbcUrl("bench"), db.user(), db.password());
            CdcIngest ingest = new CdcIngest(CdcConfig.from(Map.of(
                    CdcIngestKeys.DB_HOST.key(),
                    db.host(),
                    CdcIngestKeys.DB_PORT.key(),
                    Integer.toString(db.port()),
                    CdcIngestKeys.DB_USER.key(),
                    db.user(),
                    CdcIngestKeys.DB_PASSWORD.key(),
                    db.password(),
                    CdcIngestKeys.DB_NAME.key(),
                    "bench",
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(),
                    kafka.bootstrapServers(),
                    SharedKeys.KAFKA_REPLICATION_FACTOR.key(),
                    "1")));
            ingest.start();
            Map<String, Long> insertedAt = new ConcurrentHashMap<>();
            AtomicReference<Samples> current = new AtomicReference<>(new Samples());
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, "bench");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            try (KafkaConsumer<String, JobChange> consumer = new KafkaConsumer<>(
                            props,
                            new StringDeserializer(),
                            Topics.CDC_JOBS.valueSerde().deserializer());
                    Connection c = db.connect("bench");
                    PreparedStatement insert = c.prepareStatement("INSERT INTO jobs (id, actor, name, tpu_type,"
                            + " topology, spec) VALUES (?, 'bench', 'bench', 'v6e', '2x2', '{}')")) {
                consumer.subscribe(List.of(Topics.CDC_JOBS.name()));
                Thread receiver = new Thread(
                        () -> {
                            try {
                                while (true) {
                                    consumer.poll(Duration.ofMillis(20)).forEach(record -> {
                                        Long at = insertedAt.remove(record.key());
                                        if (at != null) {
                                            current.get().add(System.nanoTime() - at);
                                        }
                                    });
                                }
                            } catch (WakeupException e) {
                                // done
                            }
                        },
                        "receiver");
                receiver.start();
                insertAndWait(insert, insertedAt, "warmup", 20, 50);

                Samples paced = new Samples();
                current.set(paced);
                long pacedStart = System.nanoTime();
                insertAndWait(insert, insertedAt, "paced", pacedRows, 50);
                System.out.printf(
                        "paced: %d inserts, one every 50 ms, over %.1fs: %s%n",
                        pacedRows, (System.nanoTime() - pacedStart) / 1e9, paced.summary());

                current.set(new Samples());
                long burstStart = System.nanoTime();
                insertAndWait(insert, insertedAt, "burst", burstRows, 0);
                double burstSeconds = (System.nanoTime() - burstStart) / 1e9;
                System.out.printf(
                        "burst: %d inserts (autocommit) on the topic after %.2fs = %.0f changes/s; %s%n",
                        burstRows,
                        burstSeconds,
                        burstRows / burstSeconds,
                        current.get().summary());
                consumer.wakeup();
                receiver.join();
            } finally {
                ingest.close();
            }
        }
    }

    private static void insertAndWait(
            PreparedStatement insert, Map<String, Long> insertedAt, String prefix, int rows, long pauseMillis)
            throws Exception {
        for (int i = 0; i < rows; i++) {
            String id = prefix + "-" + i;
            insertedAt.put(id, System.nanoTime());
            insert.setString(1, id);
            insert.executeUpdate();
            if (pauseMillis > 0) {
                Thread.sleep(pauseMillis);
            }
        }
        Instant deadline = Instant.now().plusSeconds(120);
        while (insertedAt.keySet().stream().anyMatch(k -> k.startsWith(prefix + "-"))
                && Instant.now().isBefore(deadline)) {
            Thread.sleep(10);
        }
    }
}
