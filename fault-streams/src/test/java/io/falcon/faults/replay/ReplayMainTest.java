package io.falcon.faults.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayMainTest {
    @TempDir
    Path dir;

    private static final String POLICY = """
            manuallySeparatePolicy:
              enabled: true
              separate: {fault_window_hours: 24, fault_threshold: 2}
              release: {fault_free_hours: -1}
            """;

    @Test
    void replaysATraceAndPrintsVerdictsAndIsolationsAsJsonLines() throws Exception {
        Path trace = dir.resolve("trace.jsonl");
        Files.writeString(
                trace,
                String.join(
                        "\n",
                        "# software fault: same code on two devices of job-1",
                        "{\"clusterId\":\"c1\",\"nodeName\":\"n1\",\"deviceName\":\"d0\",\"faultCode\":\"A\",\"jobId\":\"job-1\",\"receiveTimeMs\":1770811600000}",
                        "{\"clusterId\":\"c1\",\"nodeName\":\"n2\",\"deviceName\":\"d4\",\"faultCode\":\"A\",\"jobId\":\"job-1\",\"receiveTimeMs\":1770811605000}",
                        "{\"clusterId\":\"c1\",\"nodeName\":\"n3\",\"deviceName\":\"d1\",\"faultCode\":\"B\",\"receiveTimeMs\":1770811610000}",
                        "{\"clusterId\":\"c1\",\"nodeName\":\"n3\",\"deviceName\":\"d1\",\"faultCode\":\"B\",\"receiveTimeMs\":1770811620000}",
                        ""));
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(policy, POLICY);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int code = ReplayMain.run(
                new String[] {"--trace", trace.toString(), "--policy", policy.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(code).isZero();
        String[] lines = out.toString(StandardCharsets.UTF_8).trim().split("\n");
        assertThat(lines)
                .filteredOn(l -> l.contains("\"outcome\":\"SOFTWARE_FAULT\""))
                .hasSize(2);
        assertThat(lines)
                .filteredOn(l -> l.contains("\"outcome\":\"ISOLATED\""))
                .hasSize(1);
        assertThat(lines)
                .filteredOn(l -> l.startsWith("{\"kind\":\"isolation\""))
                .singleElement()
                .satisfies(l -> assertThat(l)
                        .contains("\"key\":\"c1/n3\"", "\"Total\":[\"d1\"]", "\"LastSeparateTime\":1770811620000"));
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("replayed 4 faults");
    }

    @Test
    void anInvalidPolicyIsRejectedNamingTheField() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.jsonl"), "");
        Path policy =
                Files.writeString(dir.resolve("p.yaml"), POLICY.replace("fault_threshold: 2", "fault_threshold: 51"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ReplayMain.run(
                new String[] {"--trace", trace.toString(), "--policy", policy.toString()},
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("fault_threshold must be between 1 and 50, got 51");
    }

    @Test
    void withGraceZeroAFaultStampedExactlyFirstPlusWindowIsStillAPeer() throws Exception {
        Path trace = Files.writeString(
                dir.resolve("edge.jsonl"),
                String.join(
                        "\n",
                        "{\"clusterId\":\"c1\",\"nodeName\":\"n1\",\"deviceName\":\"d0\",\"faultCode\":\"A\",\"jobId\":\"job-1\",\"receiveTimeMs\":1770811600000}",
                        "{\"clusterId\":\"c1\",\"nodeName\":\"n2\",\"deviceName\":\"d4\",\"faultCode\":\"A\",\"jobId\":\"job-1\",\"receiveTimeMs\":1770811630000}",
                        ""));
        Path policy = Files.writeString(dir.resolve("policy.yaml"), POLICY);
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        int code = ReplayMain.run(
                new String[] {"--trace", trace.toString(), "--policy", policy.toString(), "--grace", "0s"},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        assertThat(code).isZero();
        String[] lines = out.toString(StandardCharsets.UTF_8).trim().split("\n");
        assertThat(lines)
                .filteredOn(l -> l.contains("\"outcome\":\"SOFTWARE_FAULT\""))
                .hasSize(2);
        assertThat(lines).noneMatch(l -> l.contains("\"outcome\":\"COUNTED\""));
    }

    @Test
    void stdoutHoldsOnlyJsonLinesAndTheLogsGoToStderr() throws Exception {
        Path trace = Files.writeString(
                dir.resolve("logged.jsonl"),
                String.join(
                        "\n",
                        "{\"clusterId\":\"c1\",\"nodeName\":\"n1\",\"deviceName\":\"d0\",\"faultCode\":\"A\",\"jobId\":\"job-1\",\"receiveTimeMs\":1770811600000}",
                        "{\"clusterId\":\"c1\",\"nodeName\":\"n2\",\"deviceName\":\"d4\",\"faultCode\":\"A\",\"jobId\":\"job-1\",\"receiveTimeMs\":1770811605000}",
                        ""));
        Path policy = Files.writeString(dir.resolve("policy.yaml"), POLICY);
        // the topology logs its decisions at INFO: turned on here so that there is something to misroute
        var logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.falcon.faults");
        var level = logger.getLevel();
        logger.setLevel(ch.qos.logback.classic.Level.INFO);
        PrintStream realOut = System.out;
        PrintStream realErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = ReplayMain.runFromCommandLine(
                    new String[] {"--trace", trace.toString(), "--policy", policy.toString()});
        } finally {
            System.setOut(realOut);
            System.setErr(realErr);
            logger.setLevel(level);
        }

        assertThat(code).isZero();
        String[] lines = out.toString(StandardCharsets.UTF_8).trim().split("\n");
        assertThat(lines)
                .hasSize(2)
                .allSatisfy(l -> assertThat(io.falcon.events.Json.mapper()
                                .readTree(l)
                                .path("kind")
                                .asText())
                        .isIn("verdict", "isolation"));
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("classified as software faults", "replayed 2 faults");
    }
}
