package io.falcon.bench.executor;

import io.falcon.events.executor.SupplyMode;
import io.falcon.local.LocalFalcon;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The command line of {@code bench/executor-throughput}.
 *
 * @param jobs jobs of the defaults phase
 * @param baselineJobs jobs of the baseline phase: one command after another takes about a second of GKE calls per
 *     job, so the baseline gets fewer jobs than the defaults to end in minutes
 * @param lanes command lanes of the defaults phase instead of the catalog's default
 * @param stepThreads pool step threads of the defaults phase instead of the catalog's default
 * @param partitions partitions of the command and event topics (LocalFalcon's by default)
 * @param phaseTimeout how long a phase may take before it is reported with the jobs it did not finish
 */
record ThroughputOptions(
        int jobs,
        int baselineJobs,
        int clusters,
        Duration gkeLatency,
        Duration k8sLatency,
        Duration pollInterval,
        OptionalInt lanes,
        OptionalInt stepThreads,
        int partitions,
        SupplyMode supply,
        List<PhaseKind> phases,
        Duration phaseTimeout) {

    /** The phases a run may have, in the order they run. */
    enum PhaseKind {
        /** One command after another: 1 command lane, 1 pool step thread. */
        BASELINE("baseline"),
        /** The executor as it ships: the catalog's default lanes and step threads (or the overrides). */
        DEFAULTS("defaults");

        final String wireName;

        PhaseKind(String wireName) {
            this.wireName = wireName;
        }

        static PhaseKind of(String name) {
            for (PhaseKind kind : values()) {
                if (kind.wireName.equals(name.strip())) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("no phase " + name + "; phases: baseline, defaults");
        }
    }

    static final String USAGE = "bench/executor-throughput [--jobs 500] [--baseline-jobs 100] [--clusters 8]"
            + " [--gke-latency 300ms] [--k8s-latency 50ms] [--poll-interval 200ms] [--lanes N] [--step-threads N]"
            + " [--partitions " + LocalFalcon.PARTITIONS + "] [--supply on-demand|reservation|flex-start]"
            + " [--phases baseline,defaults] [--phase-timeout 10m]";

    ThroughputOptions {
        phases = List.copyOf(phases);
        if (jobs < 1 || baselineJobs < 1 || clusters < 1 || partitions < 1) {
            throw new IllegalArgumentException("jobs, baseline jobs, clusters and partitions must be at least 1");
        }
        if (lanes.isPresent() && lanes.getAsInt() < 1 || stepThreads.isPresent() && stepThreads.getAsInt() < 1) {
            throw new IllegalArgumentException("lanes and step threads must be at least 1");
        }
    }

    static ThroughputOptions parse(String[] args) {
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--help") || !name.startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: " + USAGE);
            }
            given.put(name.substring(2), args[++i]);
        }
        List<String> known = List.of(
                "jobs",
                "baseline-jobs",
                "clusters",
                "gke-latency",
                "k8s-latency",
                "poll-interval",
                "lanes",
                "step-threads",
                "partitions",
                "supply",
                "phases",
                "phase-timeout");
        for (String name : given.keySet()) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown option --" + name + "; usage: " + USAGE);
            }
        }
        String supply = given.getOrDefault("supply", SupplyMode.ON_DEMAND.wireName());
        return new ThroughputOptions(
                Integer.parseInt(given.getOrDefault("jobs", "500")),
                Integer.parseInt(given.getOrDefault("baseline-jobs", "100")),
                Integer.parseInt(given.getOrDefault("clusters", "8")),
                duration(given.getOrDefault("gke-latency", "300ms")),
                duration(given.getOrDefault("k8s-latency", "50ms")),
                duration(given.getOrDefault("poll-interval", "200ms")),
                optionalInt(given, "lanes"),
                optionalInt(given, "step-threads"),
                Integer.parseInt(given.getOrDefault("partitions", Integer.toString(LocalFalcon.PARTITIONS))),
                SupplyMode.fromWire(supply).orElseThrow(() -> new IllegalArgumentException("no supply mode " + supply)),
                java.util.Arrays.stream(given.getOrDefault("phases", "baseline,defaults")
                                .split(","))
                        .map(PhaseKind::of)
                        .distinct()
                        .sorted()
                        .toList(),
                duration(given.getOrDefault("phase-timeout", "10m")));
    }

    /** The CloudLatency the fakes answer with. */
    CloudLatency latency() {
        return new CloudLatency(gkeLatency, k8sLatency);
    }

    private static OptionalInt optionalInt(Map<String, String> given, String name) {
        return given.containsKey(name) ? OptionalInt.of(Integer.parseInt(given.get(name))) : OptionalInt.empty();
    }

    /** 300ms, 5s, 2m or ISO-8601. */
    static Duration duration(String text) {
        String t = text.strip();
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        return Duration.parse(t.startsWith("P") ? t : "PT" + t);
    }
}
