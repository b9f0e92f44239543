package io.falcon.bench.e2e;

import io.falcon.local.DemoFleet.DemoCluster;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * a) Burst intake: jobs INSERTed in multi-row batches within about a second, on 14 queues (one v5e and one v7x
 * cluster, seven topologies each, so that no queue is deeper than the 1,000 positions told exactly). The two clusters
 * never finish a node pool, so each queue's first job holds its slot (Provisioning) and every other job's position is
 * fixed: the k-th job of a queue must show "队列位置 #k,前面有 k-1 个任务". Measured until every row shows that (or a
 * later status); then every job is aborted.
 */
final class BurstStage implements Stage {
    static final double GOAL_JOBS_PER_SECOND = 1000;
    static final Map<String, List<String>> TOPOLOGIES = Map.of(
            "v5e", List.of("2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"),
            "v7x", List.of("2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8", "4x8x8"));
    private static final Set<String> LATER_REASONS =
            Set.of("Provisioning", "ClusterBusy", "WaitingForNode", "Dispatching");

    @Override
    public String name() {
        return "a";
    }

    @Override
    public int jobs(E2eOptions options) {
        return options.burstJobs();
    }

    @Override
    public List<DemoCluster> clusters(E2eOptions options) {
        return List.of(Stage.cluster("burst-v5e", "v5e"), Stage.cluster("burst-v7x", "v7x"));
    }

    @Override
    public void run(E2e e2e, Table table) throws Exception {
        for (DemoCluster c : clusters(e2e.options)) {
            e2e.falcon
                    .fleet()
                    .nodePoolKnobs(c.project(), c.location(), c.name())
                    .neverFinishCreations(true);
        }
        int n = e2e.options.burstJobs();
        int batch = e2e.options.burstBatch();
        String prefix = "e2ea-" + E2eMain.RUN + "-";
        List<String> queues = new ArrayList<>();
        TOPOLOGIES.keySet().stream()
                .sorted()
                .forEach(t -> TOPOLOGIES.get(t).forEach(topo -> queues.add(t + "/" + topo)));
        List<E2e.JobRow> rows = new ArrayList<>();
        Map<String, String> expected = new HashMap<>();
        Map<String, Integer> depth = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String queue = queues.get(i % queues.size());
            String[] tt = queue.split("/");
            String id = prefix + String.format("%05d", i);
            rows.add(new E2e.JobRow(id, "burst", tt[0], tt[1], 60));
            int k = depth.merge(queue, 1, Integer::sum);
            expected.put(id, k == 1 ? "" : "队列位置 #" + k + ",前面有 " + (k - 1) + " 个任务");
        }
        int batches = (n + batch - 1) / batch;
        long spacing = e2e.options.burstSpread().toNanos() / Math.max(1, batches);
        e2e.log(
                "burst: %d jobs in %d multi-row INSERTs over %s on %d queues",
                n, batches, e2e.options.burstSpread(), queues.size());
        Instant first = null;
        Instant lastReturned = null;
        long start = System.nanoTime();
        try (Connection c = e2e.connect()) {
            for (int b = 0; b < batches; b++) {
                long wait = start + b * spacing - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                List<E2e.JobRow> part = rows.subList(b * batch, Math.min(n, (b + 1) * batch));
                lastReturned = e2e.insertBatch(c, part);
                if (first == null) {
                    first = e2e.timeline.insertedAt(part.get(0).id()).orElseThrow();
                }
            }
        }
        e2e.log(
                "burst: INSERTs done in %d ms",
                Duration.between(first, lastReturned).toMillis());
        List<String> ids = rows.stream().map(E2e.JobRow::id).toList();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        Map<String, Instant> shown = new HashMap<>();
        while (System.nanoTime() < deadline && shown.size() < n) {
            for (String id : ids) {
                if (!shown.containsKey(id)) {
                    shownAt(e2e, id, expected.get(id)).ifPresent(at -> shown.put(id, at));
                }
            }
            Thread.sleep(100);
        }
        Latencies perRow = new Latencies();
        Instant last = first;
        for (String id : ids) {
            Instant at = shown.get(id);
            if (at != null) {
                perRow.add(e2e.timeline.insertedAt(id).orElseThrow(), at);
                last = at.isAfter(last) ? at : last;
            }
        }
        double seconds = Duration.between(first, last).toNanos() / 1e9;
        double rate = shown.size() / seconds;
        long wrong = ids.stream().filter(id -> !shown.containsKey(id)).count();
        table.add(new Table.Row(
                "a) burst of " + n + ": INSERT -> row shows its exact position",
                Latencies.fmt(perRow.p50()),
                Latencies.fmt(perRow.p99()),
                ">= 1,000 jobs/s",
                shown.size() == n && rate >= GOAL_JOBS_PER_SECOND ? "yes" : "NO",
                String.format(
                        Locale.ROOT,
                        "all %d shown %.2f s after the first INSERT = %.0f jobs/s; INSERTs took %d ms; %d never showed"
                                + " the expected position",
                        shown.size(),
                        seconds,
                        rate,
                        Duration.between(first, lastReturned).toMillis(),
                        wrong)));
        if (wrong > 0) {
            ids.stream()
                    .filter(id -> !shown.containsKey(id))
                    .limit(5)
                    .forEach(
                            id -> e2e.log("burst: %s expected '%s', last %s", id, expected.get(id), e2e.rows.last(id)));
        }
        e2e.log("burst: rows now %s", e2e.rows.statusCounts(ids));
        int aborted = e2e.abortAll(prefix);
        boolean done = e2e.awaitFinal(ids, Duration.ofMinutes(3));
        e2e.log("burst: aborted %d, all final: %s %s", aborted, done, e2e.rows.statusCounts(ids));
    }

    /** When the row first showed its expected position (or a status past Waiting). */
    private static Optional<Instant> shownAt(E2e e2e, String id, String expected) {
        return e2e.rows
                .first(
                        id,
                        ch -> "Pending".equals(ch.status())
                                        && ch.reason() != null
                                        && (expected.isEmpty()
                                                ? LATER_REASONS.contains(ch.reason())
                                                : "Waiting".equals(ch.reason())
                                                        && ch.message() != null
                                                        && (ch.message().equals(expected)
                                                                || ch.message().startsWith(expected + " (")))
                                || !"Pending".equals(ch.status()))
                .map(RowLog.Change::seenAt);
    }
}
