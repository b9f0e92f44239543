package io.falcon.bench;

import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.ops.FalconMetrics;
import io.falcon.statussink.SchemaMigrator;
import io.falcon.statussink.StatusSink;
import io.falcon.statussink.StatusSinkConfig;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Write-back throughput and event -> row latency of the status-sink, on the real broker and MariaDB. First a paced
 * phase (one event every 10 ms: latency without queueing), then N jobs get three status transitions each, produced
 * as fast as the producer goes (throughput; latency then includes queueing). Usage: StatusSinkHarness [jobs, 5000]
 */
public final class StatusSinkHarness {
    private StatusSinkHarness() {}

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        try (EmbeddedKafka kafka = EmbeddedKafka.launch();
                EmbeddedMariaDb db = EmbeddedMariaDb.launch()) {
            db.createDatabase("bench");
            try (Connection c = db.connect("bench")) {
                JobsTable.create(c);
                c.setAutoCommit(false);
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO jobs (id, actor, name, tpu_type,"
                        + " topology, spec) VALUES (?, 'bench', 'bench', 'v6e', '2x2', '{}')")) {
                    for (int i = 0; i < jobs; i++) {
                        insert.setString(1, "job-" + i);
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
                c.commit();
            }
            SchemaMigrator.migrate(db.jdbcUrl("bench"), db.user(), db.password());
            kafka.createTopics(3, Topics.TASK_STATUS.name(), Topics.DEAD_LETTER.name());

            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            registry.config().meterFilter(new MeterFilter() {
                @Override
                public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                    return DistributionStatisticConfig.builder()
                            .percentiles(0.5, 0.9, 0.99)
                            .build()
                            .merge(config);
                }
            });
            FalconMetrics metrics = new FalconMetrics(registry);
            StatusSinkConfig config = StatusSinkConfig.from(Map.of(
                    "falcon.kafka.bootstrap-servers",
                    kafka.bootstrapServers(),
                    "falcon.db.url",
                    db.jdbcUrl("bench"),
                    "falcon.db.user",
                    db.user(),
                    "falcon.db.password",
                    db.password()));
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            try (StatusSink sink = new StatusSink(config, metrics).start();
                    KafkaProducer<String, TaskStatus> producer = new KafkaProducer<>(
                            props,
                            new StringSerializer(),
                            Topics.TASK_STATUS.valueSerde().serializer());
                    Connection c = db.connect("bench")) {
                for (int i = 0; i < 300; i++) {
                    String id = "job-" + i;
                    producer.send(new ProducerRecord<>(
                            Topics.TASK_STATUS.name(),
                            id,
                            new TaskStatus(
                                    Meta.of("bench", Instant.now()),
                                    id,
                                    1,
                                    Status.Pending,
                                    Optional.empty(),
                                    "paced",
                                    Optional.of("c1"),
                                    Optional.empty(),
                                    Optional.empty(),
                                    Optional.empty(),
                                    Optional.empty(),
                                    Optional.empty(),
                                    Optional.empty(),
                                    Optional.empty())));
                    producer.flush();
                    Thread.sleep(10);
                }
                while (countMessage(c, "paced") < 300) {
                    Thread.sleep(20);
                }
                var paced = metrics.sinkLag().takeSnapshot();
                System.out.printf(
                        "paced (1 event / 10 ms): event -> row committed: mean=%.1fms %s%n",
                        paced.mean(TimeUnit.MILLISECONDS), percentiles(paced.percentileValues()));
                registry.clear();

                long start = System.nanoTime();
                Status[] steps = {Status.Pending, Status.Running, Status.Succeeded};
                for (int step = 0; step < steps.length; step++) {
                    for (int i = 0; i < jobs; i++) {
                        String id = "job-" + i;
                        Instant now = Instant.now();
                        producer.send(new ProducerRecord<>(
                                Topics.TASK_STATUS.name(),
                                id,
                                new TaskStatus(
                                        Meta.of("bench", now),
                                        id,
                                        step + 2,
                                        steps[step],
                                        Optional.empty(),
                                        "step " + step,
                                        Optional.of("c1"),
                                        Optional.empty(),
                                        Optional.empty(),
                                        Optional.empty(),
                                        Optional.empty(),
                                        steps[step].isTerminal() ? Optional.of(now) : Optional.empty(),
                                        Optional.empty(),
                                        Optional.empty())));
                    }
                }
                producer.flush();
                while (count(c, "Succeeded") < jobs) {
                    Thread.sleep(20);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                int events = jobs * steps.length;
                System.out.printf(
                        "status-sink: %d events for %d jobs written in %.2fs = %.0f events/s%n",
                        events, jobs, seconds, events / seconds);
                var lag = metrics.sinkLag().takeSnapshot();
                var batch = metrics.sinkBatchSize().takeSnapshot();
                System.out.printf(
                        "saturated: event -> row committed: mean=%.1fms %s; batches=%d mean batch=%.0f%n",
                        lag.mean(TimeUnit.MILLISECONDS),
                        percentiles(lag.percentileValues()),
                        batch.count(),
                        batch.mean());
            }
        }
    }

    private static String percentiles(ValueAtPercentile[] values) {
        StringBuilder text = new StringBuilder();
        for (ValueAtPercentile value : values) {
            text.append(String.format("p%.0f=%.1fms ", value.percentile() * 100, value.value(TimeUnit.MILLISECONDS)));
        }
        return text.toString().trim();
    }

    private static int countMessage(Connection c, String message) throws Exception {
        try (PreparedStatement select = c.prepareStatement("SELECT COUNT(*) FROM jobs WHERE message = ?")) {
            select.setString(1, message);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private static int count(Connection c, String status) throws Exception {
        try (PreparedStatement select = c.prepareStatement("SELECT COUNT(*) FROM jobs WHERE status = ?")) {
            select.setString(1, status);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }
}
