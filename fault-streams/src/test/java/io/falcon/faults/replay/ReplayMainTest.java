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
        Files.writeString(trace, String.join("\n",
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

        int code = ReplayMain.run(new String[] {"--trace", trace.toString(), "--policy", policy.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(code).isZero();
        String[] lines = out.toString(StandardCharsets.UTF_8).trim().split("\n");
        assertThat(lines).filteredOn(l -> l.contains("\"outcome\":\"SOFTWARE_FAULT\"")).hasSize(2);
        assertThat(lines).filteredOn(l -> l.contains("\"outcome\":\"ISOLATED\"")).hasSize(1);
        assertThat(lines).filteredOn(l -> l.startsWith("{\"kind\":\"isolation\"")).singleElement()
                .satisfies(l -> assertThat(l).contains("\"key\":\"c1/n3\"", "\"Total\":[\"d1\"]",
                        "\"LastSeparateTime\":1770811620000"));
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("replayed 4 faults");
    }

    @Test
    void anInvalidPolicyIsRejectedNamingTheField() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.jsonl"), "");
        Path policy = Files.writeString(dir.resolve("p.yaml"), POLICY.replace("fault_threshold: 2",
                "fault_threshold: 51"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ReplayMain.run(new String[] {"--trace", trace.toString(), "--policy", policy.toString()},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("fault_threshold must be between 1 and 50, got 51");
    }
}
