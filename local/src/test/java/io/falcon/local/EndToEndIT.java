package io.falcon.local;

import static io.falcon.testkit.builders.DeviceFaultBuilder.deviceFault;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.cli.JobSubmission;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.jobs.JobBoard;
import io.falcon.testkit.Await;
import io.falcon.testkit.kafka.TopicProducer;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real path through every module: INSERT a jobs row -> Debezium -> Kafka -> scheduler -> executor -> GKE and
 * Kubernetes APIs of the simulated fleet -> status events -> status-sink -> the row.
 */
class EndToEndIT {
    private static LocalFalcon falcon;

    @BeforeAll
    static void start() throws Exception {
        startFalcon();
    }

    /**
     * Falcon on SharedInfra's broker and database (embedded, or MySQL 8.4 and Kafka in Docker: EndToEndMySql8IT),
     * with the executor's heartbeat every second and a short observation slack, so that a deadline fires within
     * seconds of passing (the path is the production one: the executor's heartbeats through the real broker).
     */
    static void startFalcon() throws Exception {
        falcon = LocalFalcon.start(
                SharedInfra.broker(),
                SharedInfra.database(),
                SharedInfra.uniqueName("e2e"),
                Files.createTempDirectory("falcon-e2e"),
                LocalFalcon.demoFleetConfig(),
                DemoFleet.CLUSTERS,
                java.util.Map.of(
                        io.falcon.events.config.SchedulerKeys.COMPONENT.name(),
                        java.util.Map.of(
                                io.falcon.events.config.SchedulerKeys.OBSERVATION_SLACK.key(),
                                "3s",
                                // the priority order is asserted with the seed's one job acquiring per queue
                                io.falcon.events.config.SchedulerKeys.ACQUIRERS_PER_QUEUE.key(),
                                "1",
                                // a retried job's next attempt at once, not after the default 30 s
                                io.falcon.events.config.SchedulerKeys.RETRY_BACKOFF.key(),
                                "1s"),
                        io.falcon.events.config.ExecutorKeys.COMPONENT.name(),
                        java.util.Map.of(io.falcon.events.config.ExecutorKeys.HEARTBEAT_INTERVAL.key(), "1s")));
    }

    @AfterAll
    static void stop() {
        if (falcon != null) {
            falcon.close();
        }
    }

    @Test
    void anInsertedJobRunsOnTheFleetAndItsRowEndsSucceeded() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(
                    connection,
                    new JobSubmission.Request(
                            "e2e-ok",
                            "alice",
                            "profiling",
                            "v6e",
                            "2x4",
                            "{\"image\":\"train:1\",\"command\":[\"python\"],\"env\":{\"FALCON_SIM_DURATION_SECONDS\":\"1\"}}",
                            Optional.empty(),
                            Optional.of(600L)));
            JobBoard.JobView done = awaitTerminal(connection, "e2e-ok");

            assertThat(done.status()).as(done.headline()).isEqualTo("Succeeded");
            assertThat(done.clusterId()).isPresent();
            assertThat(done.nodePoolName())
                    .contains(io.falcon.events.ResourceNames.nodePool(
                            io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, "e2e-ok"));
            assertThat(done.jobUid()).isPresent();
            assertThat(done.dispatchedAt()).isPresent();
            assertThat(done.finishedAt()).isPresent();
            String project = DemoFleet.CLUSTERS.stream()
                    .filter(c -> c.id().equals(done.clusterId().get()))
                    .findFirst()
                    .orElseThrow()
                    .project();
            assertThat(project).startsWith("falcon-edge-");
        }
    }

    /**
     * Priority end to end: four rows committed together, all supply_mode=reservation (so all in the one queue of the
     * cluster that has a reservation). The first takes the slot; the high-priority row, committed last, takes it
     * next, ahead of the two low-priority rows committed before it.
     */
    @Test
    void aHighPriorityJobOvertakesWaitingLowPriorityOnes() throws Exception {
        String spec =
                "{\"image\":\"train:1\",\"command\":[\"python\"],\"env\":{\"FALCON_SIM_DURATION_SECONDS\":\"1\"}}";
        try (Connection connection = falcon.connect()) {
            connection.setAutoCommit(false);
            for (String[] job :
                    new String[][] {{"prio-first", "alice"}, {"prio-low-1", "bob"}, {"prio-low-2", "carol"}}) {
                JobSubmission.submit(
                        connection,
                        new JobSubmission.Request(
                                job[0],
                                job[1],
                                job[0],
                                "v6e",
                                "4x4",
                                spec,
                                Optional.of("reservation"),
                                Optional.of(600L)));
            }
            JobSubmission.submit(
                    connection,
                    new JobSubmission.Request(
                                    "prio-high",
                                    "dave",
                                    "urgent",
                                    "v6e",
                                    "4x4",
                                    spec,
                                    Optional.of("reservation"),
                                    Optional.of(600L))
                            .withPriority(50));
            connection.commit();
            connection.setAutoCommit(true);

            JobBoard.JobView high = awaitTerminal(connection, "prio-high");
            JobBoard.JobView low1 = awaitTerminal(connection, "prio-low-1");
            JobBoard.JobView low2 = awaitTerminal(connection, "prio-low-2");
            JobBoard.JobView first = awaitTerminal(connection, "prio-first");
            for (JobBoard.JobView job : java.util.List.of(first, high, low1, low2)) {
                assertThat(job.status()).as(job.id() + ": " + job.headline()).isEqualTo("Succeeded");
                assertThat(job.clusterId()).contains(DemoFleet.CLUSTERS.get(0).id());
            }
            // the queue acquires one job at a time, so the order Kubernetes Jobs were created is the pick order
            assertThat(first.dispatchedAt().orElseThrow())
                    .isBefore(high.dispatchedAt().orElseThrow());
            assertThat(high.dispatchedAt().orElseThrow())
                    .isBefore(low1.dispatchedAt().orElseThrow());
            assertThat(low1.dispatchedAt().orElseThrow())
                    .isBefore(low2.dispatchedAt().orElseThrow());
        }
    }

    @Test
    void aRowWithAnInvalidSpecEndsFailedWithInvalidSpecNamingTheField() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(
                    connection,
                    new JobSubmission.Request(
                            "e2e-bad",
                            "bob",
                            "bad",
                            "v6e",
                            "2x2",
                            "{\"command\":[\"python\"]}",
                            Optional.empty(),
                            Optional.empty()));
            JobBoard.JobView done = awaitTerminal(connection, "e2e-bad");

            assertThat(done.status()).isEqualTo("Failed");
            assertThat(done.reason()).contains("InvalidSpec");
            assertThat(done.message()).contains("spec.image");
        }
    }

    @Test
    void aJobThatOverrunsItsTimeoutEndsFailedTimeoutOnceTheExecutorsHeartbeatsCoverTheDeadline() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(
                    connection,
                    new JobSubmission.Request(
                            "e2e-overrun",
                            "dave",
                            "overrun",
                            "v6e",
                            "2x2",
                            "{\"image\":\"train:1\",\"command\":[\"python\"],\"env\":{\"FALCON_SIM_DURATION_SECONDS\":\"600\"}}",
                            Optional.empty(),
                            Optional.of(5L)));
            JobBoard.JobView done = awaitTerminal(connection, "e2e-overrun");

            assertThat(done.status()).as(done.headline()).isEqualTo("Failed");
            assertThat(done.reason()).contains("Timeout");
            assertThat(done.dispatchedAt()).isPresent();
        }
    }

    @Test
    void aJobKilledByOomEndsFailedWithThePodReason() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(
                    connection,
                    new JobSubmission.Request(
                            "e2e-oom",
                            "carol",
                            "oom",
                            "v6e",
                            "2x2",
                            "{\"image\":\"train:1\",\"command\":[\"python\"],\"env\":{\"FALCON_SIM_OOM\":\"true\",\"FALCON_SIM_DURATION_SECONDS\":\"1\"}}",
                            Optional.empty(),
                            Optional.empty()));
            JobBoard.JobView done = awaitTerminal(connection, "e2e-oom");

            assertThat(done.status()).isEqualTo("Failed");
            assertThat(done.reason()).contains("JobFailed");
            assertThat(done.message()).contains("OOMKilled").contains("137");
        }
    }

    @Test
    void repeatedHardwareFaultsOfADeviceIsolateItInItsClustersConfigMap() throws Exception {
        DemoFleet.DemoCluster cluster = DemoFleet.CLUSTERS.get(0);
        try (TopicProducer<String, DeviceFault> producer =
                TopicProducer.to(falcon.kafka().bootstrapServers(), Topics.DEVICE_FAULTS)) {
            long now = System.currentTimeMillis();
            for (int i = 0; i < 3; i++) { // the RFC's default policy: 3 faults within 24 h isolate
                DeviceFault fault = deviceFault(cluster.id(), "node-7", "npu-3")
                        .code("0x80E18402")
                        .level("L2")
                        .receivedAt(now + i * 1000L)
                        .build();
                producer.send(fault.topicKey(), fault);
            }
        }
        var configMaps = falcon.fleet()
                .kubernetesClient(cluster.project(), cluster.location(), cluster.name())
                .configMaps()
                .inNamespace("cluster-system")
                .withName("clusterd-manual-info-cm");
        String node = Await.present(
                "node-7 in clusterd-manual-info-cm",
                Duration.ofSeconds(60),
                () -> Optional.ofNullable(configMaps.get())
                        .map(cm -> cm.getData())
                        .map(data -> data.get("node-7")),
                () -> "the ConfigMap is " + configMaps.get());
        assertThat(node)
                .as("node-7 in clusterd-manual-info-cm")
                .isNotNull()
                .contains("\"Total\":[\"npu-3\"]")
                .contains("ManuallySeparateNPU")
                .contains("0x80E18402");
    }

    /**
     * Issue 18 end to end: a job no cluster can take is explained from the real ledger (the scheduler's decision
     * on falcon.decisions) and its row, through the CLI.
     */
    @Test
    void explainSaysWhyAJobCannotBePlacedAndWhatWouldUnblockIt() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(
                    connection,
                    new JobSubmission.Request(
                            "e2e-v5p",
                            "erin",
                            "no-such-type",
                            "v5p",
                            "2x2x1",
                            "{\"image\":\"train:1\",\"command\":[\"python\"]}",
                            Optional.empty(),
                            Optional.empty()));
            Await.present(
                    "e2e-v5p parked",
                    Duration.ofSeconds(60),
                    () -> JobBoard.find(connection, "e2e-v5p")
                            .filter(j -> j.message().startsWith("no eligible")),
                    () -> headline(connection, "e2e-v5p"));
        }
        java.util.Map<String, String> env = java.util.Map.of(
                "FALCON_DB_URL", falcon.jdbcUrl(),
                "FALCON_DB_USER", SharedInfra.database().user(),
                "FALCON_DB_PASSWORD", SharedInfra.database().password(),
                "FALCON_KAFKA_BOOTSTRAP_SERVERS", falcon.kafka().bootstrapServers());
        AtomicReference<String> printed = new AtomicReference<>("");
        Await.until(
                "falcon explain reads the placement decision",
                Duration.ofSeconds(30),
                () -> {
                    java.io.StringWriter out = new java.io.StringWriter();
                    int code = io.falcon.cli.FalconCli.run(
                            new io.falcon.events.Settings(env),
                            new java.io.PrintWriter(out),
                            new java.io.PrintWriter(new java.io.StringWriter()),
                            "explain",
                            "e2e-v5p");
                    printed.set(out.toString());
                    return code == 0 && out.toString().contains("NO_CLUSTER_ELIGIBLE");
                },
                printed::get);
        assertThat(printed.get())
                .contains("job e2e-v5p: Pending/Waiting, not placed: no cluster of tpu_type v5p can take it now")
                .contains("no cluster has tpu_type v5p: add one to the clusters table");
    }

    /**
     * Issue 18 end to end: hardware faults of a device while a job runs isolate the device, and the job's own row
     * says so (fault-streams -> falcon.fault-verdicts -> scheduler -> task-status -> status-sink).
     */
    @Test
    void anIsolationDuringARunIsToldInTheJobsOwnMessage() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(
                    connection,
                    new JobSubmission.Request(
                            "e2e-faulty",
                            "frank",
                            "long",
                            "v6e",
                            "2x2",
                            "{\"image\":\"train:1\",\"command\":[\"python\"],\"env\":{\"FALCON_SIM_DURATION_SECONDS\":\"120\"}}",
                            Optional.empty(),
                            Optional.of(600L)));
            JobBoard.JobView running = Await.present(
                    "e2e-faulty running",
                    Duration.ofSeconds(120),
                    () -> JobBoard.find(connection, "e2e-faulty")
                            .filter(j -> j.status().equals("Running")),
                    () -> headline(connection, "e2e-faulty"));
            String cluster = running.clusterId().orElseThrow();
            try (TopicProducer<String, DeviceFault> producer =
                    TopicProducer.to(falcon.kafka().bootstrapServers(), Topics.DEVICE_FAULTS)) {
                long now = System.currentTimeMillis();
                for (int i = 0; i < 3; i++) { // the RFC's default policy: 3 faults within 24 h isolate
                    DeviceFault fault = deviceFault(cluster, "node-9", "npu-1")
                            .code("0x80E18403")
                            .level("L2")
                            .job("e2e-faulty")
                            .receivedAt(now + i * 1000L)
                            .build();
                    producer.send(fault.topicKey(), fault);
                }
            }
            JobBoard.JobView noted = Await.present(
                    "e2e-faulty's message tells the isolation",
                    Duration.ofSeconds(60),
                    () -> JobBoard.find(connection, "e2e-faulty")
                            .filter(j -> j.message().contains("isolated")),
                    () -> headline(connection, "e2e-faulty"));
            assertThat(noted.status()).isEqualTo("Running");
            assertThat(noted.message())
                    .contains("fault 0x80E18403 on node-9/npu-1: hardware fault, the device is isolated");
            JobSubmission.abort(connection, "e2e-faulty");
            assertThat(awaitTerminal(connection, "e2e-faulty").message()).contains("the device is isolated");
        }
    }

    /**
     * Automatic retry end to end: a device isolated under a running attempt ends it (fault-streams ->
     * falcon.fault-verdicts -> scheduler -> EnsureJobDeleted), the job waits Pending/Retrying until that Kubernetes Job
     * is gone, then runs again on a node pool of its own and succeeds; the row tells the story.
     */
    @Test
    void aDeviceIsolatedUnderARunningAttemptAndTheJobSucceedsOnItsSecondAttempt() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(
                    connection,
                    new JobSubmission.Request(
                            "e2e-retried",
                            "grace",
                            "retried",
                            "v6e",
                            "2x2",
                            "{\"image\":\"train:1\",\"command\":[\"python\"],\"retry\":{\"max_retries\":1},"
                                    + "\"env\":{\"FALCON_SIM_DURATION_SECONDS\":\"50\"}}",
                            Optional.empty(),
                            Optional.of(600L)));
            JobBoard.JobView first = Await.present(
                    "e2e-retried running",
                    Duration.ofSeconds(120),
                    () -> JobBoard.find(connection, "e2e-retried")
                            .filter(j -> j.status().equals("Running")),
                    () -> headline(connection, "e2e-retried"));
            String cluster = first.clusterId().orElseThrow();
            String firstPool = first.nodePoolName().orElseThrow();
            try (TopicProducer<String, DeviceFault> producer =
                    TopicProducer.to(falcon.kafka().bootstrapServers(), Topics.DEVICE_FAULTS)) {
                long now = System.currentTimeMillis();
                for (int i = 0; i < 3; i++) { // the RFC's default policy: 3 faults within 24 h isolate
                    DeviceFault fault = deviceFault(cluster, "node-7", "npu-2")
                            .code("0x80E18403")
                            .level("L2")
                            .job("e2e-retried")
                            .receivedAt(now + i * 1000L)
                            .build();
                    producer.send(fault.topicKey(), fault);
                }
            }
            JobBoard.JobView retrying = Await.present(
                    "e2e-retried retrying",
                    Duration.ofSeconds(60),
                    () -> JobBoard.find(connection, "e2e-retried")
                            .filter(j -> j.reason().filter("Retrying"::equals).isPresent()),
                    () -> headline(connection, "e2e-retried"));
            assertThat(retrying.status()).isEqualTo("Pending");
            assertThat(retrying.message())
                    .startsWith("attempt 2 of 2 from ")
                    .contains("the fleet ended attempt 1: device node-7/npu-2 of its slice was isolated");

            JobBoard.JobView done = awaitTerminal(connection, "e2e-retried");
            assertThat(done.status()).isEqualTo("Succeeded");
            assertThat(done.nodePoolName()).isPresent().get().isNotEqualTo(firstPool);
            assertThat(done.message())
                    .contains("[attempt 2; earlier: attempt 1 on cluster " + cluster
                            + ": device node-7/npu-2 of its slice was isolated (hardware fault)");
        }
    }

    private static String headline(Connection connection, String jobId) {
        try {
            return "row " + JobBoard.find(connection, jobId).map(JobBoard.JobView::headline);
        } catch (java.sql.SQLException e) {
            return "row unreadable: " + e.getMessage();
        }
    }

    private static JobBoard.JobView awaitTerminal(Connection connection, String jobId) {
        AtomicReference<Optional<JobBoard.JobView>> last = new AtomicReference<>(Optional.empty());
        return Await.present(
                jobId + " finished",
                Duration.ofSeconds(120),
                () -> {
                    last.set(JobBoard.find(connection, jobId));
                    return last.get().filter(JobBoard.JobView::isTerminal);
                },
                () -> "last seen: " + last.get().map(JobBoard.JobView::headline));
    }
}
