package io.falcon.scheduler.topology;

import static io.falcon.testkit.builders.ClusterRowBuilder.clusterRow;
import static io.falcon.testkit.builders.ExecutorEventBuilder.executorEvent;
import static io.falcon.testkit.builders.JobRowBuilder.jobRow;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.ops.FalconMetrics;
import io.falcon.scheduler.core.SchedulerSettings;
import io.falcon.testkit.builders.ExecutorEventBuilder;
import io.falcon.testkit.builders.RowChangeBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
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
        driver = new TopologyTestDriver(
                SchedulerTopology.build(
                        Duration.ofSeconds(1),
                        SchedulerSettings.defaults().withAcquirersPerQueue(1),
                        new FalconMetrics(registry)),
                props,
                START);
        var keys = Serdes.String();
        input = driver.createInputTopic(
                Topics.SCHEDULER_INPUT.name(),
                keys.serializer(),
                Topics.SCHEDULER_INPUT.valueSerde().serializer());
        jobs = new RoutedInput<>(io.falcon.events.cdc.SchedulerRouting::route);
        clusters = new RoutedInput<>(io.falcon.events.cdc.SchedulerRouting::route);
        events = driver.createInputTopic(
                Topics.EXECUTOR_EVENTS.name(),
                keys.serializer(),
                Topics.EXECUTOR_EVENTS.valueSerde().serializer());
        rawEvents = driver.createInputTopic(
                Topics.EXECUTOR_EVENTS.name(),
                keys.serializer(),
                Serdes.ByteArray().serializer());
        statuses = driver.createOutputTopic(
                Topics.TASK_STATUS.name(),
                keys.deserializer(),
                Topics.TASK_STATUS.valueSerde().deserializer());
        commands = driver.createOutputTopic(
                Topics.EXECUTOR_COMMANDS.name(),
                keys.deserializer(),
                Topics.EXECUTOR_COMMANDS.valueSerde().deserializer());
        deadLetters = driver.createOutputTopic(
                Topics.DEAD_LETTER.name(),
                keys.deserializer(),
                Topics.DEAD_LETTER.valueSerde().deserializer());
        clusters.pipeInput(
                "c1", RowChangeBuilder.inserted(clusterRow("c1").build()).build());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void anInsertedJobIsProvisionedOnTheClusterAndCommandsAreKeyedByCluster() {
        jobs.pipeInput("j1", RowChangeBuilder.inserted(jobRow("j1").build()).build());

        List<TaskStatus> out = statuses.readValuesToList();
        assertThat(out)
                .extracting(TaskStatus::reason)
                .containsExactly(java.util.Optional.of(Reason.Waiting), java.util.Optional.of(Reason.Provisioning));
        var command = commands.readKeyValue();
        assertThat(command.key).isEqualTo("c1");
        assertThat(command.value).isInstanceOf(ExecutorCommand.EnsureNodePool.class);
    }

    @Test
    void statusSinkEchoesAreIgnoredAndAbortingIsAnAbort() {
        JobRow row = jobRow("j1").build();
        jobs.pipeInput("j1", RowChangeBuilder.inserted(row).build());
        statuses.readValuesToList();
        jobs.pipeInput(
                "j1", RowChangeBuilder.updated(row, r -> r.status("Pending")).build());
        jobs.pipeInput(
                "j1", RowChangeBuilder.updated(row, r -> r.status("Running")).build());
        assertThat(statuses.isEmpty()).isTrue();

        jobs.pipeInput(
                "j1",
                RowChangeBuilder.updated(row, r -> r.aborting(START.minusSeconds(1800)))
                        .build());
        TaskStatus aborted = statuses.readValue();
        assertThat(aborted.status()).isEqualTo(Status.Aborted);
        assertThat(aborted.message()).isEqualTo("用户中止");
    }

    @Test
    void executorEventsDriveTheJobToSucceeded() {
        jobs.pipeInput(
                "j1",
                RowChangeBuilder.inserted(jobRow("j1").topology("2x2").build()).build());
        events.pipeInput("v6e", executorEvent("j1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobUid("uid-1").jobSubmitted());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobRunning());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobSucceeded());

        List<TaskStatus> out = statuses.readValuesToList();
        assertThat(out).extracting(TaskStatus::status).endsWith(Status.Running, Status.Succeeded);
        assertThat(out.get(out.size() - 1).jobUid()).contains("uid-1");
        assertThat(commands.readValuesToList())
                .extracting(c -> c.getClass().getSimpleName())
                .containsExactly("EnsureNodePool", "EnsureJob", "EnsureJobDeleted", "EnsureNodePoolDeleted");
    }

    @Test
    void aFinishedJobMovesFromTheJobStoreToTheRetiredStoreAndARedeliveredInsertDoesNothing() {
        JobRow row = jobRow("j1").topology("2x2").build();
        jobs.pipeInput("j1", RowChangeBuilder.inserted(row).build());
        assertThat(driver.<String, Object>getKeyValueStore(SchedulerTopology.JOB_STORE)
                        .get("j1"))
                .isNotNull();
        events.pipeInput("v6e", executorEvent("j1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobUid("uid-1").jobSubmitted());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobRunning());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobSucceeded());
        statuses.readValuesToList();
        commands.readValuesToList();

        assertThat(driver.<String, Object>getKeyValueStore(SchedulerTopology.JOB_STORE)
                        .get("j1"))
                .isNull();
        try (var retired = driver.<String, io.falcon.scheduler.core.ScheduledJob>getWindowStore(
                        SchedulerTopology.RETIRED_STORE)
                .fetch("j1", Instant.EPOCH, START.plus(Duration.ofDays(1)))) {
            assertThat(retired.hasNext()).isTrue();
            assertThat(retired.next().value.status()).isEqualTo(Status.Succeeded);
        }

        // Debezium replays the binlog after a restart (the same INSERT again), and a snapshot taken while the row
        // still showed Running (the status write-back had not caught up) re-reads it as a submission.
        jobs.pipeInput("j1", RowChangeBuilder.inserted(row).build());
        jobs.pipeInput(
                "j1",
                RowChangeBuilder.snapshotted(
                                jobRow("j1").topology("2x2").status("Running").build())
                        .build());
        assertThat(statuses.isEmpty()).isTrue();
        assertThat(commands.isEmpty()).isTrue();
    }

    @Test
    void aHigherPriorityRowOvertakesTheWaitingOnesAndItsPositionSaysSo() {
        jobs.pipeInput("j1", RowChangeBuilder.inserted(jobRow("j1").build()).build());
        jobs.pipeInput(
                "j2",
                RowChangeBuilder.inserted(jobRow("j2").actor("bob").build()).build());
        jobs.pipeInput(
                "j3",
                RowChangeBuilder.inserted(
                                jobRow("j3").actor("carol").priority(10).build())
                        .build());
        TaskStatus j3 = statuses.readValuesToList().stream()
                .filter(s -> s.jobId().equals("j3"))
                .reduce((a, b) -> b)
                .orElseThrow();
        assertThat(j3.message()).isEqualTo("队列位置 #2,前面有 1 个任务 (alice: name-j1)");
        events.pipeInput("v6e", executorEvent("j1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobUid("uid-1").jobRunning());
        assertThat(commands.readValuesToList())
                .filteredOn(ExecutorCommand.EnsureNodePool.class::isInstance)
                .extracting(ExecutorCommand::jobId)
                .containsExactly("j1", "j3");
    }

    @Test
    void slotHoldTimesAreStoredAndGiveWaitingJobsAnEstimatedStart() {
        for (int i = 0; i < 3; i++) {
            String id = "h" + i;
            jobs.pipeInput(id, RowChangeBuilder.inserted(jobRow(id).build()).build());
            driver.advanceWallClockTime(Duration.ofMinutes(10));
            events.pipeInput("v6e", executorEvent(id).at(START).nodePoolReady());
            events.pipeInput(
                    "v6e", executorEvent(id).at(START).jobUid("uid-" + id).jobRunning());
        }
        assertThat(driver.<String, io.falcon.scheduler.core.QueueHistory>getKeyValueStore(
                                SchedulerTopology.HISTORY_STORE)
                        .get("c1|2x4|flex-start")
                        .acquireMillis())
                .containsExactly(600_000L, 600_000L, 600_000L);
        statuses.readValuesToList();
        Instant now = START.plus(Duration.ofMinutes(30));
        jobs.pipeInput("a1", RowChangeBuilder.inserted(jobRow("a1").build()).build());
        jobs.pipeInput(
                "b1",
                RowChangeBuilder.inserted(jobRow("b1").actor("bob").build()).build());
        TaskStatus b1 = statuses.readValuesToList().stream()
                .filter(s -> s.jobId().equals("b1"))
                .reduce((a, b) -> b)
                .orElseThrow();
        assertThat(b1.estimatedStart())
                .contains(new io.falcon.events.status.StartEstimate(
                        now.plus(Duration.ofMinutes(20)), now.plus(Duration.ofMinutes(20))));
        assertThat(b1.message()).endsWith(",预计 10:50-10:51 开始");
    }

    @Test
    void aPoolHandedToTheNextJobCountsAsAReuseHit() {
        jobs.pipeInput(
                "j1",
                RowChangeBuilder.inserted(jobRow("j1").topology("2x2").build()).build());
        jobs.pipeInput(
                "j2",
                RowChangeBuilder.inserted(
                                jobRow("j2").actor("bob").topology("2x2").build())
                        .build());
        events.pipeInput("v6e", executorEvent("j1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobRunning());
        assertThat(registry.find(FalconMetrics.NODE_POOL_REUSE).counter()).isNull();
        // j2 is creating its own pool when j1 ends: j1's READY pool goes to j2 (its own creation is cancelled)
        events.pipeInput("v6e", executorEvent("j1").at(START).jobSucceeded());

        assertThat(registry.get(FalconMetrics.NODE_POOL_REUSE)
                        .tag(FalconMetrics.TAG_CLUSTER, "c1")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(commands.readValuesToList())
                .filteredOn(c -> c instanceof ExecutorCommand.EnsureJob)
                .extracting(c -> ((ExecutorCommand.EnsureJob) c).nodePoolName())
                .containsExactly(
                        io.falcon.events.ResourceNames.nodePool(
                                io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, "j1"),
                        io.falcon.events.ResourceNames.nodePool(
                                io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, "j1"));
    }

    @Test
    void failuresDispatchLatencyAndQueueDepthAreMeasured() {
        jobs.pipeInput(
                "bad",
                RowChangeBuilder.inserted(jobRow("bad").spec("{}").build()).build());
        jobs.pipeInput(
                "j1",
                RowChangeBuilder.inserted(jobRow("j1").topology("2x2").build()).build());
        jobs.pipeInput(
                "j2",
                RowChangeBuilder.inserted(
                                jobRow("j2").actor("bob").topology("2x2").build())
                        .build());
        events.pipeInput("v6e", executorEvent("j1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobRunning());
        driver.advanceWallClockTime(Duration.ofSeconds(10));

        assertThat(registry.get(FalconMetrics.FAILURES)
                        .tag(FalconMetrics.TAG_REASON, "InvalidSpec")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get(FalconMetrics.DISPATCH_LATENCY).timer().count()).isEqualTo(1);
        assertThat(registry.get(FalconMetrics.QUEUE_DEPTH)
                        .tag(FalconMetrics.TAG_CLUSTER, "c1")
                        .tag(FalconMetrics.TAG_TOPOLOGY, "2x2")
                        .gauge()
                        .value())
                .isEqualTo(1.0);
        assertThat(registry.get(FalconMetrics.RUNNING_JOBS)
                        .tag(FalconMetrics.TAG_CLUSTER, "c1")
                        .gauge()
                        .value())
                .isEqualTo(1.0);
    }

    @Test
    void everyDecisionAboutAJobReachesTheLedgerTopicKeyedByTheJob() {
        var decisions = driver.createOutputTopic(
                Topics.DECISIONS.name(),
                Serdes.String().deserializer(),
                Topics.DECISIONS.valueSerde().deserializer());
        jobs.pipeInput(
                "j1",
                RowChangeBuilder.inserted(jobRow("j1").topology("2x2").build()).build());
        events.pipeInput("v6e", executorEvent("j1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobRunning());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobSucceeded());

        var records = decisions.readKeyValuesToList();
        assertThat(records).allSatisfy(kv -> assertThat(kv.key).isEqualTo("j1"));
        assertThat(records)
                .extracting(kv -> kv.value.kind())
                .containsExactly(
                        io.falcon.events.decision.Decision.Kind.CLUSTER_CHOSEN,
                        io.falcon.events.decision.Decision.Kind.POOL_CREATED,
                        io.falcon.events.decision.Decision.Kind.POOL_DELETED,
                        io.falcon.events.decision.Decision.Kind.ENDED);
        assertThat(records.get(0).value.candidates()).isNotEmpty();
    }

    @Test
    void aFaultVerdictAboutARunningJobReachesItsStatusThroughEveryInputPartition() {
        var verdicts = driver.createInputTopic(
                Topics.FAULT_VERDICTS.name(),
                Serdes.String().serializer(),
                Topics.FAULT_VERDICTS.valueSerde().serializer());
        jobs.pipeInput(
                "j1",
                RowChangeBuilder.inserted(jobRow("j1").topology("2x2").build()).build());
        events.pipeInput("v6e", executorEvent("j1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobRunning());
        statuses.readValuesToList();
        io.falcon.events.fault.FaultVerdict isolated = new io.falcon.events.fault.FaultVerdict(
                io.falcon.events.Meta.of("fault-streams", START),
                "c1",
                "node-1",
                "accel3",
                "0x42",
                java.util.Optional.of("j1"),
                START.toEpochMilli(),
                io.falcon.events.fault.FaultVerdict.Outcome.ISOLATED,
                new io.falcon.events.fault.FaultVerdict.Evidence(1, List.of(), 0, List.of(), "3 faults in 24h"));

        verdicts.pipeInput("c1/node-1", isolated);
        verdicts.pipeInput("c1/node-1", isolated); // the same verdict again: forwarded once, noted once

        List<TaskStatus> noted = statuses.readValuesToList();
        assertThat(noted).singleElement().satisfies(s -> {
            assertThat(s.status()).isEqualTo(Status.Running);
            assertThat(s.message()).contains("fault 0x42 on node-1/accel3: hardware fault, the device is isolated");
        });
    }

    @Test
    void anOperatorsRetrySwitchReachesEveryInputPartitionAndStopsTheNextRetry() {
        var controls = driver.createInputTopic(
                Topics.SCHEDULER_CONTROLS.name(),
                Serdes.String().serializer(),
                Topics.SCHEDULER_CONTROLS.valueSerde().serializer());
        var rawControls = driver.createInputTopic(
                Topics.SCHEDULER_CONTROLS.name(),
                Serdes.String().serializer(),
                Serdes.ByteArray().serializer());
        jobs.pipeInput(
                "j1",
                RowChangeBuilder.inserted(jobRow("j1")
                                .topology("2x2")
                                .spec("{\"image\":\"i:1\",\"command\":[\"python\"],\"retry\":{\"max_retries\":2}}")
                                .build())
                        .build());
        events.pipeInput("v6e", executorEvent("j1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobRunning());
        statuses.readValuesToList();

        controls.pipeInput(
                io.falcon.events.control.RetrySwitch.KEY,
                new io.falcon.events.control.RetrySwitch(false, "ops", "retry storm", START));
        rawControls.pipeInput("something-else", "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        ExecutorEvent.JobFailed reported = executorEvent("j1").at(START).jobFailed();
        events.pipeInput(
                "v6e",
                new ExecutorEvent.JobFailed(
                        reported.meta(),
                        reported.jobId(),
                        reported.clusterId(),
                        reported.tpuType(),
                        reported.k8sJobName(),
                        "Pod disrupted: DisruptionTarget: PreemptionByScheduler",
                        io.falcon.events.executor.FailureCause.infrastructure(
                                "DisruptionTarget: PreemptionByScheduler")));

        assertThat(statuses.readValuesToList()).last().satisfies(s -> {
            assertThat(s.status()).isEqualTo(Status.Failed);
            assertThat(s.reason()).contains(io.falcon.events.status.Reason.JobFailed);
        });
        // a control this Falcon does not know is dead-lettered with the reason, and the stream goes on
        assertThat(deadLetters.readValuesToList())
                .singleElement()
                .satisfies(d -> assertThat(d.reason()).contains("no control something-else"));
    }

    @Test
    void queueWaitAndJobDurationAreMeasured() {
        jobs.pipeInput(
                "j1",
                RowChangeBuilder.inserted(jobRow("j1").topology("2x2").build()).build());
        jobs.pipeInput(
                "j2",
                RowChangeBuilder.inserted(
                                jobRow("j2").actor("bob").topology("2x2").build())
                        .build());
        assertThat(registry.get(FalconMetrics.QUEUE_WAIT)
                        .tag(FalconMetrics.TAG_CLUSTER, "c1")
                        .tag(FalconMetrics.TAG_TOPOLOGY, "2x2")
                        .timer()
                        .count())
                .isEqualTo(1); // j1 took the slot; j2 waits
        events.pipeInput("v6e", executorEvent("j1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("j1").at(START).jobRunning());
        assertThat(registry.find(FalconMetrics.JOB_DURATION).timer()).isNull();
        assertThat(registry.get(FalconMetrics.QUEUE_WAIT).timer().count()).isEqualTo(2); // j2 got the slot

        driver.advanceWallClockTime(Duration.ofSeconds(42));
        events.pipeInput("v6e", executorEvent("j1").at(START).jobSucceeded());

        var duration = registry.get(FalconMetrics.JOB_DURATION)
                .tag(FalconMetrics.TAG_TPU_TYPE, "v6e")
                .tag(FalconMetrics.TAG_TOPOLOGY, "2x2")
                .tag(FalconMetrics.TAG_OUTCOME, "Succeeded")
                .timer();
        assertThat(duration.count()).isEqualTo(1);
        assertThat(duration.totalTime(java.util.concurrent.TimeUnit.SECONDS)).isBetween(42.0, 60.0);
    }

    @Test
    void theWallClockPunctuatorFiresExecutionTimeouts() {
        JobRow timed = jobRow("t1").topology("2x2").timeoutSeconds(30).build();
        jobs.pipeInput("t1", RowChangeBuilder.inserted(timed).build());
        events.pipeInput("v6e", executorEvent("t1").at(START).nodePoolReady());
        events.pipeInput("v6e", executorEvent("t1").at(START).jobUid("uid-1").jobSubmitted());
        statuses.readValuesToList();

        // the executor has reported the cluster through the deadline (plus the slack): no success can be unread
        events.pipeInput(
                "v6e",
                ExecutorEventBuilder.heartbeat(
                        START.plusSeconds(31).plus(SchedulerKeys.OBSERVATION_SLACK.defaultValue()),
                        clusterRow("c1").build().target().resourceName()));
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
        assertThat(new String(java.util.Base64.getDecoder().decode(letter.payloadBase64())))
                .contains("Mystery");

        jobs.pipeInput(
                "j2",
                RowChangeBuilder.inserted(jobRow("j2").actor("bob").build()).build());
        assertThat(statuses.readValuesToList()).isNotEmpty();
    }

    @Test
    void anInvalidSpecRowEndsFailedInvalidSpec() {
        jobs.pipeInput(
                "bad",
                RowChangeBuilder.inserted(jobRow("bad").spec("{\"args\":[1]}").build())
                        .build());
        TaskStatus failed = statuses.readValue();
        assertThat(failed.status()).isEqualTo(Status.Failed);
        assertThat(failed.reason()).contains(Reason.InvalidSpec);
        assertThat(failed.message()).contains("spec.image");
    }
}
