package io.falcon.bench.e2e;

import io.falcon.fleetsim.FleetMilestones.Milestone;
import io.falcon.fleetsim.FleetMilestones.Type;
import io.falcon.local.DemoFleet.DemoCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

/**
 * Jobs INSERTed one by one at a steady rate (v6e, round-robin over three topologies) onto enough clusters that a job
 * normally finds a queue of its topology free; each runs a short while and succeeds. While it runs, a minimal poller
 * does what the design's Task Poller does: every N seconds it SELECTs the rows submitted since its last look, and
 * notes when it picked each up.
 */
final class SteadyRun {
    static final List<String> TOPOLOGIES = List.of("2x2", "2x4", "4x4");
    static final String TPU = "v6e";

    final List<String> ids = new ArrayList<>();
    final Map<String, String> topology = new HashMap<>();
    final Map<String, Instant> pickedUp = new ConcurrentHashMap<>();
    Duration took;
    boolean allFinal;
    Duration lateness = Duration.ZERO;

    static List<DemoCluster> clusters(E2eOptions options) {
        return IntStream.rangeClosed(1, options.steadyClusters())
                .mapToObj(i -> Stage.cluster(String.format("steady-%02d", i), TPU))
                .toList();
    }

    static SteadyRun run(E2e e2e) throws Exception {
        SteadyRun run = new SteadyRun();
        E2eOptions o = e2e.options;
        int n = (int) Math.round(o.rate() * o.steadyFor().toMillis() / 1000.0);
        String prefix = "e2eb-" + E2eMain.RUN + "-";
        e2e.log(
                "steady: %d jobs at %.0f/s over %d v6e clusters x %s, each running %.1f s; poller every %s",
                n, o.rate(), o.steadyClusters(), TOPOLOGIES, o.steadyRunSeconds(), o.pollEvery());
        AtomicBoolean polling = new AtomicBoolean(true);
        Thread poller = new Thread(() -> run.poll(e2e, prefix, polling), "e2e-baseline-poller");
        poller.setDaemon(true);
        long start = System.nanoTime();
        poller.start();
        try (Connection c = e2e.connect()) {
            long periodNanos = (long) (1e9 / o.rate());
            for (int i = 0; i < n; i++) {
                long due = start + i * periodNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } else if (-wait > run.lateness.toNanos()) {
                    run.lateness = Duration.ofNanos(-wait);
                }
                String id = prefix + String.format("%05d", i);
                String topo = TOPOLOGIES.get(i % TOPOLOGIES.size());
                e2e.insert(c, new E2e.JobRow(id, "actor-" + (i % 5), TPU, topo, o.steadyRunSeconds()));
                run.ids.add(id);
                run.topology.put(id, topo);
            }
        }
        e2e.log(
                "steady: %d INSERTed in %.1f s (latest INSERT %d ms behind schedule); waiting for them to end",
                n, (System.nanoTime() - start) / 1e9, run.lateness.toMillis());
        run.allFinal = e2e.awaitFinal(run.ids, Duration.ofSeconds(Math.max(180, n / 4)));
        run.took = Duration.ofNanos(System.nanoTime() - start);
        // one more poll period, so that the poller has looked after the last INSERT
        Thread.sleep(o.pollEvery().toMillis() + 200);
        polling.set(false);
        poller.interrupt();
        poller.join(5_000);
        e2e.log("steady: done in %.1f s, final rows %s", run.took.toMillis() / 1000.0, e2e.rows.statusCounts(run.ids));
        return run;
    }

    /** The baseline poller: rows submitted since the last look (by created_at, as a poller marking its picks would). */
    private void poll(E2e e2e, String prefix, AtomicBoolean polling) {
        long every = e2e.options.pollEvery().toNanos();
        long next = System.nanoTime() + every;
        java.sql.Timestamp watermark = new java.sql.Timestamp(0);
        try (Connection c = e2e.connect();
                // the rows submitted since the last look; not "status = 'Pending'": a row Falcon has already moved on
                // would still be Pending without Falcon, and is one this poller has not picked up yet
                PreparedStatement select = c.prepareStatement(
                        "SELECT id, created_at FROM jobs WHERE id LIKE ? AND created_at >= ? ORDER BY created_at")) {
            while (polling.get()) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                next += every;
                select.setString(1, prefix + "%");
                select.setTimestamp(2, watermark);
                java.sql.Timestamp newest = watermark;
                try (ResultSet rs = select.executeQuery()) {
                    Instant at = Instant.now();
                    while (rs.next()) {
                        pickedUp.putIfAbsent(rs.getString(1), at);
                        if (rs.getTimestamp(2).after(newest)) {
                            newest = rs.getTimestamp(2);
                        }
                    }
                }
                watermark = newest;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.sql.SQLException e) {
            e2e.log("poller failed: %s", e);
        }
    }

    /** The queue a job ran in: the cluster its Kubernetes Job was posted to, and its topology. */
    Optional<String> queueOf(Timeline.Index all, String id) {
        return all.first(id, Type.K8S_JOB_POSTED).map(m -> m.cluster() + "/" + topology.get(id));
    }

    /**
     * INSERT -> the job's first CreateNodePool, for the jobs that found their queue free at INSERT (no earlier job of
     * the queue still acquiring: INSERTed before it and without its pods running yet); {@code queued} counts the rest.
     */
    Latencies firstHop(E2e e2e, Timeline.Index all, int[] queued) {
        Map<String, List<String>> byQueue = new HashMap<>();
        for (String id : ids) {
            queueOf(all, id)
                    .ifPresent(q ->
                            byQueue.computeIfAbsent(q, k -> new ArrayList<>()).add(id));
        }
        Latencies hop = new Latencies();
        for (List<String> queue : byQueue.values()) {
            for (String j : queue) {
                Instant insertJ = e2e.timeline.insertedAt(j).orElseThrow();
                Optional<Milestone> created = all.first(j, Type.NODE_POOL_CREATED);
                if (created.isEmpty()) {
                    continue; // took a pool that another job left
                }
                boolean busy = queue.stream()
                        .filter(k -> !k.equals(j))
                        .anyMatch(k -> e2e.timeline.insertedAt(k).orElseThrow().isBefore(insertJ)
                                && all.first(k, Type.PODS_RUNNING)
                                        .map(r -> r.at().isAfter(insertJ))
                                        .orElse(true));
                if (busy) {
                    queued[0]++;
                } else {
                    hop.add(insertJ, created.get().at());
                }
            }
        }
        return hop;
    }
}
