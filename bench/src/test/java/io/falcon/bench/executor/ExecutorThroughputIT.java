package io.falcon.bench.executor;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A tiny run of the harness, both phases, on a real broker: every job's Kubernetes Job is created and reported. */
class ExecutorThroughputIT {
    @Test
    void aTinyRunCreatesEveryJobInBothPhases() throws Exception {
        ThroughputOptions options = ThroughputOptions.parse(new String[] {
            "--jobs", "6",
            "--baseline-jobs", "6",
            "--clusters", "2",
            "--gke-latency", "0ms",
            "--k8s-latency", "0ms",
            "--poll-interval", "50ms",
            "--phase-timeout", "2m"
        });
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<PhaseResult> results;
        try (EmbeddedKafka kafka = EmbeddedKafka.launch();
                PrintStream progress = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            results = ExecutorThroughput.run(kafka, options, "it", progress);
            ExecutorThroughput.printTable(progress, options, results);
        }

        assertThat(results)
                .extracting(PhaseResult::kind)
                .containsExactly(ThroughputOptions.PhaseKind.BASELINE, ThroughputOptions.PhaseKind.DEFAULTS);
        assertThat(results).allSatisfy(phase -> {
            assertThat(phase.failures()).isEmpty();
            assertThat(phase.jobsCreated()).isEqualTo(6);
            assertThat(phase.commandToJob().count()).isEqualTo(6);
            // each phase's executor carried out its own commands only: one pool and one Job per job
            assertThat(phase.apiCalls()).containsEntry("gke.createNodePool", 6L).containsEntry("k8s.createJob", 6L);
        });
        assertThat(results.get(0).lanes()).isEqualTo(1);
        assertThat(results.get(0).stepThreads()).isEqualTo(1);
        assertThat(results.get(1).lanes()).isGreaterThan(1);
        assertThat(results.get(1).stepThreads()).isGreaterThan(1);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("| (b) defaults (settings catalog)");
    }
}
