package io.falcon.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.DeadLetter;
import io.falcon.events.Meta;
import io.falcon.events.TestRows;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import io.falcon.ops.FalconMetrics;
import io.falcon.scheduler.core.SchedulerSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SchedulerTopologyTest {
    private static final Instant START = Instant.parse("2026-12-02T10:00:00Z");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private TopologyTestDriver driver;
    private RoutedInput<JobChange> jobs;
    private RoutedInput<ClusterChange> clusters;
    private TestInputTopic<String, io.falcon.events.SchedulerInput> input;

    /** Row changes as cdc-ingest publishes them: routed by SchedulerRouting onto falcon.scheduler.input. */
    private final class RoutedInput<C> {
        private final java.util.function.Function<C, List<io.falcon.events.cdc.SchedulerRouting.Routed>> route;

        RoutedInput(java.util.function.Function<C, List<io.falcon.events.cdc.SchedulerRouting.Routed>> route) {
            this.route = route;
        }

        void pipeInput(String rowId, C change) {
            route.apply(change).forEach(r -> input.pipeInput(r.key(), r.input()));
        }
    }
    private TestInputTopic<String, ExecutorEvent> events;
    private TestInputTopic<String, byte[]> rawEvents;
    private TestOutputTopic<String, TaskStatus> statuses;
    private TestOutputTopic<String, ExecutorCommand> commands;
    private TestOutputTopic<String, DeadLetter> deadLetters;

    @BeforeEach
    void start() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "scheduler-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(SchedulerTopology.build(Duration.ofSeconds(1), SchedulerSettings.defaults(),
                new FalconMetrics(registry)), props, START);
        var keys = Serdes.String();
        input = driver.createInputTopic(Topics.SCHEDULER_INPUT.name(), keys.serializer(),
                Topics.SCHEDULER_INPUT.valueSerde().serializer());
        jobs = new RoutedInput<>(io.falcon.events.cdc.SchedulerRouting::route);
        clusters = new RoutedInput<>(io.falcon.events.cdc.SchedulerRouting::route);
        events = driver.createInputTopic(Topics.EXECUTOR_EVENTS.name(), keys.serializer(),
                Topics.EXECUTOR_EVENTS.valueSerde().serializer());
        rawEvents = driver.createInputTopic(Topics.EXECUTOR_EVENTS.name(), keys.serializer(),
                Serdes.ByteArray().serializer());
        statuses = driver.createOutputTopic(Topics.TASK_STATUS.name(), keys.deserializer(),
                Topics.TASK_STATUS.valueSerde().deserializer());
        commands = driver.createOutputTopic(Topics.EXECUTOR_COMMANDS.name(), keys.deserializer(),
                Topics.EXECUTOR_COMMANDS.valueSerde().deserializer());
        deadLetters = driver.createOutputTopic(Topics.DEAD_LETTER.name(), keys.deserializer(),
                Topics.DEAD_LETTER.valueSerde().deserializer());
        clusters.pipeInput("c1", TestRows.clusterInserted(TestRows.cluster("c1", "v6e", "active")));
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void anInsertedJobIsProvisionedOnTheClusterAndCommandsAreKeyedByCluster() {
        jobs.pipeInput("j1", TestRows.inserted(TestRows.job("j1", "alice", "v6e", "2x4", TestRows.SPEC)));

        List<TaskStatus> out = statuses.readValuesToList();
        assertThat(out).extracting(TaskStatus::reason).containsExactly(java.util.Optional.of(Reason.Waiting),
                java.util.Optional.of(Reason.Provisioning));
        var command = commands.readKeyValue();
        assertThat(command.key).isEqualTo("c1");
        assertThat(command.value).isInstanceOf(ExecutorCommand.EnsureNodePool.class);
    }

    @Test
    void statusSinkEchoesAreIgnoredAndAbortingIsAnAbort() {
        JobRow row = TestRows.job("j1", "alice", "v6e", "2x4", TestRows.SPEC);
        jobs.pipeInput("j1", TestRows.inserted(row));
        statuses.readValuesToList();
        jobs.pipeInput("j1", TestRows.updated(row, TestRows.withStatus(row, "Pending")));
        jobs.pipeInput("j1", TestRows.updated(row, TestRows.withStatus(row, "Running")));
        assertThat(statuses.isEmpty()).isTrue();

        jobs.pipeInput("j1", TestRows.updated(row, TestRows.withStatus(row, "Aborting")));
        TaskStatus aborted = statuses.readValue();
        assertThat(aborted.status()).isEqualTo(Status.Aborted);
        assertThat(aborted.message()).isEqualTo("用户中止");
    }

    @Test
    void executorEventsDriveTheJobToSucceeded() {
        jobs.pipeInput("j1", TestRows.inserted(TestRows.job("j1", "alice", "v6e", "2x2", TestRows.SPEC)));
        Meta meta = Meta.of("executor", START);
        events.pipeInput("v6e", new ExecutorEvent.NodePoolReady(meta, "j1", "c1", "v6e", "falcon-j1"));
        events.pipeInput("v6e", new ExecutorEvent.JobSubmitted(meta, "j1", "c1", "v6e", "falcon-j1", "uid-1"));
        events.pipeInput("v6e", new ExecutorEvent.JobRunning(meta, "j1", "c1", "v6e", "falcon-j1", "uid-j1", 1, 1));
        events.pipeInput("v6e", new ExecutorEvent.JobSucceeded(meta, "j1", "c1", "v6e", "falcon-j1"));

        List<TaskStatus> out = statuses.readValuesToList();
        assertThat(out).extracting(TaskStatus::status).endsWith(Status.Running, Status.Succeeded);
        assertThat(out.get(out.size() - 1).jobUid()).contains("uid-1");
        assertThat(commands.readValuesToList()).extracting(c -> c.getClass().getSimpleName())
                .containsExactly("EnsureNodePool", "EnsureJob", "EnsureJobDeleted", "EnsureNodePoolDeleted");
    }

    @Test
    void aPoolHandedToTheNextJobCountsAsAReuseHit() {
        jobs.pipeInput("j1", TestRows.inserted(TestRows.job("j1", "alice", "v6e", "2x2", TestRows.SPEC)));
        jobs.pipeInput("j2", TestRows.inserted(TestRows.job("j2", "bob", "v6e", "2x2", TestRows.SPEC)));
        Meta meta = Meta.of("executor", START);
        events.pipeInput("v6e", new ExecutorEvent.NodePoolReady(meta, "j1", "c1", "v6e", "falcon-j1"));
        events.pipeInput("v6e", new ExecutorEvent.JobRunning(meta, "j1", "c1", "v6e", "falcon-j1", "uid-j1", 1, 1));
        assertThat(registry.find(FalconMetrics.NODE_POOL_REUSE).counter()).isNull();
        // j2 is creating its own pool when j1 ends: j1's READY pool goes to j2 (its own creation is cancelled)
        events.pipeInput("v6e", new ExecutorEvent.JobSucceeded(meta, "j1", "c1", "v6e", "falcon-j1"));

        assertThat(registry.get(FalconMetrics.NODE_POOL_REUSE).tag(FalconMetrics.TAG_CLUSTER, "c1").counter().count())
                .isEqualTo(1.0);
        assertThat(commands.readValuesToList()).filteredOn(c -> c instanceof ExecutorCommand.EnsureJob)
                .extracting(c -> ((ExecutorCommand.EnsureJob) c).nodePoolName()).containsExactly("falcon-j1",
                        "falcon-j1");
    }

    @Test
    void failuresDispatchLatencyAndQueueDepthAreMeasured() {
        jobs.pipeInput("bad", TestRows.inserted(TestRows.job("bad", "alice", "v6e", "2x4", "{}")));
        jobs.pipeInput("j1", TestRows.inserted(TestRows.job("j1", "alice", "v6e", "2x2", TestRows.SPEC)));
        jobs.pipeInput("j2", TestRows.inserted(TestRows.job("j2", "bob", "v6e", "2x2", TestRows.SPEC)));
        Meta meta = Meta.of("executor", START);
        events.pipeInput("v6e", new ExecutorEvent.NodePoolReady(meta, "j1", "c1", "v6e", "falcon-j1"));
        events.pipeInput("v6e", new ExecutorEvent.JobRunning(meta, "j1", "c1", "v6e", "falcon-j1", "uid-j1", 1, 1));
        driver.advanceWallClockTime(Duration.ofSeconds(10));

        assertThat(registry.get(FalconMetrics.FAILURES).tag(FalconMetrics.TAG_REASON, "InvalidSpec").counter()
                .count()).isEqualTo(1.0);
        assertThat(registry.get(FalconMetrics.DISPATCH_LATENCY).timer().count()).isEqualTo(1);
        assertThat(registry.get(FalconMetrics.QUEUE_DEPTH).tag(FalconMetrics.TAG_CLUSTER, "c1")
                .tag(FalconMetrics.TAG_TOPOLOGY, "2x2").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get(FalconMetrics.RUNNING_JOBS).tag(FalconMetrics.TAG_CLUSTER, "c1").gauge().value())
                .isEqualTo(1.0);
    }

    @Test
    void theWallClockPunctuatorFiresExecutionTimeouts() {
        JobRow row = TestRows.job("t1", "alice", "v6e", "2x2", TestRows.SPEC);
        JobRow timed = new JobRow(row.id(), row.actor(), row.name(), row.tpuType(), row.topology(), row.spec(),
                row.supplyMode(), java.util.Optional.of(30L), row.status(), row.reason(), row.message(),
                row.clusterId(), row.nodePoolName(), row.k8sJobName(), row.jobUid(), row.createdAt(),
                row.dispatchedAt(), row.finishedAt(), row.abortingAt(), row.abortedAt(), row.updatedAt());
        jobs.pipeInput("t1", TestRows.inserted(timed));
        Meta meta = Meta.of("executor", START);
        events.pipeInput("v6e", new ExecutorEvent.NodePoolReady(meta, "t1", "c1", "v6e", "falcon-t1"));
        events.pipeInput("v6e", new ExecutorEvent.JobSubmitted(meta, "t1", "c1", "v6e", "falcon-t1", "uid-1"));
        statuses.readValuesToList();

        driver.advanceWallClockTime(Duration.ofSeconds(31));
        TaskStatus timedOut = statuses.readValue();
        assertThat(timedOut.status()).isEqualTo(Status.Failed);
        assertThat(timedOut.reason()).contains(Reason.Timeout);
    }

    @Test
    void anUndecodableEventGoesToTheDeadLetterTopicAndTheStreamGoesOn() {
        rawEvents.pipeInput("v6e", "{\"type\":\"Mystery\"}".getBytes());
        DeadLetter letter = deadLetters.readValue();
        assertThat(letter.sourceTopic()).isEqualTo(Topics.EXECUTOR_EVENTS.name());
        assertThat(letter.reason()).contains("ExecutorEvent");
        assertThat(new String(java.util.Base64.getDecoder().decode(letter.payloadBase64()))).contains("Mystery");

        jobs.pipeInput("j2", TestRows.inserted(TestRows.job("j2", "bob", "v6e", "2x4", TestRows.SPEC)));
        assertThat(statuses.readValuesToList()).isNotEmpty();
    }

    @Test
    void anInvalidSpecRowEndsFailedInvalidSpec() {
        jobs.pipeInput("bad", TestRows.inserted(TestRows.job("bad", "alice", "v6e", "2x4", "{\"args\":[1]}")));
        TaskStatus failed = statuses.readValue();
        assertThat(failed.status()).isEqualTo(Status.Failed);
        assertThat(failed.reason()).contains(Reason.InvalidSpec);
        assertThat(failed.message()).contains("spec.image");
    }
}
