package io.falcon.bench.executor;

import java.time.Duration;
import java.util.Map;

/**
 * What one phase measured.
 *
 * @param jobsCreated jobs whose Kubernetes Job was created and reported (JobSubmitted)
 * @param failures what the executor reported for the jobs that failed, by job id
 * @param span first command produced -> the last Job created
 * @param commandToJob per job: its EnsureNodePool produced -> its Kubernetes Job created
 * @param commandToPoolReady per job: its EnsureNodePool produced -> its NodePoolReady read by the harness
 * @param ensureJobToJob per job: its EnsureJob produced -> its Kubernetes Job created
 * @param cpu CPU time used from the first command produced to the last JobSubmitted read
 * @param apiCalls calls the executor made to the fake GKE and Kubernetes APIs, by kind
 */
record PhaseResult(
        ThroughputOptions.PhaseKind kind,
        int lanes,
        int stepThreads,
        int jobs,
        int jobsCreated,
        Map<String, String> failures,
        Duration span,
        Percentiles commandToJob,
        Percentiles commandToPoolReady,
        Percentiles ensureJobToJob,
        CpuSample cpu,
        Map<String, Long> apiCalls) {

    PhaseResult {
        failures = Map.copyOf(failures);
        apiCalls = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(apiCalls)); // printed by name
    }

    boolean complete() {
        return jobsCreated == jobs;
    }

    double jobsPerSecond() {
        return jobsCreated / Math.max(1e-3, span.toNanos() / 1e9);
    }

    /** CPU milliseconds per created job (per planned job when none was created). */
    double processCpuMillisPerJob() {
        return cpu.processNanos() / 1e6 / Math.max(1, jobsCreated);
    }

    double executorCpuMillisPerJob() {
        return cpu.executorThreadNanos() / 1e6 / Math.max(1, jobsCreated);
    }
}
