package io.falcon.bench;

import io.falcon.events.ClusterStatus;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.scheduler.core.ClusterChoice;
import io.falcon.scheduler.core.Decisions;
import io.falcon.scheduler.core.JobRequest;
import io.falcon.scheduler.core.QueueKey;
import io.falcon.scheduler.core.Scheduler;
import io.falcon.scheduler.core.WaitQueue;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The scheduler's hot decisions with a large backlog: 100k waiting jobs from 1k actors. pick-job must stay
 * O(log n); a submission (validation, cluster choice, enqueue, position messages) must not scan the backlog.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SchedulerBenchmark {
    static final int WAITING = 100_000;
    static final int ACTORS = 1_000;
    static final String SPEC = "{\"image\":\"train:1\",\"command\":[\"python\",\"train.py\"]}";

    /** One queue holding the whole backlog. */
    @State(Scope.Thread)
    public static class Backlog {
        WaitQueue queue;
        long seq;

        @Setup(Level.Iteration)
        public void fill() {
            queue = new WaitQueue();
            for (seq = 0; seq < WAITING; seq++) {
                queue.add(new WaitQueue.Entry(seq, "j" + seq, "actor" + (seq % ACTORS), "n"));
            }
        }
    }

    /** Pick the next job and requeue one, so the backlog stays at 100k. */
    @Benchmark
    public WaitQueue.Entry pickNextJob(Backlog backlog) {
        WaitQueue.Entry picked = backlog.queue.pollNext().orElseThrow();
        backlog.queue.add(new WaitQueue.Entry(backlog.seq++, "j" + backlog.seq, picked.actor(), "n"));
        return picked;
    }

    /** The exact positions of the first 100 waiting jobs, as refreshed after every queue change. */
    @Benchmark
    public List<WaitQueue.Entry> positionsOfFirst100(Backlog backlog) {
        return backlog.queue.pickOrder(100);
    }

    /** Aging interval of the prioritized backlog (the default of falcon.scheduler.priority-aging). */
    static final long AGING_MS = 600_000;

    /**
     * The same backlog with priorities 0 to 9 spread over it and one job submitted per second, so that aging mixes
     * the levels (a job 10 minutes older ranks like one a level higher).
     */
    @State(Scope.Thread)
    public static class PrioritizedBacklog {
        WaitQueue queue;
        long seq;

        @Setup(Level.Iteration)
        public void fill() {
            queue = new WaitQueue();
            for (seq = 0; seq < WAITING; seq++) {
                queue.add(entry(seq));
            }
        }

        WaitQueue.Entry entry(long n) {
            // 7 is prime to 10 and to ACTORS' factors, so each actor gets every priority level
            int priority = (int) ((n * 7) % 10);
            return WaitQueue.Entry.of(n * 1000, priority, AGING_MS, "j" + n, "actor" + (n % ACTORS), "n");
        }
    }

    /** pick-job with priorities and aging: still O(log n), the rank is fixed when a job is queued. */
    @Benchmark
    public WaitQueue.Entry pickNextJobWithPriorities(PrioritizedBacklog backlog) {
        WaitQueue.Entry picked = backlog.queue.pollNext().orElseThrow();
        backlog.queue.add(backlog.entry(backlog.seq++));
        return picked;
    }

    @Benchmark
    public List<WaitQueue.Entry> positionsOfFirst100WithPriorities(PrioritizedBacklog backlog) {
        return backlog.queue.pickOrder(100);
    }

    /** A scheduler owning 8 clusters x 2 topologies with the backlog spread over them. */
    @State(Scope.Thread)
    public static class Fleet {
        Scheduler scheduler;
        List<ClusterRow> clusters;
        Instant now = Instant.parse("2026-12-02T10:00:00Z");
        long next;

        @Setup(Level.Iteration)
        public void fill() {
            scheduler = new Scheduler();
            clusters = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                ClusterRow row = new ClusterRow(
                        "c" + c,
                        "edge-" + c,
                        "p" + c,
                        "us-central1",
                        "v6e",
                        "b",
                        Optional.empty(),
                        ClusterStatus.ACTIVE,
                        Optional.empty());
                clusters.add(row);
                scheduler.clusterUpserted(row, now);
            }
            for (next = 0; next < WAITING; next++) {
                scheduler.submit(request(next), now);
            }
        }

        /** Submitted one millisecond apart, so a new submission joins the back of its queue, as in reality. */
        JobRequest request(long n) {
            return new JobRequest(
                    "job-" + n,
                    "actor" + (n % ACTORS),
                    "name",
                    "v6e",
                    n % 2 == 0 ? "2x2" : "2x4",
                    SPEC,
                    Optional.empty(),
                    Optional.empty(),
                    now.minusSeconds(WAITING).plusMillis(n));
        }
    }

    /** Cluster choice alone over the 8 candidates, with live queue depths. */
    @Benchmark
    public ClusterChoice.Result chooseCluster(Fleet fleet) {
        return ClusterChoice.choose(
                "v6e",
                Optional.empty(),
                fleet.clusters,
                c -> false,
                c -> fleet.scheduler.queueDepth(new QueueKey(c.id(), "2x2")),
                c -> java.util.OptionalDouble.empty(),
                java.time.Instant.EPOCH);
    }

    /** A whole submission and its abort: validation, choice, enqueue, position messages, removal. */
    @Benchmark
    public Decisions submitThenAbort(Fleet fleet) {
        long n = fleet.next++;
        fleet.scheduler.submit(fleet.request(n), fleet.now);
        return fleet.scheduler.abort("job-" + n, fleet.now);
    }
}
