package io.falcon.bench.e2e;

import io.falcon.fleetsim.FleetMilestones.Milestone;
import io.falcon.fleetsim.FleetMilestones.Type;
import io.falcon.local.DemoFleet.DemoCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * b2) Slot hand-off: a backlog on four queues of jobs that run for an hour, so each queue's slot passes from job to
 * job only when the holder's pods run (no pool is ever handed over); measured from the holder's pods Running to the
 * next job's CreateNodePool. Then every job is aborted.
 */
final class HandoffStage implements Stage {
    static final double GOAL_MS = 100;

    @Override
    public String name() {
        return "b2";
    }

    @Override
    public int jobs(E2eOptions options) {
        return options.handoffJobs();
    }

    @Override
    public List<DemoCluster> clusters(E2eOptions options) {
        return QueueRun.clusters();
    }

    @Override
    public void run(E2e e2e, Table table) throws Exception {
        int n = e2e.options.handoffJobs();
        String prefix = "e2eh-" + E2eMain.RUN + "-";
        e2e.log("hand-off: %d jobs on 4 queues (2 v5p clusters x %s), running 1 h each", n, QueueRun.TOPOLOGIES);
        QueueRun run = QueueRun.insert(e2e, prefix, n, 3600);
        long deadline =
                System.nanoTime() + Duration.ofMinutes(Math.max(3, n / 50)).toNanos();
        long running = 0;
        while (System.nanoTime() < deadline) {
            running = e2e.timeline.count(
                    Type.PODS_RUNNING,
                    m -> m.job().filter(j -> j.startsWith(prefix)).isPresent());
            if (running >= n) {
                break;
            }
            Thread.sleep(200);
        }
        Timeline.Index all = e2e.timeline.index();
        Instant lastRunning = run.ids.stream()
                .map(id -> all.first(id, Type.PODS_RUNNING))
                .flatMap(Optional::stream)
                .map(Milestone::at)
                .max(Comparator.naturalOrder())
                .orElse(run.firstInsert);
        e2e.log(
                "hand-off: %d of %d running after %.1f s",
                running, n, Duration.between(run.firstInsert, lastRunning).toMillis() / 1000.0);

        Map<String, List<String>> byQueue = new HashMap<>();
        for (String id : run.ids) {
            all.first(id, Type.NODE_POOL_CREATED)
                    .ifPresent(c -> byQueue.computeIfAbsent(
                                    c.cluster() + "/" + run.topology.get(id), k -> new ArrayList<>())
                            .add(id));
        }
        Latencies handoff = new Latencies();
        Latencies grantedToRunning = new Latencies();
        for (List<String> queue : byQueue.values()) {
            List<Milestone> creates = new ArrayList<>();
            List<Milestone> runs = new ArrayList<>();
            for (String id : queue) {
                all.first(id, Type.NODE_POOL_CREATED).ifPresent(creates::add);
                all.first(id, Type.PODS_RUNNING).ifPresent(runs::add);
                all.first(id, Type.NODE_POOL_CREATED)
                        .ifPresent(c ->
                                all.first(id, Type.PODS_RUNNING).ifPresent(r -> grantedToRunning.add(c.at(), r.at())));
            }
            creates.sort(Comparator.comparing(Milestone::at));
            runs.sort(Comparator.comparing(Milestone::at));
            for (Milestone create : creates) {
                String j = create.job().orElseThrow();
                Optional<Milestone> released = runs.stream()
                        .filter(r -> !r.job().orElseThrow().equals(j) && !r.at().isAfter(create.at()))
                        .reduce((a, b) -> b);
                if (released.isEmpty()) {
                    continue; // the queue's first job
                }
                Instant releasedAt = released.get().at();
                boolean waiting = e2e.timeline.insertedAt(j).orElseThrow().isBefore(releasedAt);
                boolean firstAfter =
                        creates.stream().noneMatch(c -> c.at().isAfter(releasedAt) && c.at().isBefore(create.at()));
                if (waiting && firstAfter) {
                    handoff.add(releasedAt, create.at());
                }
            }
        }
        table.latency(
                "b2) holder's pods Running -> next job's CreateNodePool",
                handoff,
                GOAL_MS,
                "; " + n + " jobs on 4 queues");
        table.latency("b2) (info) CreateNodePool -> own pods Running", grantedToRunning, Double.NaN, "");
        double seconds = Duration.between(run.firstInsert, lastRunning).toMillis() / 1000.0;
        table.add(new Table.Row(
                "b2) (info) " + n + " jobs on 4 queues: first INSERT -> last pods Running",
                String.format(Locale.ROOT, "%.1f s", seconds),
                "",
                "",
                "",
                running + " of " + n + " running; " + String.format(Locale.ROOT, "%.1f jobs/s", running / seconds)));
        int aborted = e2e.abortAll(prefix);
        boolean done = e2e.awaitFinal(run.ids, Duration.ofMinutes(3));
        e2e.log("hand-off: aborted %d; all final: %s %s", aborted, done, e2e.rows.statusCounts(run.ids));
    }
}
