package io.falcon.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.falcon.fleetsim.FleetRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChaosReportTest {
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

    @TempDir
    Path dataDir;

    @Test
    void writesTheWholeReportAsTextAndJsonIntoTheDataDirectory() throws Exception {
        ChaosReport report = report(List.of(
                ChaosReport.Violation.ofJob("run-7 (SUCCEED)", "run-7", "Failed/NodePoolTimeout", "Succeeded")
                        .withEvidence(List.of("row 2026-12-03T10:00:01Z Pending/Waiting")),
                ChaosReport.Violation.of("node pool edge-a/falcon-run-9", "listed by GKE, status RUNNING", "gone"),
                ChaosReport.Violation.of("phase RUNNING", "no abort landed in it", "at least one abort")));

        Path text = report.writeTo(dataDir);

        assertThat(text).isEqualTo(dataDir.resolve(ChaosReport.TEXT_FILE));
        String written = Files.readString(text);
        assertThat(written)
                .contains("run: run (seed 1)")
                .contains("PASS  every row final")
                .contains("FAIL  every row ends with the status its knobs dictate")
                .contains("run-7 (SUCCEED): seen Failed/NodePoolTimeout, expected Succeeded")
                .contains("            row 2026-12-03T10:00:01Z Pending/Waiting")
                .contains("node pool edge-a/falcon-run-9: seen listed by GKE, status RUNNING, expected gone")
                .contains("phase RUNNING: seen no abort landed in it")
                .contains(T0 + " kill -9 scheduler-1")
                .endsWith("1 passed, 1 failed\n");

        JsonNode json = new ObjectMapper()
                .readTree(dataDir.resolve(ChaosReport.JSON_FILE).toFile());
        assertThat(json.path("passed").asInt()).isEqualTo(1);
        assertThat(json.path("failed").asInt()).isEqualTo(1);
        assertThat(json.path("facts").path("run").asText()).isEqualTo("run (seed 1)");
        JsonNode failed = json.path("checks").path(1);
        assertThat(failed.path("passed").asBoolean()).isFalse();
        assertThat(failed.path("violations")).hasSize(3);
        JsonNode first = failed.path("violations").path(0);
        assertThat(first.path("job").asText()).isEqualTo("run-7");
        assertThat(first.path("seen").asText()).isEqualTo("Failed/NodePoolTimeout");
        assertThat(first.path("expected").asText()).isEqualTo("Succeeded");
        assertThat(first.path("evidence").path(0).asText()).isEqualTo("row 2026-12-03T10:00:01Z Pending/Waiting");
        assertThat(failed.path("violations").path(1).has("job")).isFalse();
        assertThat(json.path("acts").path(0).path("what").asText()).isEqualTo("kill -9 scheduler-1");
    }

    @Test
    void standardOutputShowsAtMostTheCapPerCheckAndPointsToTheFile() {
        ChaosReport report = report(List.of(
                ChaosReport.Violation.ofJob("run-1", "run-1", "Running", "Succeeded")
                        .withEvidence(List.of("row evidence")),
                ChaosReport.Violation.ofJob("run-2", "run-2", "Running", "Succeeded"),
                ChaosReport.Violation.ofJob("run-3", "run-3", "Running", "Succeeded")));

        String shown = report.text(2, false, Optional.of(dataDir.resolve(ChaosReport.TEXT_FILE)));

        assertThat(shown).contains("run-1: seen Running").contains("run-2: seen Running");
        assertThat(shown).doesNotContain("run-3: seen").doesNotContain("row evidence");
        assertThat(shown).contains("... 1 more (all in " + dataDir.resolve(ChaosReport.TEXT_FILE) + ")");
    }

    @Test
    void evidenceOfAJobIsItsRowHistoryItsFleetRecordAndTheLogLinesNamingItInTimeOrder() throws Exception {
        Path logs = Files.createDirectories(dataDir.resolve("logs"));
        Files.writeString(
                logs.resolve("scheduler-1.log"),
                String.join(
                        "\n",
                        "==== 2026-12-03T09:59:00Z starting scheduler-1",
                        jsonLine(T0.plusSeconds(3), "io.falcon.scheduler.Placement", "placed run-12", "run-12"),
                        jsonLine(T0.plusSeconds(4), "io.falcon.scheduler.Placement", "placed run-123", "run-123"),
                        "a plain line naming falcon-run-12-0 without a time"));
        Files.writeString(
                logs.resolve("executor-1.log"),
                jsonLine(T0.plusSeconds(1), "io.falcon.executor.NodePoolManager", "creating pool", "run-12") + "\n");
        Files.writeString(logs.resolve("notes.txt"), "run-12 in a file that is not a log\n");
        List<FleetRecord.Entry> record = List.of(
                new FleetRecord.Entry(
                        T0.plusSeconds(2),
                        FleetRecord.Kind.NODE_POOL_CREATE,
                        FleetRecord.Outcome.ACCEPTED,
                        "edge-a",
                        "falcon-run-12",
                        Optional.of("run-12")),
                new FleetRecord.Entry(
                        T0.plusSeconds(2),
                        FleetRecord.Kind.NODE_POOL_CREATE,
                        FleetRecord.Outcome.ACCEPTED,
                        "edge-a",
                        "falcon-run-123",
                        Optional.of("run-123")));
        Map<String, List<RowSampler.Seen>> rows = Map.of(
                "run-12",
                List.of(new RowSampler.Seen(T0, "Pending"), new RowSampler.Seen(T0.plusSeconds(5), "Running")));

        Evidence evidence = Evidence.gather(Set.of("run-12"), id -> rows.getOrDefault(id, List.of()), record, logs, 10);
        List<String> lines = evidence.of("run-12");

        assertThat(lines)
                .containsExactly(
                        "row " + T0 + " Pending",
                        "row " + T0.plusSeconds(5) + " Running",
                        "fleet " + T0.plusSeconds(2) + " NODE_POOL_CREATE ACCEPTED edge-a/falcon-run-12",
                        "log executor-1 " + T0.plusSeconds(1)
                                + " INFO NodePoolManager: creating pool {\"job\":\"run-12\"}",
                        "log scheduler-1 " + T0.plusSeconds(3) + " INFO Placement: placed run-12 {\"job\":\"run-12\"}",
                        "log scheduler-1 a plain line naming falcon-run-12-0 without a time");
    }

    @Test
    void evidenceKeepsAtMostTheCapOfLogLinesAndCountsTheRest() throws Exception {
        Path logs = Files.createDirectories(dataDir.resolve("logs"));
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            b.append(jsonLine(T0.plusSeconds(i), "io.falcon.x.Y", "line " + i, "run-1"))
                    .append('\n');
        }
        Files.writeString(logs.resolve("executor-1.log"), b.toString());

        List<String> lines = Evidence.gather(Set.of("run-1"), id -> List.of(), List.of(), logs, 2)
                .of("run-1");

        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).endsWith("line 0 {\"job\":\"run-1\"}");
        assertThat(lines.get(2)).isEqualTo("log ... 3 more lines name run-1");
    }

    @Test
    void aJobIdIsNamedOnlyAsWholeDashSeparatedParts() {
        Set<String> jobs = Set.of("run-12", "run-1");

        assertThat(Evidence.named("pool falcon-run-12-0 of run-12", jobs)).containsExactly("run-12");
        assertThat(Evidence.named("run-123 and xrun-12", jobs)).isEmpty();
        assertThat(Evidence.named("{\"job\":\"run-1\"}", jobs)).containsExactly("run-1");
    }

    @Test
    void outstandingResourcesAreAcceptedCreatesNotBalancedByAcceptedDeletes() {
        List<FleetRecord.Entry> record = List.of(
                entry(FleetRecord.Kind.NODE_POOL_CREATE, FleetRecord.Outcome.ACCEPTED, "falcon-a", "a"),
                entry(FleetRecord.Kind.NODE_POOL_DELETE, FleetRecord.Outcome.ACCEPTED, "falcon-a", "a"),
                entry(FleetRecord.Kind.K8S_JOB_CREATE, FleetRecord.Outcome.ACCEPTED, "falcon-b", "b"),
                entry(FleetRecord.Kind.K8S_JOB_DELETE, FleetRecord.Outcome.NOT_FOUND, "falcon-b", "b"),
                entry(FleetRecord.Kind.NODE_POOL_CREATE, FleetRecord.Outcome.ALREADY_EXISTS, "falcon-c", "c"));

        assertThat(ChaosMain.outstanding(record))
                .containsExactly(new ChaosMain.Resource("Kubernetes Job", "edge-a", "falcon-b", Optional.of("b")));
    }

    @Test
    void aPoolCreatedAgainAfterItsCreateFailedIsNoDuplicateButOneCreatedAgainAfterItWorkedIs() {
        // Falcon's path for a reservation race: the pool fails in GKE, is deleted, and is created again once there is
        // room (ReservationShort, then ClusterBusy)
        List<FleetRecord.Entry> raceLost = List.of(
                entry(FleetRecord.Kind.NODE_POOL_CREATE, FleetRecord.Outcome.ACCEPTED, "falcon-a", "a"),
                entry(FleetRecord.Kind.NODE_POOL_CREATE_FAILED, FleetRecord.Outcome.REFUSED, "falcon-a", "a"),
                entry(FleetRecord.Kind.NODE_POOL_DELETE, FleetRecord.Outcome.ACCEPTED, "falcon-a", "a"),
                entry(FleetRecord.Kind.NODE_POOL_CREATE, FleetRecord.Outcome.ACCEPTED, "falcon-a", "a"),
                entry(FleetRecord.Kind.NODE_POOL_DELETE, FleetRecord.Outcome.ACCEPTED, "falcon-a", "a"));
        assertThat(ChaosMain.createdTwice(raceLost, FleetRecord.Kind.NODE_POOL_CREATE))
                .isEmpty();

        List<FleetRecord.Entry> createdAgain = List.of(
                entry(FleetRecord.Kind.NODE_POOL_CREATE, FleetRecord.Outcome.ACCEPTED, "falcon-b", "b"),
                entry(FleetRecord.Kind.NODE_POOL_CREATE, FleetRecord.Outcome.ALREADY_EXISTS, "falcon-b", "b"),
                entry(FleetRecord.Kind.NODE_POOL_DELETE, FleetRecord.Outcome.ACCEPTED, "falcon-b", "b"),
                entry(FleetRecord.Kind.NODE_POOL_CREATE, FleetRecord.Outcome.ACCEPTED, "falcon-b", "b"),
                entry(FleetRecord.Kind.NODE_POOL_CREATE_FAILED, FleetRecord.Outcome.REFUSED, "falcon-b", "b"),
                entry(FleetRecord.Kind.NODE_POOL_CREATE, FleetRecord.Outcome.ACCEPTED, "falcon-b", "b"));
        List<ChaosReport.Violation> duplicates =
                ChaosMain.createdTwice(createdAgain, FleetRecord.Kind.NODE_POOL_CREATE);
        assertThat(duplicates).singleElement().satisfies(v -> {
            assertThat(v.subject()).isEqualTo("edge-a/falcon-b");
            assertThat(v.job()).contains("b");
            assertThat(v.seen())
                    .isEqualTo("created 3 times (created at " + T0 + ", created at " + T0 + ", create failed at " + T0
                            + ", created at " + T0 + ")");
        });
    }

    @Test
    void aKubernetesJobCreatedAgainIsADuplicateWhateverFailedBefore() {
        List<FleetRecord.Entry> record = List.of(
                entry(FleetRecord.Kind.K8S_JOB_CREATE, FleetRecord.Outcome.ACCEPTED, "falcon-c", "c"),
                entry(FleetRecord.Kind.NODE_POOL_CREATE_FAILED, FleetRecord.Outcome.REFUSED, "falcon-c", "c"),
                entry(FleetRecord.Kind.K8S_JOB_DELETE, FleetRecord.Outcome.ACCEPTED, "falcon-c", "c"),
                entry(FleetRecord.Kind.K8S_JOB_CREATE, FleetRecord.Outcome.ACCEPTED, "falcon-c", "c"));

        assertThat(ChaosMain.createdTwice(record, FleetRecord.Kind.K8S_JOB_CREATE))
                .extracting(ChaosReport.Violation::subject)
                .containsExactly("edge-a/falcon-c");
    }

    @Test
    void aJobWhoseRowShowsAnAbortLandedMustEndAbortedAlsoWhenTheAnswerToTheAbortWasLost() {
        Workload.Planned job = new Workload.Planned(
                new io.falcon.cli.JobSubmission.Request(
                        "run-4", "alice", "chaos-abort", "v6e", "2x2", "{}", Optional.empty(), Optional.of(3600L)),
                Workload.Knob.ABORT,
                Optional.of(Workload.Phase.RUNNING));
        RowSampler.Row landed = new RowSampler.Row("run-4", "Aborted", Optional.empty(), true);
        RowSampler.Row untouched = new RowSampler.Row("run-4", "Succeeded", Optional.empty(), false);

        // the UPDATE committed, then MariaDB went away before it answered: nothing recorded, the row knows
        assertThat(ChaosMain.expected(job, Optional.empty(), landed)).hasToString("Aborted");
        assertThat(ChaosMain.expected(job, Optional.of(Workload.Phase.RUNNING), landed))
                .hasToString("Aborted");
        assertThat(ChaosMain.expected(job, Optional.empty(), untouched)).hasToString("Succeeded");
    }

    @Test
    void evidenceGoesFirstToTheJobsOfTheChecksWithTheFewestViolations() {
        List<ChaosReport.Violation> many = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            many.add(ChaosReport.Violation.ofJob("run-" + i, "run-" + i, "Pending/Waiting", "a final row"));
        }
        List<ChaosReport.Check> checks = List.of(
                new ChaosReport.Check("every row final", many),
                new ChaosReport.Check(
                        "every row ends with the status its knobs dictate",
                        List.of(ChaosReport.Violation.ofJob("run-99", "run-99", "Failed/JobFailed", "Succeeded"))));

        assertThat(ChaosMain.jobsForEvidence(checks, 3)).containsExactly("run-99", "run-0", "run-1");
    }

    private static FleetRecord.Entry entry(
            FleetRecord.Kind kind, FleetRecord.Outcome outcome, String name, String job) {
        return new FleetRecord.Entry(T0, kind, outcome, "edge-a", name, Optional.of(job));
    }

    private static String jsonLine(Instant at, String logger, String message, String job) {
        return "{\"timestamp\":" + at.toEpochMilli() + ",\"level\":\"INFO\",\"threadName\":\"t\",\"loggerName\":\""
                + logger + "\",\"mdc\": {\"job\":\"" + job + "\"},\"formattedMessage\":\"" + message
                + "\",\"throwable\":null}";
    }

    private static ChaosReport report(List<ChaosReport.Violation> violations) {
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("run", "run (seed 1)");
        return new ChaosReport(
                facts,
                List.of(
                        new ChaosReport.Check("every row final", List.of()),
                        new ChaosReport.Check("every row ends with the status its knobs dictate", violations)),
                List.of(new Monkey.Act(T0, "kill -9 scheduler-1")));
    }
}
