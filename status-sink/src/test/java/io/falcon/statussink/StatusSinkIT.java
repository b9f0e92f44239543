package io.falcon.statussink;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.SharedInfra;
import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.ops.FalconMetrics;
import io.falcon.testkit.Await;
import io.falcon.testkit.kafka.DeadLetters;
import io.falcon.testkit.kafka.TopicProducer;
import io.falcon.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StatusSinkIT {
    private StatusDb db;
    private String topic;
    private TopicProducer<String, TaskStatus> producer;
    private StatusSink sink;

    @BeforeEach
    void start() throws Exception {
        db = new StatusDb();
        topic = SharedInfra.uniqueName("status");
        SharedInfra.kafka().createTopics(3, topic);
        producer = TopicProducer.to(SharedInfra.kafka().bootstrapServers(), Topics.TASK_STATUS, topic);
        sink = startSink(Map.of());
    }

    private StatusSink startSink(Map<String, String> extra) {
        Map<String, String> settings = new java.util.HashMap<>(Map.of(
                "falcon.kafka.bootstrap-servers", SharedInfra.kafka().bootstrapServers(),
                "falcon.sink.group-id", topic,
                "falcon.db.url", db.url(),
                "falcon.db.user", db.db.user(),
                "falcon.db.password", db.db.password(),
                "falcon.sink.max-backoff", "1s"));
        settings.putAll(extra);
        return new StatusSink(StatusSinkConfig.from(settings), new FalconMetrics(new SimpleMeterRegistry()), topic)
                .start();
    }

    @AfterEach
    void stop() {
        sink.close();
        producer.close();
    }

    private void send(TaskStatus status) {
        producer.send(status.jobId(), status);
    }

    @Test
    void statusesInOrderEndAsTheLastOne() throws Exception {
        db.insertJob("j1", "Pending");
        send(StatusDb.status("j1", 1, Status.Pending, Optional.of(Reason.Provisioning), "正在创建 node pool"));
        send(StatusDb.status("j1", 2, Status.Running, Optional.empty(), "Pod 运行中 (1/1 active)"));
        send(StatusDb.status("j1", 3, Status.Succeeded, Optional.empty(), ""));
        awaitStatus("j1", "Succeeded");
        assertThat(db.column("j1", "finished_at")).isNotNull();
    }

    @Test
    void theTimerPrunesVersionsOfTerminalJobsAndKeepsThoseInFlight() throws Exception {
        sink.close();
        sink = startSink(Map.of("falcon.sink.terminal-retention", "1ms", "falcon.sink.prune-interval", "100ms"));
        db.insertJob("done", "Pending");
        db.insertJob("busy", "Pending");
        send(StatusDb.status("done", 1, Status.Running, Optional.empty(), ""));
        send(StatusDb.status("busy", 1, Status.Running, Optional.empty(), ""));
        send(StatusDb.status("done", 2, Status.Succeeded, Optional.empty(), ""));
        awaitStatus("done", "Succeeded");
        awaitStatus("busy", "Running");
        Await.until(
                "the version of the finished job pruned",
                Duration.ofSeconds(30),
                () -> !db.versionedJobs().contains("done"),
                () -> {
                    try {
                        return "versions of " + db.versionedJobs();
                    } catch (SQLException e) {
                        return "versions cannot be read: " + e;
                    }
                });
        assertThat(db.versionedJobs()).contains("busy");
    }

    @Test
    void aDatabaseOutageDelaysButLosesNothing() throws Exception {
        for (int i = 0; i < 20; i++) {
            db.insertJob("o" + i, "Pending");
        }
        send(StatusDb.status("o0", 1, Status.Running, Optional.empty(), "before"));
        awaitStatus("o0", "Running");
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
            awaitStatus(id, "Succeeded");
        }
    }

    @Test
    void undecodableAndUnknownJobEventsGoToTheDeadLetterTopicAndTheRestIsWritten() throws Exception {
        db.insertJob("known", "Pending");
        producer.sendRaw("garbled", "{not json".getBytes());
        send(StatusDb.status("ghost", 1, Status.Running, Optional.empty(), "nobody home"));
        send(StatusDb.status("known", 1, Status.Running, Optional.empty(), "Pod 运行中 (1/1 active)"));
        awaitStatus("known", "Running");

        List<DeadLetter> letters = deadLetters(letter -> true, 2);
        assertThat(letters)
                .extracting(DeadLetter::reason)
                .anySatisfy(r -> assertThat(r).contains("TaskStatus"))
                .anySatisfy(r -> assertThat(r).isEqualTo("no jobs row with id ghost"));
    }

    @Test
    void aStatusTheDatabaseRefusesIsDeadLetteredAndTheRestOfItsBatchIsWritten() throws Exception {
        db.insertJob("huge", "Pending");
        db.insertJob("long", "Pending");
        db.insertJob("fine", "Pending");
        // cluster_id is VARCHAR(64): the database refuses this row whatever the retries (SQL state 22001)
        send(io.falcon.testkit.builders.TaskStatusBuilder.taskStatus("huge")
                .status(Status.Failed, Reason.JobFailed)
                .message("refused")
                .clusterId("c".repeat(100))
                .at(java.time.Instant.now())
                .build());
        // a Message longer than the TEXT column holds is cut by TaskStatus itself: that row is written
        send(StatusDb.status("long", 1, Status.Failed, Optional.of(Reason.JobFailed), "x".repeat(70_000)));
        send(StatusDb.status("fine", 1, Status.Running, Optional.empty(), "Pod 运行中 (1/1 active)"));
        awaitStatus("fine", "Running");
        awaitStatus("long", "Failed");
        assertThat(db.column("long", "message")).endsWith("more characters cut)");

        List<DeadLetter> letters =
                deadLetters(letter -> letter.key().filter("huge"::equals).isPresent(), 1);
        assertThat(letters)
                .singleElement()
                .satisfies(l -> assertThat(l.reason()).startsWith("the database refuses"));
        assertThat(db.column("huge", "status")).isEqualTo("Pending");
    }

    /** The dead letters this test's topic produced that match, read until {@code wanted} arrived (at most 30 s). */
    private List<DeadLetter> deadLetters(Predicate<DeadLetter> matching, int wanted) {
        try (TopicReader<String, DeadLetter> letters =
                DeadLetters.reader(SharedInfra.kafka().bootstrapServers())) {
            return letters.awaitMatching(
                    wanted + " dead letters from " + topic,
                    Duration.ofSeconds(30),
                    DeadLetters.from(topic).and(matching),
                    wanted);
        }
    }

    /** Until the status-sink wrote the status into the job's row. */
    private void awaitStatus(String jobId, String status) {
        Await.until(
                "status " + status + " in the row of " + jobId,
                Duration.ofSeconds(30),
                () -> status.equals(db.column(jobId, "status")),
                () -> {
                    try {
                        return "status " + db.column(jobId, "status");
                    } catch (SQLException e) {
                        return "the row cannot be read: " + e;
                    }
                });
    }
}
