package io.falcon.bench.executor;

import io.falcon.embedded.EmbeddedKafka;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/**
 * The executor's own throughput ({@code bench/executor-throughput}): the real command loop, node-pool manager, job
 * driver and event sink on a real (embedded) Kafka broker, with GKE and Kubernetes faked in memory at realistic
 * latencies and no simulated cluster's CPU. The harness plays the scheduler: a burst of EnsureNodePool commands over
 * the clusters, each job's EnsureJob on its NodePoolReady; the figure is jobs / (first command -> last Job created).
 * Phases side by side: (a) one command after another (1 lane, 1 step thread), (b) the settings catalog's defaults.
 */
public final class ExecutorThroughputMain {
    private ExecutorThroughputMain() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        ThroughputOptions options;
        try {
            options = ThroughputOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        String runId = Long.toString(System.currentTimeMillis() / 1000 % 2_000_000_000L, 36);
        out.printf(
                "bench/executor-throughput: %d jobs (baseline %d) over %d %s clusters x %s, supply %s; GKE %d ms per"
                        + " call, Kubernetes %d ms per request; poll interval %d ms; %d partitions%n",
                options.jobs(),
                options.baselineJobs(),
                options.clusters(),
                PlannedJob.TPU_TYPE,
                PlannedJob.TOPOLOGIES,
                options.supply().wireName(),
                options.gkeLatency().toMillis(),
                options.k8sLatency().toMillis(),
                options.pollInterval().toMillis(),
                options.partitions());
        List<PhaseResult> results;
        try (EmbeddedKafka kafka = EmbeddedKafka.launch()) {
            results = ExecutorThroughput.run(kafka, options, runId, out);
        }
        out.println();
        out.printf(
                "bench/executor-throughput %s: %d cores, Java %s%n",
                Instant.now(), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        ExecutorThroughput.printTable(out, options, results);
        out.println();
        ExecutorThroughput.printBreakdown(out, results);
        // the broker's and clients' leftover threads must not keep the JVM up
        System.exit(results.stream().allMatch(PhaseResult::complete) ? 0 : 1);
    }
}
