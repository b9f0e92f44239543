package io.falcon.bench;

import io.falcon.events.ClusterStatus;
import io.falcon.events.Meta;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.StartEstimate;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.scheduler.core.Decisions;
import io.falcon.scheduler.core.JobRequest;
import io.falcon.scheduler.core.Scheduler;
import io.falcon.scheduler.core.SchedulerSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;

/**
 * How good the start-time estimates are: the real scheduler core on a simulated clock, with an executor that
 * answers after the delays of a workload (pool creation per cluster and supply mode, Job submission, run time), and
 * every waiting job's estimates compared with when its pods actually ran.
 *
 * <p>Usage: {@code bench/run io.falcon.bench.StartEstimateAccuracy [jobs] [seed]} (defaults 3000, 1). Prints, for
 * the first estimate each waiting job got and for the last one before it started: how many, p50 and p90 of |middle
 * of the interval - actual start|, and the share of actual starts inside the interval.
 *
 * <p>The workload: two v6e clusters (c1 with a reservation, c2 without), topologies 2x4 and 4x4, four actors, one
 * job in five with a priority from 1 to 5, arrivals a Poisson process (mean 2.2 min, so the four queues hold a few
 * jobs each). Pool creation takes a lognormal time whose median depends on the cluster and supply mode
 * (reservation 4 min, on-demand 6 min, flex-start 8 min; sigma 0.35), the Kubernetes Job 10-60 s to be created and
 * 10-90 s more for its pods to run, and the job 5-120 min; a finished job's pool goes to the next job of its queue
 * (reuse), so slot holds are a mix of creations and reuses, as in production.
 */
public final class StartEstimateAccuracy {
    private static final Instant T0 = Instant.parse("2026-12-02T00:00:00Z");
    private static final Duration TICK = Duration.ofSeconds(10);

    private final Random rnd;
    private final Scheduler scheduler = new Scheduler(SchedulerSettings.defaults());
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final Set<String> answered = new HashSet<>();
    private final Map<String, StartEstimate> firstEstimate = new HashMap<>();
    private final Map<String, StartEstimate> lastEstimate = new HashMap<>();
    private final Map<String, Instant> started = new HashMap<>();
    private final Set<String> finished = new HashSet<>();
    /** The cluster each job was last told it waits on, and the jobs that moved to another while waiting. */
    private final Map<String, String> waitingOn = new HashMap<>();

    private final Set<String> moved = new HashSet<>();
    private long order;
    private Instant now = T0;

    private record Event(Instant at, long order, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = at.compareTo(other.at);
            return byTime != 0 ? byTime : Long.compare(order, other.order);
        }
    }

    private StartEstimateAccuracy(long seed) {
        rnd = new Random(seed);
    }

    public static void main(String[] args) {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
        new StartEstimateAccuracy(seed).run(jobs);
    }

    private void at(Instant when, Runnable action) {
        events.add(new Event(when, order++, action));
    }

    private void run(int jobs) {
        apply(scheduler.clusterUpserted(cluster("c1", Optional.of("r1")), now));
        apply(scheduler.clusterUpserted(cluster("c2", Optional.empty()), now));
        Instant arrival = T0;
        for (int i = 0; i < jobs; i++) {
            arrival = arrival.plusMillis((long) (-Math.log(1 - rnd.nextDouble()) * 132_000));
            JobRequest request = request(i, arrival);
            at(arrival, () -> apply(scheduler.submit(request, now)));
        }
        Instant lastArrival = arrival;
        at(T0, new Runnable() {
            @Override
            public void run() {
                apply(scheduler.tick(now));
                if (now.isBefore(lastArrival) || finished.size() < jobs) {
                    at(now.plus(TICK), this);
                }
            }
        });
        while (!events.isEmpty() && now.isBefore(lastArrival.plus(Duration.ofDays(7)))) {
            Event next = events.poll();
            now = next.at();
            next.action().run();
        }
        report(jobs);
    }

    private JobRequest request(int i, Instant submittedAt) {
        String topology = rnd.nextInt(3) == 0 ? "4x4" : "2x4";
        Optional<String> supply = switch (rnd.nextInt(4)) {
            case 0 -> Optional.of("on-demand");
            case 1 -> Optional.of("flex-start");
            default -> Optional.empty();
        };
        JobRequest request = new JobRequest(
                "job-" + i,
                "actor-" + rnd.nextInt(4),
                "n" + i,
                "v6e",
                topology,
                "{\"image\":\"train:1\",\"command\":[\"python\"]}",
                supply,
                Optional.of(7200L),
                submittedAt);
        return rnd.nextInt(5) == 0 ? request.withPriority(1 + rnd.nextInt(5)) : request;
    }

    private static ClusterRow cluster(String id, Optional<String> reservation) {
        return new ClusterRow(
                id,
                "edge-" + id,
                "p-" + id,
                "us-central1",
                "v6e",
                "b",
                reservation,
                ClusterStatus.ACTIVE,
                Optional.empty());
    }

    private void apply(Decisions decisions) {
        for (TaskStatus status : decisions.statuses()) {
            if (status.status() == Status.Pending) {
                status.clusterId().ifPresent(c -> {
                    String before = waitingOn.put(status.jobId(), c);
                    if (before != null && !before.equals(c)) {
                        moved.add(status.jobId());
                    }
                });
            }
            if (status.status() == Status.Pending
                    && status.reason().filter(Reason.Waiting::equals).isPresent()
                    && !started.containsKey(status.jobId())) {
                status.estimatedStart().ifPresent(e -> {
                    firstEstimate.putIfAbsent(status.jobId(), e);
                    lastEstimate.put(status.jobId(), e);
                });
            }
            if (status.status() == Status.Running) {
                started.putIfAbsent(status.jobId(), now);
            }
            if (status.status().isTerminal()) {
                finished.add(status.jobId());
            }
        }
        for (ExecutorCommand command : decisions.commands()) {
            answer(command);
        }
    }

    /** The executor's part: each command answered once, after the workload's delays (re-sends are ignored). */
    private void answer(ExecutorCommand command) {
        Meta meta = Meta.of("bench", now);
        String cluster = command.cluster().clusterId();
        if (command instanceof ExecutorCommand.EnsureNodePool pool) {
            if (answered.add("pool:" + pool.nodePoolName())) {
                Duration creation = creation(pool.supplyMode());
                at(
                        now.plus(creation),
                        () -> apply(scheduler.observe(
                                new ExecutorEvent.NodePoolReady(
                                        meta, pool.jobId(), cluster, "v6e", pool.nodePoolName()),
                                now)));
            }
        } else if (command instanceof ExecutorCommand.EnsureJob job) {
            if (answered.add("job:" + job.jobId())) {
                Instant submitted = now.plusSeconds(10 + rnd.nextInt(51));
                Instant running = submitted.plusSeconds(10 + rnd.nextInt(81));
                Instant done = running.plusSeconds(300 + rnd.nextInt(115 * 60));
                at(
                        submitted,
                        () -> apply(scheduler.observe(
                                new ExecutorEvent.JobSubmitted(
                                        meta, job.jobId(), cluster, "v6e", job.k8sJobName(), "uid-" + job.jobId()),
                                now)));
                at(
                        running,
                        () -> apply(scheduler.observe(
                                new ExecutorEvent.JobRunning(
                                        meta,
                                        job.jobId(),
                                        cluster,
                                        "v6e",
                                        job.k8sJobName(),
                                        "uid-" + job.jobId(),
                                        1,
                                        1,
                                        java.util.Optional.empty()),
                                now)));
                at(
                        done,
                        () -> apply(scheduler.observe(
                                new ExecutorEvent.JobSucceeded(meta, job.jobId(), cluster, "v6e", job.k8sJobName()),
                                now)));
            }
        } else if (command instanceof ExecutorCommand.EnsureJobDeleted deleted) {
            at(
                    now.plusSeconds(5),
                    () -> apply(scheduler.observe(
                            new ExecutorEvent.JobDeleted(meta, deleted.jobId(), cluster, "v6e", deleted.k8sJobName()),
                            now)));
        } else if (command instanceof ExecutorCommand.EnsureNodePoolDeleted deleted) {
            at(
                    now.plusSeconds(30),
                    () -> apply(scheduler.observe(
                            new ExecutorEvent.NodePoolDeleted(
                                    meta, deleted.jobId(), cluster, "v6e", deleted.nodePoolName()),
                            now)));
        }
    }

    private Duration creation(SupplyMode mode) {
        double medianMinutes = switch (mode) {
            case RESERVATION -> 4;
            case ON_DEMAND -> 6;
            case FLEX_START -> 8;
        };
        double minutes = medianMinutes * Math.exp(0.35 * rnd.nextGaussian());
        return Duration.ofMillis((long) (minutes * 60_000));
    }

    private void report(int jobs) {
        System.out.printf(
                Locale.ROOT,
                "%d jobs, %d started, %d ended before starting (a pool creation past the 15 min provisioning"
                        + " backstop), %d waited with an estimate, %d moved to another cluster while waiting%n",
                jobs,
                started.size(),
                finished.size() - started.size(),
                firstEstimate.size(),
                moved.size());
        System.out.println(line("first estimate of each waiting job", firstEstimate));
        System.out.println(line("last estimate before it started   ", lastEstimate));
    }

    private String line(String what, Map<String, StartEstimate> estimates) {
        List<Long> errors = new ArrayList<>();
        int inside = 0;
        for (Map.Entry<String, StartEstimate> e : estimates.entrySet()) {
            Instant actual = started.get(e.getKey());
            if (actual == null) {
                continue;
            }
            StartEstimate estimate = e.getValue();
            long middle =
                    (estimate.earliest().toEpochMilli() + estimate.latest().toEpochMilli()) / 2;
            errors.add(Math.abs(actual.toEpochMilli() - middle));
            // the Message shows whole minutes: earliest rounded down, latest up
            Instant from = estimate.earliest().truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
            Instant to = estimate.latest()
                    .truncatedTo(java.time.temporal.ChronoUnit.MINUTES)
                    .plusSeconds(60);
            if (!actual.isBefore(from) && !actual.isAfter(to)) {
                inside++;
            }
        }
        Collections.sort(errors);
        if (errors.isEmpty()) {
            return what + ": no samples";
        }
        return String.format(
                Locale.ROOT,
                "%s: n=%d |middle - actual| p50 %.1f min, p90 %.1f min; actual start inside the interval %.0f%%",
                what,
                errors.size(),
                quantile(errors, 0.5) / 60_000.0,
                quantile(errors, 0.9) / 60_000.0,
                100.0 * inside / errors.size());
    }

    private static long quantile(List<Long> sorted, double q) {
        int index = (int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1);
        return sorted.get(Math.max(0, index));
    }
}
