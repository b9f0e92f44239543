package io.falcon.bench.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The command line of {@code bench/e2e}; defaults are the sizes. */
record E2eOptions(
        List<String> stages,
        int burstJobs,
        int burstBatch,
        Duration burstSpread,
        double rate,
        Duration steadyFor,
        double steadyRunSeconds,
        int steadyClusters,
        int handoffJobs,
        int reuseJobs,
        double reuseRunSeconds,
        Duration pollEvery,
        Duration simTick,
        Duration poolDelay,
        Duration rowPoll,
        Optional<Path> dataDir,
        Map<String, Map<String, String>> settings,
        int throughputJobs,
        int throughputClusters,
        Duration gkeLatency,
        Duration k8sLatency) {

    static final String USAGE = "bench/e2e [--stages a,b,b2,c,d] [--burst-jobs 10000] [--burst-batch 500]"
            + " [--burst-spread 1s] [--rate 50] [--steady-for 20s] [--steady-run-seconds 1] [--steady-clusters 12]"
            + " [--handoff-jobs 500] [--reuse-jobs 200] [--reuse-run-seconds 1] [--poll-every 5s] [--sim-tick 20ms]"
            + " [--pool-delay 0ms] [--row-poll 5ms] [--throughput-jobs 200] [--throughput-clusters 8]"
            + " [--gke-latency 300ms] [--k8s-latency 50ms] [--data-dir DIR] [--set COMPONENT:KEY=VALUE ...]";

    static E2eOptions parse(String[] args) {
        Map<String, String> o = new LinkedHashMap<>();
        Map<String, Map<String, String>> settings = new HashMap<>();
        if (List.of(args).contains("--help")) {
            throw new IllegalArgumentException("usage: " + USAGE);
        }
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("bad argument " + a + "; usage: " + USAGE);
            }
            String v = args[++i];
            if (a.equals("--set")) {
                int colon = v.indexOf(':');
                int eq = v.indexOf('=');
                if (colon < 1 || eq < colon) {
                    throw new IllegalArgumentException(
                            "--set takes COMPONENT:KEY=VALUE, e.g." + " executor:falcon.executor.poll-interval=50ms");
                }
                settings.computeIfAbsent(v.substring(0, colon), k -> new HashMap<>())
                        .put(v.substring(colon + 1, eq), v.substring(eq + 1));
            } else {
                o.put(a.substring(2), v);
            }
        }
        List<String> known = List.of(
                "stages",
                "burst-jobs",
                "burst-batch",
                "burst-spread",
                "rate",
                "steady-for",
                "steady-run-seconds",
                "steady-clusters",
                "handoff-jobs",
                "reuse-jobs",
                "reuse-run-seconds",
                "poll-every",
                "sim-tick",
                "pool-delay",
                "row-poll",
                "throughput-jobs",
                "throughput-clusters",
                "gke-latency",
                "k8s-latency",
                "data-dir");
        for (String k : o.keySet()) {
            if (!known.contains(k)) {
                throw new IllegalArgumentException("unknown option --" + k + "; usage: " + USAGE);
            }
        }
        return new E2eOptions(
                new ArrayList<>(List.of(o.getOrDefault("stages", "a,b,b2,c,d").split(","))),
                Integer.parseInt(o.getOrDefault("burst-jobs", "10000")),
                Integer.parseInt(o.getOrDefault("burst-batch", "500")),
                duration(o.getOrDefault("burst-spread", "1s")),
                Double.parseDouble(o.getOrDefault("rate", "50")),
                duration(o.getOrDefault("steady-for", "20s")),
                Double.parseDouble(o.getOrDefault("steady-run-seconds", "1")),
                Integer.parseInt(o.getOrDefault("steady-clusters", "12")),
                Integer.parseInt(o.getOrDefault("handoff-jobs", "500")),
                Integer.parseInt(o.getOrDefault("reuse-jobs", "200")),
                Double.parseDouble(o.getOrDefault("reuse-run-seconds", "1")),
                duration(o.getOrDefault("poll-every", "5s")),
                duration(o.getOrDefault("sim-tick", "20ms")),
                duration(o.getOrDefault("pool-delay", "0ms")),
                duration(o.getOrDefault("row-poll", "5ms")),
                Optional.ofNullable(o.get("data-dir")).map(Path::of),
                settings,
                Integer.parseInt(o.getOrDefault("throughput-jobs", "200")),
                Integer.parseInt(o.getOrDefault("throughput-clusters", "8")),
                duration(o.getOrDefault("gke-latency", "300ms")),
                duration(o.getOrDefault("k8s-latency", "50ms")));
    }

    /** 500ms, 5s, 2m or ISO-8601. */
    static Duration duration(String text) {
        String t = text.strip();
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        return Duration.parse(t.startsWith("P") ? t : "PT" + t);
    }
}
