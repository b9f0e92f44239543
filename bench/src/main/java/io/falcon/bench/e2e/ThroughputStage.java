package io.falcon.bench.e2e;

import io.falcon.fleetsim.ApiLatency;
import io.falcon.fleetsim.FleetMilestones.Milestone;
import io.falcon.fleetsim.FleetMilestones.Type;
import io.falcon.local.DemoFleet.DemoCluster;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * t) Throughput from INSERT to Running over several clusters, side by side in one run: the same burst of short jobs
 * with fleet-sim answering at once, then with the APIs' latencies set to real ones ({@code --gke-latency},
 * {@code --k8s-latency}). Each job runs a second; the figure is jobs / (first INSERT -> the last job's pods Running).
 */
final class ThroughputStage implements Stage {
    static final double GOAL_JOBS_PER_SECOND = 50;
    static final List<String> TOPOLOGIES = List.of("2x2", "2x4", "4x4");

    @Override
    public String name() {
        return "t";
    }

    @Override
    public int jobs(E2eOptions options) {
        return 2 * options.throughputJobs();
    }

    @Override
    public List<DemoCluster> clusters(E2eOptions options) {
        return IntStream.rangeClosed(1, options.throughputClusters())
                .mapToObj(i -> Stage.cluster(String.format("tput-%02d", i), "v6e"))
                .toList();
    }

    @Override
    public void run(E2e e2e, Table table) throws Exception {
        E2eOptions o = e2e.options;
        ApiLatency latency = e2e.falcon.fleet().apiLatency();
        phase(e2e, table, "fleet-sim answering at once", "e2et0-");
        latency.gke(o.gkeLatency()).kubernetes(o.k8sLatency());
        try {
            phase(
                    e2e,
                    table,
                    "GKE " + o.gkeLatency().toMillis() + " ms, Kubernetes "
                            + o.k8sLatency().toMillis() + " ms",
                    "e2et1-");
        } finally {
            latency.gke(Duration.ZERO).kubernetes(Duration.ZERO);
        }
    }

    private void phase(E2e e2e, Table table, String what, String tag) throws Exception {
        E2eOptions o = e2e.options;
        int n = o.throughputJobs();
        String prefix = tag + E2eMain.RUN + "-";
        e2e.log(
                "throughput (%s): %d jobs of 1 s over %d v6e clusters x %s",
                what, n, o.throughputClusters(), TOPOLOGIES);
        List<E2e.JobRow> rows = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String id = prefix + String.format("%05d", i);
            rows.add(new E2e.JobRow(id, "actor-" + (i % 8), "v6e", TOPOLOGIES.get(i % TOPOLOGIES.size()), 1.0));
            ids.add(id);
        }
        io.falcon.fleetsim.ApiCalls calls = e2e.falcon.fleet().apiCalls();
        calls.clear();
        CpuAccount.Snapshot cpuBefore = CpuAccount.take();
        Instant firstInsert;
        try (Connection c = e2e.connect()) {
            e2e.insertBatch(c, rows);
            firstInsert = e2e.timeline.insertedAt(ids.get(0)).orElseThrow();
        }
        long deadline =
                System.nanoTime() + Duration.ofMinutes(Math.max(5, n / 10)).toNanos();
        long running = 0;
        while (System.nanoTime() < deadline && running < n) {
            running = e2e.timeline.count(
                    Type.PODS_RUNNING,
                    m -> m.job().filter(j -> j.startsWith(prefix)).isPresent());
            Thread.sleep(200);
        }
        Timeline.Index all = e2e.timeline.index();
        Instant lastRunning = ids.stream()
                .map(id -> all.first(id, Type.PODS_RUNNING))
                .flatMap(Optional::stream)
                .map(Milestone::at)
                .max(Comparator.naturalOrder())
                .orElse(firstInsert);
        double seconds =
                Math.max(0.001, Duration.between(firstInsert, lastRunning).toMillis() / 1000.0);
        double rate = running / seconds;
        boolean latent = !tag.equals("e2et0-");
        table.add(new Table.Row(
                "t) " + n + " jobs, " + o.throughputClusters() + " clusters, " + what + ": INSERT -> Running",
                String.format(Locale.ROOT, "%.1f jobs/s", rate),
                "",
                latent ? String.format(Locale.ROOT, ">= %.0f jobs/s", GOAL_JOBS_PER_SECOND) : "",
                latent ? (rate >= GOAL_JOBS_PER_SECOND ? "yes" : "no") : "",
                running + " of " + n + " running, last " + String.format(Locale.ROOT, "%.1f s", seconds)
                        + " after the first INSERT"));
        breakdown(e2e, all, ids, firstInsert, what);
        callsPerJob(e2e, calls, n, what);
        boolean done = e2e.awaitFinal(ids, Duration.ofMinutes(Math.max(5, n / 10)));
        e2e.log("throughput (%s): %.1f jobs/s; all final: %s %s", what, rate, done, e2e.rows.statusCounts(ids));
        awaitPoolsGone(e2e, prefix, Duration.ofMinutes(Math.max(2, n / 50)));
        // this phase's CPU alone, from the INSERT until its pools are deleted (the stage's table sums both phases)
        java.io.ByteArrayOutputStream cpu = new java.io.ByteArrayOutputStream();
        CpuAccount.print(
                new java.io.PrintStream(cpu, true, java.nio.charset.StandardCharsets.UTF_8),
                "t (" + what + ")",
                cpuBefore,
                CpuAccount.take(),
                n);
        e2e.log("%s", cpu.toString(java.nio.charset.StandardCharsets.UTF_8).stripTrailing());
    }

    /**
     * Waits until every node pool created for this phase's jobs was deleted, so that the next phase's commands do not
     * queue behind this phase's clean-up (its deletions take API latency too) and measure it instead.
     */
    private static void awaitPoolsGone(E2e e2e, String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Timeline.Index all = e2e.timeline.index();
            java.util.Set<String> created = new java.util.HashSet<>();
            java.util.Set<String> deleted = new java.util.HashSet<>();
            for (Milestone m : all.all) {
                String pool = m.cluster() + "/" + m.name();
                if (m.type() == Type.NODE_POOL_CREATED
                        && m.job().filter(j -> j.startsWith(prefix)).isPresent()) {
                    created.add(pool);
                } else if (m.type() == Type.NODE_POOL_DELETED) {
                    deleted.add(pool);
                }
            }
            if (deleted.containsAll(created)) {
                e2e.log("throughput: all %d node pools of the phase deleted", created.size());
                return;
            }
            Thread.sleep(500);
        }
        e2e.log("throughput: not every node pool of the phase was deleted within %s", timeout);
    }

    /**
     * The calls Falcon made to GKE, Compute and the clusters' Kubernetes APIs from the INSERT until every job ran, per
     * job and by kind (fleet-sim's own controllers left out): what each job costs the executor's clients and informers.
     */
    private static void callsPerJob(E2e e2e, io.falcon.fleetsim.ApiCalls calls, int jobs, String what) {
        StringBuilder out = new StringBuilder("throughput (" + what + "), API calls per job until all ran:");
        calls.by(caller -> !io.falcon.fleetsim.ApiCalls.SIM_USER_AGENT.equals(caller)).stream()
                .collect(java.util.stream.Collectors.groupingBy(
                        io.falcon.fleetsim.ApiCalls.Call::operation,
                        java.util.TreeMap::new,
                        java.util.stream.Collectors.summingLong(calls::count)))
                .forEach((operation, count) -> out.append(
                        String.format(Locale.ROOT, "%n  %-70s %8d  %6.2f", operation, count, count / (double) jobs)));
        e2e.log("%s", out);
    }

    /**
     * Where the time went: for each milestone of a job's way to Running, p50 and max of (first INSERT -> it) and of
     * the hop from the milestone before, logged beside the table.
     */
    private static void breakdown(E2e e2e, Timeline.Index all, List<String> ids, Instant firstInsert, String what) {
        List<Type> way = List.of(Type.NODE_POOL_CREATED, Type.NODES_READY, Type.K8S_JOB_POSTED, Type.PODS_RUNNING);
        StringBuilder out = new StringBuilder("throughput (" + what + "), per job:");
        for (int i = 0; i < way.size(); i++) {
            Type type = way.get(i);
            Latencies since = new Latencies();
            Latencies hop = new Latencies();
            for (String id : ids) {
                Optional<Milestone> at = all.first(id, type);
                if (at.isEmpty()) {
                    continue;
                }
                since.add(firstInsert, at.get().at());
                Instant before = i == 0
                        ? e2e.timeline.insertedAt(id).orElse(firstInsert)
                        : all.first(id, way.get(i - 1))
                                .map(Milestone::at)
                                .orElse(at.get().at());
                hop.add(before, at.get().at());
            }
            out.append(String.format(
                    Locale.ROOT,
                    "%n  %-18s n=%d  since first INSERT p50 %s max %s  hop p50 %s max %s",
                    type,
                    since.size(),
                    Latencies.fmt(since.p50()),
                    Latencies.fmt(since.max()),
                    Latencies.fmt(hop.p50()),
                    Latencies.fmt(hop.max())));
        }
        e2e.log("%s", out);
    }
}
