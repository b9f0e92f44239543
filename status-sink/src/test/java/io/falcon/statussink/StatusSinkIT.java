package io.falcon.statussink;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.SharedInfra;
import io.falcon.events.Settings;
import io.falcon.events.Topics;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
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
        sink = new StatusSink(StatusSinkConfig.from(new Settings(Map.of(
                "falcon.kafka.bootstrap-servers", SharedInfra.kafka().bootstrapServers(),
                "falcon.sink.group-id", topic,
                "falcon.sink.topic", topic,
                "falcon.db.url", db.url(),
                "falcon.db.user", db.db.user(),
                "falcon.db.password", db.db.password(),
                "falcon.sink.max-backoff", "1s")))).start();
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
