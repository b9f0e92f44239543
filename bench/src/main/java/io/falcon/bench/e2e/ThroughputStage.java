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
        boolean done = e2e.awaitFinal(ids, Duration.ofMinutes(Math.max(5, n / 10)));
        e2e.log("throughput (%s): %.1f jobs/s; all final: %s %s", what, rate, done, e2e.rows.statusCounts(ids));
    }
}
