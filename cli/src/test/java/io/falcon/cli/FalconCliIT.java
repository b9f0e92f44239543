package io.falcon.cli;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.TerminalText;
import io.falcon.events.Topic;
import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.jobs.JobBoard;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.statussink.SchemaMigrator;
import io.falcon.testkit.Await;
import io.falcon.testkit.builders.TaskStatusBuilder;
import io.falcon.testkit.kafka.TopicProducer;
import io.falcon.testkit.kafka.TopicReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The CLI against the real embedded MariaDB (jobs table + Flyway clusters migration) and the real broker. */
class FalconCliIT {
    private static final String SPEC = "{\"image\":\"train:1\",\"command\":[\"python\",\"train.py\"]}";
    private static EmbeddedMariaDb db;
    private static EmbeddedKafka kafka;
    private static String database;
    private static Map<String, String> settings;

    @BeforeAll
    static void infrastructure() throws Exception {
        db = SharedInfra.mariaDb();
        kafka = SharedInfra.kafka();
        database = SharedInfra.uniqueName("cli");
        db.createDatabase(database);
        try (Connection connection = db.connect(database)) {
            JobsTable.create(connection);
        }
        SchemaMigrator.migrate(db.jdbcUrl(database), db.user(), db.password());
        settings = new HashMap<>();
        settings.put("FALCON_DB_URL", db.jdbcUrl(database));
        settings.put("FALCON_DB_USER", db.user());
        settings.put("FALCON_DB_PASSWORD", db.password());
        settings.put("FALCON_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        CliRun topics = CliRun.of(settings, "topics", "create", "--partitions", "3", "--replication-factor", "1");
        assertThat(topics.exitCode()).as(topics.err()).isZero();
    }

    private static CliRun cli(String... args) {
        return CliRun.of(settings, args);
    }

    @Test
    void submitInsertsAPendingRowThatJobsAndShowDisplay() throws Exception {
        CliRun submitted = cli(
                "submit",
                "--id",
                "cli-job-1",
                "--actor",
                "alice",
                "--name",
                "resnet",
                "--tpu-type",
                "v6e",
                "--topology",
                "2x4",
                "--spec",
                SPEC,
                "--supply-mode",
                "flex-start",
                "--timeout",
                "2h");
        assertThat(submitted.exitCode()).as(submitted.err()).isZero();
        assertThat(submitted.out().strip()).isEqualTo("cli-job-1");

        try (Connection connection = db.connect(database);
                PreparedStatement select = connection.prepareStatement(
                        "SELECT actor, name, tpu_type, topology, spec, supply_mode, timeout_seconds, status FROM jobs"
                                + " WHERE id = 'cli-job-1'");
                ResultSet row = select.executeQuery()) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString("actor")).isEqualTo("alice");
            assertThat(row.getString("name")).isEqualTo("resnet");
            assertThat(row.getString("tpu_type")).isEqualTo("v6e");
            assertThat(row.getString("topology")).isEqualTo("2x4");
            assertThat(row.getString("spec")).isEqualTo(SPEC);
            assertThat(row.getString("supply_mode")).isEqualTo("flex-start");
            assertThat(row.getLong("timeout_seconds")).isEqualTo(7200L);
            assertThat(row.getString("status")).isEqualTo("Pending");
        }

        // what the status-sink would write back
        try (Connection connection = db.connect(database);
                PreparedStatement update = connection.prepareStatement(
                        "UPDATE jobs SET reason = 'Waiting', message = 'queue position #2, 1 ahead' WHERE id = 'cli-job-1'")) {
            update.executeUpdate();
        }
        CliRun jobs = cli("jobs", "--actor", "alice");
        assertThat(jobs.exitCode()).as(jobs.err()).isZero();
        List<String> lines = jobs.out().lines().toList();
        assertThat(lines.get(0)).startsWith("ID").contains("STATUS", "REASON", "MESSAGE");
        assertThat(lines)
                .anySatisfy(line -> assertThat(line)
                        .contains("cli-job-1", "alice", "resnet", "Pending", "Waiting", "queue position #2, 1 ahead"));
        assertThat(cli("jobs", "--status", "Running").out()).doesNotContain("cli-job-1");
        assertThat(cli("jobs", "--actor", "nobody").out().lines()).hasSize(1);

        CliRun show = cli("show", "cli-job-1");
        assertThat(show.exitCode()).as(show.err()).isZero();
        assertThat(show.out())
                .containsPattern("(?m)^id: +cli-job-1$")
                .containsPattern("(?m)^status: +Pending$")
                .containsPattern("(?m)^reason: +Waiting$")
                .containsPattern("(?m)^timeout_seconds: +7200$")
                .contains("created_at:");

        CliRun duplicate = cli(
                "submit",
                "--id",
                "cli-job-1",
                "--actor",
                "alice",
                "--name",
                "again",
                "--tpu-type",
                "v6e",
                "--topology",
                "2x4",
                "--spec",
                SPEC);
        assertThat(duplicate.exitCode()).isEqualTo(1);
        assertThat(duplicate.err()).contains("a job with id 'cli-job-1' already exists");
    }

    @Test
    void timesAreReadAsTimesWithTheirMillisecondsZeroPadded() throws Exception {
        String job = SharedInfra.uniqueName("timed");
        CliRun submitted = cli(
                "submit",
                "--id",
                job,
                "--actor",
                "alice",
                "--name",
                "t",
                "--tpu-type",
                "v6e",
                "--topology",
                "2x4",
                "--spec",
                SPEC);
        assertThat(submitted.exitCode()).as(submitted.err()).isZero();
        // under 100 ms past the second: the driver's text for such a TIMESTAMP(3) once dropped the leading zero
        try (Connection connection = db.connect(database);
                PreparedStatement update =
                        connection.prepareStatement("UPDATE jobs SET dispatched_at = '2026-12-04 00:22:47.078',"
                                + " finished_at = '2026-12-04 00:22:47.728' WHERE id = ?")) {
            update.setString(1, job);
            update.executeUpdate();
        }
        try (Connection connection = db.connect(database)) {
            JobBoard.JobView view = JobBoard.find(connection, job).orElseThrow();
            assertThat(view.dispatchedAt()).contains(java.time.LocalDateTime.parse("2026-12-04T00:22:47.078"));
            assertThat(view.finishedAt()).contains(java.time.LocalDateTime.parse("2026-12-04T00:22:47.728"));
            assertThat(view.dispatchedAt().orElseThrow())
                    .isBefore(view.finishedAt().orElseThrow());
            assertThat(JobBoard.read(connection))
                    .filteredOn(v -> v.id().equals(job))
                    .singleElement()
                    .isEqualTo(view);
            assertThat(JobBoard.columns(connection, job).orElseThrow())
                    .containsEntry("dispatched_at", "2026-12-04 00:22:47.078")
                    .containsEntry("finished_at", "2026-12-04 00:22:47.728");
        }
        CliRun show = cli("show", job);
        assertThat(show.exitCode()).as(show.err()).isZero();
        assertThat(show.out()).containsPattern("(?m)^dispatched_at: +2026-12-04 00:22:47\\.078$");
    }

    @Test
    void abortMarksTheRowAbortingOnceAndRefusesFinalOrUnknownJobs() throws Exception {
        assertThat(cli(
                                "submit",
                                "--id",
                                "cli-abort",
                                "--actor",
                                "bob",
                                "--name",
                                "a",
                                "--tpu-type",
                                "v5p",
                                "--topology",
                                "2x2x1",
                                "--spec",
                                SPEC)
                        .exitCode())
                .isZero();
        CliRun abort = cli("abort", "cli-abort");
        assertThat(abort.exitCode()).as(abort.err()).isZero();
        try (Connection connection = db.connect(database);
                PreparedStatement select =
                        connection.prepareStatement("SELECT status, aborting_at FROM jobs WHERE id = 'cli-abort'");
                ResultSet row = select.executeQuery()) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString("status")).isEqualTo("Aborting");
            assertThat(row.getTimestamp("aborting_at")).isNotNull();
        }
        CliRun again = cli("abort", "cli-abort");
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("job 'cli-abort' is Aborting: only Pending and Running jobs can be aborted");

        CliRun unknown = cli("abort", "no-such-job");
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.err()).contains("no job 'no-such-job'");
        assertThat(cli("show", "no-such-job").exitCode()).isEqualTo(1);
    }

    @Test
    void clustersAreAddedListedAndTheirStatusChanged() {
        CliRun add = cli(
                "clusters",
                "add",
                "--id",
                "cl-a",
                "--name",
                "edge-a",
                "--project",
                "falcon-edge-a",
                "--location",
                "us-central1",
                "--tpu-type",
                "v6e",
                "--gcs-bucket",
                "bucket-a",
                "--default-reservation",
                "res-a",
                "--k8s-service-account",
                "falcon-jobs");
        assertThat(add.exitCode()).as(add.err()).isZero();
        try (Connection connection = db.connect(database);
                var select = connection.prepareStatement(
                        "SELECT id, k8s_service_account FROM clusters WHERE id IN ('cl-a') ORDER BY id");
                ResultSet row = select.executeQuery()) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString(2)).isEqualTo("falcon-jobs");
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
        assertThat(cli(
                                "clusters",
                                "add",
                                "--id",
                                "cl-b",
                                "--name",
                                "edge-b",
                                "--project",
                                "falcon-edge-b",
                                "--location",
                                "us-east5",
                                "--tpu-type",
                                "v5e",
                                "--gcs-bucket",
                                "bucket-b")
                        .exitCode())
                .isZero();

        CliRun list = cli("clusters", "list");
        assertThat(list.exitCode()).isZero();
        assertThat(list.out())
                .contains("cl-a", "edge-a", "falcon-edge-a", "us-central1", "v6e", "active", "res-a", "bucket-a")
                .contains("cl-b");
        assertThat(cli("clusters", "list", "--tpu-type", "v5e").out())
                .contains("cl-b")
                .doesNotContain("cl-a");

        CliRun maintenance = cli("clusters", "set-status", "cl-a", "maintenance");
        assertThat(maintenance.exitCode()).as(maintenance.err()).isZero();
        assertThat(cli("clusters", "list")
                        .out()
                        .lines()
                        .filter(l -> l.startsWith("cl-a"))
                        .findFirst()
                        .orElseThrow())
                .contains("maintenance");

        CliRun duplicate = cli(
                "clusters",
                "add",
                "--name",
                "edge-a",
                "--project",
                "falcon-edge-a",
                "--location",
                "us-central1",
                "--tpu-type",
                "v6e",
                "--gcs-bucket",
                "bucket-a");
        assertThat(duplicate.exitCode()).isEqualTo(1);
        assertThat(duplicate.err()).contains("already registered");

        CliRun unknown = cli("clusters", "set-status", "no-such-cluster", "offline");
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.err()).contains("no cluster 'no-such-cluster'");
    }

    @Test
    void watchPrintsEachTransitionOfTheJob() throws Exception {
        String job = SharedInfra.uniqueName("watched");
        Instant t0 = Instant.parse("2026-01-05T10:00:00Z");
        List<TaskStatus> transitions = List.of(
                status(job, 1, Status.Pending, Optional.of(Reason.Waiting), "queue position #1", t0),
                status(
                        job,
                        2,
                        Status.Pending,
                        Optional.of(Reason.Provisioning),
                        "creating node pool",
                        t0.plusSeconds(1)),
                status(job, 3, Status.Running, Optional.empty(), "Pod running (1/1 active)", t0.plusSeconds(5)),
                status(job, 4, Status.Succeeded, Optional.empty(), "", t0.plusSeconds(9)));
        try (TopicProducer<String, TaskStatus> producer = producer()) {
            producer.send(
                    "other-job", status("other-job", 1, Status.Pending, Optional.of(Reason.Waiting), "not mine", t0));
            for (TaskStatus s : transitions) {
                producer.send(job, s);
            }
        }
        CliRun watch = CompletableFuture.supplyAsync(
                        () -> cli("watch", "--job", job, "--from-beginning", "--until-final"))
                .get(60, TimeUnit.SECONDS);
        assertThat(watch.exitCode()).as(watch.err()).isZero();
        List<String> lines = watch.out().lines().skip(1).toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).contains(job + "  Pending/Waiting  queue position #1");
        assertThat(lines.get(1)).contains("Pending/Provisioning  creating node pool");
        assertThat(lines.get(2)).contains("Running  Pod running (1/1 active)").contains("cluster=cluster-x");
        assertThat(lines.get(3)).contains(job + "  Succeeded");
        assertThat(watch.out()).doesNotContain("not mine");
    }

    @Test
    void watchFollowsNewTransitionsFromTheEnd() throws Exception {
        String job = SharedInfra.uniqueName("live");
        StringWriter out = new StringWriter();
        CompletableFuture<Integer> watching = CompletableFuture.supplyAsync(() -> FalconCli.run(
                new io.falcon.events.Settings(settings),
                new PrintWriter(out),
                new PrintWriter(new StringWriter()),
                "watch",
                "--job",
                job,
                "--count",
                "1"));
        Await.until(
                "the watch started",
                Duration.ofSeconds(30),
                () -> out.toString().startsWith("watching"),
                () -> "output so far: " + out);
        assertThat(out.toString()).startsWith("watching falcon.task-status for job " + job);
        try (TopicProducer<String, TaskStatus> producer = producer()) {
            producer.send(
                    job,
                    status(
                            job,
                            7,
                            Status.Failed,
                            Optional.of(Reason.NodePoolTimeout),
                            "node pool not ready in 10m",
                            Instant.now()));
        }
        assertThat(watching.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(out.toString()).contains(job + "  Failed/NodePoolTimeout  node pool not ready in 10m");
    }

    @Test
    void retriesOffWritesTheSwitchAndRetriesShowsTheLastOne() {
        String reason = SharedInfra.uniqueName("retry storm");
        CliRun off = cli("retries", "off", "--reason", reason);
        assertThat(off.exitCode()).as(off.err()).isZero();
        assertThat(off.out()).contains("retries switched off", reason);
        List<ConsumerRecord<String, io.falcon.events.control.RetrySwitch>> written =
                readAll(Topics.SCHEDULER_CONTROLS, s -> s.reason().equals(reason), 1);
        assertThat(written.get(0).key()).isEqualTo(io.falcon.events.control.RetrySwitch.KEY);
        assertThat(written.get(0).value().enabled()).isFalse();

        CliRun shown = cli("retries");
        assertThat(shown.exitCode()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("retries are switched off", reason);

        CliRun wrong = cli("retries", "maybe");
        assertThat(wrong.exitCode()).isEqualTo(2);
        assertThat(wrong.err()).contains("expected on or off");
    }

    @Test
    void faultsInjectAndIsolationReleaseWriteTheCatalogsRecordsAndIsolationListReadsTheState() throws Exception {
        String cluster = SharedInfra.uniqueName("iso-cluster");
        CliRun inject = cli(
                "faults",
                "inject",
                "--cluster",
                cluster,
                "--node",
                "node-1",
                "--device",
                "npu-3",
                "--code",
                "8C1F8609",
                "--level",
                "SeparateNPU",
                "--job",
                "job-9",
                "--repeat",
                "2");
        assertThat(inject.exitCode()).as(inject.err()).isZero();
        List<ConsumerRecord<String, DeviceFault>> faults =
                readAll(Topics.DEVICE_FAULTS, f -> f.clusterId().equals(cluster), 2);
        assertThat(faults).hasSize(2).allSatisfy(r -> assertThat(r.key()).isEqualTo(cluster));
        DeviceFault fault = faults.get(0).value();
        assertThat(fault.clusterId()).isEqualTo(cluster);
        assertThat(fault.deviceName()).isEqualTo("npu-3");
        assertThat(fault.faultCode()).isEqualTo("8C1F8609");
        assertThat(fault.faultLevel()).contains("SeparateNPU");

        // the state fault-streams keeps on the compacted topic
        try (TopicProducer<String, NodeIsolation> producer =
                TopicProducer.to(kafka.bootstrapServers(), Topics.ISOLATION)) {
            producer.send(
                    NodeIsolation.key(cluster, "node-1"),
                    new NodeIsolation(
                            List.of("npu-3"),
                            Map.of(
                                    "npu-3",
                                    List.of(new NodeIsolation.DeviceIsolation(
                                            "8C1F8609", NodeIsolation.MANUALLY_SEPARATE_NPU, 1_767_600_000_000L)))));
            producer.send(
                    NodeIsolation.key(cluster, "node-2"),
                    new NodeIsolation(
                            List.of("npu-0"),
                            Map.of(
                                    "npu-0",
                                    List.of(new NodeIsolation.DeviceIsolation(
                                            "80E01801", NodeIsolation.MANUALLY_SEPARATE_NPU, 1_767_600_000_000L)))));
            producer.tombstone(NodeIsolation.key(cluster, "node-2"));
        }
        CliRun list = cli("isolation", "list", "--cluster", cluster);
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.out().lines().toList()).hasSize(2);
        assertThat(list.out())
                .contains(cluster, "node-1", "npu-3", "8C1F8609", "ManuallySeparateNPU", "2026-01-05T08:00:00Z")
                .doesNotContain("node-2");

        CliRun release = cli(
                "isolation",
                "release",
                "--cluster",
                cluster,
                "--node",
                "node-1",
                "--device",
                "npu-3",
                "--reason",
                "replaced the chip");
        assertThat(release.exitCode()).as(release.err()).isZero();
        List<ConsumerRecord<String, IsolationCommand>> commands =
                readAll(Topics.ISOLATION_COMMANDS, c -> c.clusterId().equals(cluster), 1);
        assertThat(commands).hasSize(1);
        assertThat(commands.get(0).key()).isEqualTo(cluster);
        IsolationCommand command = commands.get(0).value();
        assertThat(command)
                .isEqualTo(
                        new IsolationCommand.Release(command.meta(), cluster, "node-1", "npu-3", "replaced the chip"));
        assertThat(command.meta().producer()).isEqualTo("falcon-cli");
    }

    /**
     * A tenant's row, cluster and records carrying what a terminal would run (clear the screen, a hyperlink, a
     * carriage return over the status, a C1 CSI, a bidi override): every command that prints them shows the escapes.
     */
    @Test
    void hostileStringsFromRowsAndTopicsAreShownNotRun() throws Exception {
        String job = SharedInfra.uniqueName("hostile") + "\u001b[2J";
        String actor = "mallory" + TerminalTextTest.CLEAR_SCREEN;
        String cluster = SharedInfra.uniqueName("cl") + "\u009b31m";
        try (Connection connection = db.connect(database)) {
            JobSubmission.submit(
                    connection,
                    new JobSubmission.Request(
                            job,
                            actor,
                            TerminalTextTest.HYPERLINK,
                            "v6e",
                            "2x4",
                            "{\"image\":\"x\u001b]0;pwned\u0007\",\"command\":[\"sh\"]}",
                            Optional.empty(),
                            Optional.empty()));
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE jobs SET reason = 'Waiting', message = ?, cluster_id = ? WHERE id = ?")) {
                update.setString(1, TerminalTextTest.OVERWRITE + "\u202eexe.txt");
                update.setString(2, cluster);
                update.setString(3, job);
                assertThat(update.executeUpdate()).isEqualTo(1);
            }
        }
        CliRun add = cli(
                "clusters",
                "add",
                "--id",
                cluster,
                "--name",
                "edge" + TerminalTextTest.CLEAR_SCREEN,
                "--project",
                "p\u202eroj",
                "--location",
                "us-central1",
                "--tpu-type",
                "v6e",
                "--gcs-bucket",
                "b\rucket");
        try (TopicProducer<String, TaskStatus> producer = producer()) {
            producer.send(
                    job,
                    status(
                            job,
                            1,
                            Status.Pending,
                            Optional.of(Reason.Waiting),
                            TerminalTextTest.OVERWRITE + TerminalTextTest.HYPERLINK,
                            Instant.now()));
        }
        try (TopicProducer<String, NodeIsolation> producer =
                TopicProducer.to(kafka.bootstrapServers(), Topics.ISOLATION)) {
            producer.send(
                    NodeIsolation.key(cluster, "node\u001b[1A"),
                    new NodeIsolation(
                            List.of("npu-0\u001b[2K"),
                            Map.of(
                                    "npu-0\u001b[2K",
                                    List.of(new NodeIsolation.DeviceIsolation(
                                            "8C1F8609\r", NodeIsolation.MANUALLY_SEPARATE_NPU, 1_767_600_000_000L)))));
        }

        Map<String, CliRun> runs = new java.util.LinkedHashMap<>();
        runs.put("clusters add", add);
        runs.put("jobs", cli("jobs", "--actor", actor));
        runs.put("show", cli("show", job));
        runs.put("explain", cli("explain", job));
        runs.put("explain --json", cli("explain", job, "--json"));
        runs.put("clusters list", cli("clusters", "list"));
        runs.put("isolation list", cli("isolation", "list", "--cluster", cluster));
        runs.put(
                "watch",
                CompletableFuture.supplyAsync(() -> cli("watch", "--job", job, "--from-beginning", "--count", "1"))
                        .get(60, TimeUnit.SECONDS));
        runs.put("abort", cli("abort", job));
        runs.put("abort again", cli("abort", job));
        runs.forEach((command, run) -> {
            assertThat(run.exitCode()).as(command + ": " + run.err()).isIn(0, 1);
            assertThat(TerminalTextTest.hasTerminalControls(run.out() + run.err()))
                    .as(command + " printed a character a terminal acts on: "
                            + TerminalText.visible(run.out() + run.err()))
                    .isFalse();
        });
        String shownJob = job.replace("\u001b", "\\u001b");
        assertThat(runs.get("jobs").out())
                .contains(shownJob, "mallory\\u001b[2J\\u001b[H", "\\u001b]8;;https://evil.example/login\\u0007")
                .contains("Failed/OOMKilled\\rSucceeded", "\\u202eexe.txt", "\\u009b31m");
        assertThat(runs.get("show").out())
                .containsPattern("(?m)^id: +" + java.util.regex.Pattern.quote(shownJob) + "$")
                .contains("\"image\":\"x\\u001b]0;pwned\\u0007\"");
        String shownCluster = cluster.replace("\u009b", "\\u009b") + " (edge\\u001b[2J\\u001b[H)";
        assertThat(runs.get("jobs").out()).as("the cluster named beside its id").contains(shownCluster);
        assertThat(runs.get("explain").out())
                .contains("job " + shownJob + ": Pending/Waiting on cluster " + shownCluster + ", queue");
        assertThat(runs.get("explain --json").out()).contains("\\u009b31m");
        assertThat(runs.get("clusters list").out()).contains("edge\\u001b[2J", "p\\u202eroj", "b\\rucket");
        assertThat(runs.get("isolation list").out()).contains("node\\u001b[1A", "npu-0\\u001b[2K", "8C1F8609\\r");
        assertThat(runs.get("isolation list").out()).contains(shownCluster);
        assertThat(runs.get("watch").out()).contains(shownJob + "  Pending/Waiting  Failed/OOMKilled\\rSucceeded");
        assertThat(runs.get("abort").out().strip()).isEqualTo("aborting " + shownJob);
        assertThat(runs.get("abort again").err()).contains("job '" + shownJob + "' is Aborting");
    }

    private static TaskStatus status(
            String job, long version, Status status, Optional<Reason> reason, String message, Instant at) {
        TaskStatusBuilder transition = taskStatus(job)
                .version(version)
                .status(status)
                .reason(reason)
                .message(message)
                .producer("scheduler-streams")
                .at(at);
        return (status == Status.Running ? transition.clusterId("cluster-x") : transition).build();
    }

    private static TopicProducer<String, TaskStatus> producer() {
        return TopicProducer.to(kafka.bootstrapServers(), Topics.TASK_STATUS);
    }

    /** Records of the topic whose value matches, read from the beginning until n were found. */
    private static <V> List<ConsumerRecord<String, V>> readAll(Topic<String, V> topic, Predicate<V> matching, int n) {
        try (TopicReader<String, V> reader = TopicReader.fromBeginning(kafka.bootstrapServers(), topic)) {
            return reader.awaitRecords(
                    n + " records of " + topic.name(), Duration.ofSeconds(30), r -> matching.test(r.value()), n);
        }
    }
}
