package io.falcon.statussink;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.SharedInfra;
import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.ops.FalconMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StatusSinkIT {
    private StatusDb db;
    private String topic;
    private KafkaProducer<String, TaskStatus> producer;
    private StatusSink sink;

    @BeforeEach
    void start() throws Exception {
        db = new StatusDb();
        topic = SharedInfra.uniqueName("status");
        SharedInfra.kafka().createTopics(3, topic);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedInfra.kafka().bootstrapServers());
        producer = new KafkaProducer<>(props, new StringSerializer(), Topics.TASK_STATUS.valueSerde().serializer());
        sink = new StatusSink(StatusSinkConfig.from(Map.of(
                "falcon.kafka.bootstrap-servers", SharedInfra.kafka().bootstrapServers(),
                "falcon.sink.group-id", topic,
                "falcon.db.url", db.url(),
                "falcon.db.user", db.db.user(),
                "falcon.db.password", db.db.password(),
                "falcon.sink.max-backoff", "1s")), new FalconMetrics(new SimpleMeterRegistry()), topic).start();
    }

    @AfterEach
    void stop() {
        sink.close();
        producer.close();
    }

    private void send(TaskStatus status) {
        producer.send(new ProducerRecord<>(topic, status.jobId(), status));
        producer.flush();
    }

    @Test
    void statusesInOrderEndAsTheLastOne() throws Exception {
        db.insertJob("j1", "Pending");
        send(StatusDb.status("j1", 1, Status.Pending, Optional.of(Reason.Provisioning), "正在创建 node pool"));
        send(StatusDb.status("j1", 2, Status.Running, Optional.empty(), "Pod 运行中 (1/1 active)"));
        send(StatusDb.status("j1", 3, Status.Succeeded, Optional.empty(), ""));
        await(() -> "Succeeded".equals(db.column("j1", "status")));
        assertThat(db.column("j1", "finished_at")).isNotNull();
    }

    @Test
    void aDatabaseOutageDelaysButLosesNothing() throws Exception {
        for (int i = 0; i < 20; i++) {
            db.insertJob("o" + i, "Pending");
        }
        send(StatusDb.status("o0", 1, Status.Running, Optional.empty(), "before"));
        await(() -> "Running".equals(db.column("o0", "status")));
        SharedInfra.mariaDb().stop();
        try {
            for (int i = 0; i < 20; i++) {
                send(StatusDb.status("o" + i, 2, Status.Succeeded, Optional.empty(), ""));
            }
            Thread.sleep(1500);
        } finally {
            SharedInfra.mariaDb().start();
        }
        for (int i = 0; i < 20; i++) {
            String id = "o" + i;
            await(() -> "Succeeded".equals(db.column(id, "status")));
        }
    }

    @Test
    void undecodableAndUnknownJobEventsGoToTheDeadLetterTopicAndTheRestIsWritten() throws Exception {
        db.insertJob("known", "Pending");
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(producerProps(), new StringSerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(topic, "garbled", "{not json".getBytes())).get();
        }
        send(StatusDb.status("ghost", 1, Status.Running, Optional.empty(), "nobody home"));
        send(StatusDb.status("known", 1, Status.Running, Optional.empty(), "Pod 运行中 (1/1 active)"));
        await(() -> "Running".equals(db.column("known", "status")));

        List<DeadLetter> letters = deadLetters(letter -> true, 2);
        assertThat(letters).extracting(DeadLetter::reason).anySatisfy(r -> assertThat(r).contains("TaskStatus"))
                .anySatisfy(r -> assertThat(r).isEqualTo("no jobs row with id ghost"));
    }

    @Test
    void aStatusTheDatabaseRefusesIsDeadLetteredAndTheRestOfItsBatchIsWritten() throws Exception {
        db.insertJob("huge", "Pending");
        db.insertJob("fine", "Pending");
        // TEXT holds 65,535 bytes: the database refuses this row whatever the retries (SQL state 22001)
        send(StatusDb.status("huge", 1, Status.Failed, Optional.of(Reason.JobFailed), "x".repeat(70_000)));
        send(StatusDb.status("fine", 1, Status.Running, Optional.empty(), "Pod 运行中 (1/1 active)"));
        await(() -> "Running".equals(db.column("fine", "status")));

        List<DeadLetter> letters = deadLetters(letter -> letter.key().filter("huge"::equals).isPresent(), 1);
        assertThat(letters).singleElement().satisfies(l -> assertThat(l.reason()).startsWith("the database refuses"));
        assertThat(db.column("huge", "status")).isEqualTo("Pending");
    }

    /** The dead letters this test's topic produced that match, read until {@code wanted} arrived or 30 s passed. */
    private List<DeadLetter> deadLetters(Predicate<DeadLetter> matching, int wanted) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedInfra.kafka().bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, topic + "-dlq-reader");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<DeadLetter> letters = new ArrayList<>();
        try (KafkaConsumer<String, DeadLetter> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                Topics.DEAD_LETTER.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.DEAD_LETTER.name()));
            Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
            while (Instant.now().isBefore(deadline) && letters.size() < wanted) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (r.value().sourceTopic().equals(topic) && matching.test(r.value())) {
                        letters.add(r.value());
                    }
                });
            }
        }
        return letters;
    }

    private Properties producerProps() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedInfra.kafka().bootstrapServers());
        return props;
    }

    private static void await(Callable<Boolean> condition) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (Instant.now().isBefore(deadline)) {
            if (condition.call()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("condition not met within 30s");
    }
}
