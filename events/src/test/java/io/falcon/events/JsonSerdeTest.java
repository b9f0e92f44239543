package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class JsonSerdeTest {
    private static final Meta META = new Meta("e-1", Instant.parse("2026-12-02T10:00:00Z"), "test");
    private static final ClusterTarget CLUSTER =
            new ClusterTarget("c1", "edge-a", "proj-a", "us-central1", "v6e", "bucket-a");

    @Test
    void commandsRoundTripThroughTheirSealedInterface() {
        var serde = Topics.EXECUTOR_COMMANDS.valueSerde();
        ExecutorCommand command = new ExecutorCommand.EnsureNodePool(
                META, "job-1", CLUSTER, "falcon-job-1", "v6e", "2x4", SupplyMode.FLEX_START, Optional.empty());
        byte[] bytes = serde.serializer().serialize("t", command);

        assertThat(new String(bytes, StandardCharsets.UTF_8))
                .contains("\"type\":\"EnsureNodePool\"")
                .contains("\"supplyMode\":\"flex-start\"");
        assertThat(serde.deserializer().deserialize("t", bytes)).isEqualTo(command);

        ExecutorCommand job = new ExecutorCommand.EnsureJob(
                META,
                "job-1",
                CLUSTER,
                "falcon-job-1",
                "falcon-job-1",
                "v6e",
                "2x4",
                new JobSpec("img", List.of("python"), List.of("-c", "1"), Map.of("A", "b")));
        assertThat(serde.deserializer().deserialize("t", serde.serializer().serialize("t", job)))
                .isEqualTo(job);
    }

    @Test
    void anEnsureJobCarriesItsActorAndSecretReferencesAndOneWrittenBeforeThemStillReads() {
        var serde = Topics.EXECUTOR_COMMANDS.valueSerde();
        ExecutorCommand job = new ExecutorCommand.EnsureJob(
                        META,
                        "job-1",
                        CLUSTER,
                        "falcon-job-1",
                        "falcon-job-1",
                        "v6e",
                        "2x4",
                        new JobSpec(
                                "img",
                                List.of("python"),
                                List.of(),
                                Map.of("A", "b"),
                                Map.of("TOKEN", new JobSpec.SecretRef("hf-token", "token"))))
                .withActor("team-a");
        byte[] bytes = serde.serializer().serialize("t", job);
        assertThat(new String(bytes, StandardCharsets.UTF_8))
                .contains("\"actor\":\"team-a\"")
                .contains("\"secretEnv\":{\"TOKEN\":{\"name\":\"hf-token\",\"key\":\"token\"}}");
        assertThat(serde.deserializer().deserialize("t", bytes)).isEqualTo(job);

        String older = "{\"type\":\"EnsureJob\",\"meta\":{\"eventId\":\"e1\",\"occurredAt\":"
                + "\"2026-12-02T10:00:00Z\",\"producer\":\"scheduler\"},\"jobId\":\"job-1\",\"cluster\":{"
                + "\"clusterId\":\"c1\",\"name\":\"edge-a\",\"project\":\"proj-a\",\"location\":\"us-central1\","
                + "\"tpuType\":\"v6e\",\"gcsBucket\":\"bucket-a\"},\"nodePoolName\":\"falcon-job-1\","
                + "\"k8sJobName\":\"falcon-job-1\",\"tpuType\":\"v6e\",\"topology\":\"2x4\",\"spec\":{"
                + "\"image\":\"img\",\"command\":[\"python\"],\"args\":[],\"env\":{\"A\":\"b\"}}}";
        ExecutorCommand read = serde.deserializer().deserialize("t", older.getBytes(StandardCharsets.UTF_8));
        assertThat(read).isInstanceOfSatisfying(ExecutorCommand.EnsureJob.class, ensure -> {
            assertThat(ensure.actor()).isEmpty();
            assertThat(ensure.jobUid()).isEmpty();
            assertThat(ensure.spec().env()).isEqualTo(Map.of("A", "b"));
            assertThat(ensure.spec().secretEnv()).isEmpty();
        });
    }

    @Test
    void eventsAndStatusRoundTrip() {
        ExecutorEvent event = new ExecutorEvent.JobRunning(
                META,
                "job-1",
                "c1",
                "v6e",
                "falcon-job-1",
                "uid-1",
                2,
                2,
                Optional.of(Instant.parse("2026-12-02T10:00:30Z")));
        var events = Topics.EXECUTOR_EVENTS.valueSerde();
        assertThat(events.deserializer().deserialize("t", events.serializer().serialize("t", event)))
                .isEqualTo(event);

        TaskStatus status = new TaskStatus(
                META,
                "job-1",
                3,
                Status.Failed,
                Optional.of(Reason.JobFailed),
                "Pod terminated: OOMKilled (exit code 137)",
                Optional.of("c1"),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(Instant.parse("2026-12-02T10:01:00Z")),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new io.falcon.events.status.StartEstimate(
                        Instant.parse("2026-12-02T10:20:00Z"), Instant.parse("2026-12-02T10:35:00Z"))));
        var statuses = Topics.TASK_STATUS.valueSerde();
        assertThat(statuses.deserializer()
                        .deserialize("t", statuses.serializer().serialize("t", status)))
                .isEqualTo(status);
    }

    @Test
    void aReservationSeenRoundTripsWithItsCountAndUseAsRead() {
        var events = Topics.EXECUTOR_EVENTS.valueSerde();
        ExecutorEvent seen = new ExecutorEvent.ReservationSeen(META, "job-1", "c1", "v6e", "res-a", 16, 12);
        byte[] bytes = events.serializer().serialize("t", seen);
        assertThat(new String(bytes, StandardCharsets.UTF_8))
                .contains("\"type\":\"ReservationSeen\"", "\"count\":16", "\"inUse\":12");
        assertThat(events.deserializer().deserialize("t", bytes)).isEqualTo(seen);
    }

    @Test
    void aJobRunningOfAnOlderExecutorReadsWithoutWhenItsPodsWereBound() {
        String older = "{\"type\":\"JobRunning\",\"meta\":{\"eventId\":\"e1\",\"occurredAt\":"
                + "\"2026-12-02T10:00:00Z\",\"producer\":\"executor\"},\"jobId\":\"job-1\",\"clusterId\":\"c1\","
                + "\"tpuType\":\"v6e\",\"k8sJobName\":\"falcon-job-1\",\"jobUid\":\"uid-1\",\"active\":2,"
                + "\"expected\":2}";
        ExecutorEvent read = Topics.EXECUTOR_EVENTS
                .valueSerde()
                .deserializer()
                .deserialize("t", older.getBytes(StandardCharsets.UTF_8));
        assertThat(read).isInstanceOfSatisfying(ExecutorEvent.JobRunning.class, running -> {
            assertThat(running.active()).isEqualTo(2);
            assertThat(running.podsBoundAt()).isEmpty();
        });
    }

    @Test
    void aJobFailedCarriesItsCauseAndOneOfAnOlderExecutorReadsAsUnknown() {
        var events = Topics.EXECUTOR_EVENTS.valueSerde();
        ExecutorEvent preempted = new ExecutorEvent.JobFailed(
                META,
                "job-1",
                "c1",
                "v6e",
                "falcon-job-1",
                "Pod failed: DisruptionTarget",
                io.falcon.events.executor.FailureCause.infrastructure("DisruptionTarget: PreemptionByScheduler"));
        ExecutorEvent exited = new ExecutorEvent.JobFailed(
                META,
                "job-1",
                "c1",
                "v6e",
                "falcon-job-1",
                "Pod terminated: Error (exit code 3)",
                io.falcon.events.executor.FailureCause.exited("exit code 3", 3));
        for (ExecutorEvent event : List.of(preempted, exited)) {
            assertThat(events.deserializer()
                            .deserialize("t", events.serializer().serialize("t", event)))
                    .isEqualTo(event);
        }

        String older = "{\"type\":\"JobFailed\",\"meta\":{\"eventId\":\"e1\",\"occurredAt\":"
                + "\"2026-12-02T10:00:00Z\",\"producer\":\"executor\"},\"jobId\":\"job-1\",\"clusterId\":\"c1\","
                + "\"tpuType\":\"v6e\",\"k8sJobName\":\"falcon-job-1\",\"message\":\"Pod failed\"}";
        ExecutorEvent read = events.deserializer().deserialize("t", older.getBytes(StandardCharsets.UTF_8));
        assertThat(read).isInstanceOfSatisfying(ExecutorEvent.JobFailed.class, failed -> {
            assertThat(failed.cause()).isEqualTo(io.falcon.events.executor.FailureCause.UNKNOWN);
            assertThat(failed.cause().infrastructure()).isFalse();
        });
    }

    @Test
    void undecodableBytesRaiseSerializationExceptionNamingTheType() {
        var serde = Topics.EXECUTOR_EVENTS.valueSerde();
        assertThatThrownBy(() -> serde.deserializer().deserialize("t", "{\"type\":\"Nope\"}".getBytes()))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("ExecutorEvent");
        assertThatThrownBy(() -> serde.deserializer().deserialize("t", "not json".getBytes()))
                .isInstanceOf(SerializationException.class);
    }

    @Test
    void everyTopicHasADistinctName() {
        assertThat(Topics.all()).extracting(Topic::name).doesNotHaveDuplicates().allMatch(n -> n.startsWith("falcon."));
    }
}
