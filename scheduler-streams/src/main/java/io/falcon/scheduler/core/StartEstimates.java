package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.StartEstimate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * When a waiting job should start, from what its queue did before ({@link QueueHistory}). A queue hands its slot on
 * when the holder's pods run, so the k-th waiting job starts after what remains of the holder's hold, the holds of
 * the k - 1 jobs ahead of it, and its own: a sum of independent durations, whose means and variances add. The
 * interval is the mean plus or minus {@link #Z} standard deviations of that sum (the share of actual starts inside
 * it is measured by bench's StartEstimateAccuracy, docs/performance.md). Run times enter only when the holder is
 * short of reservation capacity (ClusterBusy): it waits for a reservation job running on its cluster to end. No
 * estimate when a queue has too little history, or its cluster is not active.
 */
final class StartEstimates {
    /** Half-width of the interval in standard deviations; 1.28 would hold 80% of a normal sum. */
    static final double Z = 1.28;

    private final SchedulerState state;

    StartEstimates(SchedulerState state) {
        this.state = state;
    }

    /**
     * What remains of the slot holder's hold (nothing when the slot is free), or empty when it cannot be told: the
     * cluster is not active, or its queue has no history.
     */
    Optional<QueueHistory.Spread> beforeFirst(QueueKey key, Instant now) {
        ClusterRow cluster = state.clusters.get(key.clusterId());
        if (cluster == null || !cluster.isActive()) {
            return Optional.empty();
        }
        // Read without creating the queue: cluster choice asks about queues that may never get a job.
        Optional<ScheduledJob> holder = Optional.ofNullable(state.queues.get(key))
                .flatMap(WaitQueue::slotHolder)
                .map(state.jobs::get);
        if (holder.isEmpty()) {
            return Optional.of(QueueHistory.Spread.NONE);
        }
        ScheduledJob job = holder.get();
        long elapsed = job.slotTakenAt()
                .or(job::phaseSince)
                .map(since -> Math.max(0, Duration.between(since, now).toMillis()))
                .orElse(0L);
        SupplyMode mode = job.supplyMode().orElseGet(() -> modeOf(job, cluster));
        if (job.phase() == Phase.PROVISIONING
                && job.provisioningStep()
                        .filter(ProvisioningStep.RESERVATION_SHORT::equals)
                        .isPresent()) {
            Optional<QueueHistory.Spread> capacity = capacityFreed(key.clusterId(), now);
            Optional<QueueHistory.Spread> creation = history(key, mode).flatMap(QueueHistory::acquire);
            if (capacity.isPresent() && creation.isPresent()) {
                return Optional.of(capacity.get().plus(creation.get()));
            }
        }
        return history(key, mode).flatMap(h -> h.remainingAcquire(elapsed));
    }

    /**
     * A holder short of reservation capacity (ClusterBusy) waits for a reservation job running on its cluster to
     * end: the soonest expected end among them, from their own queues' run times, capped by each one's execution
     * deadline (its timeout_seconds: it cannot run longer). Empty when none runs or their history cannot tell.
     */
    private Optional<QueueHistory.Spread> capacityFreed(String clusterId, Instant now) {
        Optional<QueueHistory.Spread> soonest = Optional.empty();
        for (String id : state.runningOn(clusterId)) {
            ScheduledJob running = state.jobs.get(id);
            if (running == null
                    || running.supplyMode()
                            .filter(SupplyMode.RESERVATION::equals)
                            .isEmpty()
                    || running.dispatchedAt().isEmpty()) {
                continue;
            }
            long elapsed = Math.max(
                    0, Duration.between(running.dispatchedAt().get(), now).toMillis());
            long untilDeadline = running.executionDeadline(state.settings.defaultExecutionTimeout())
                    .map(deadline -> Math.max(0, Duration.between(now, deadline).toMillis()))
                    .orElse(Long.MAX_VALUE);
            QueueHistory history = state.histories.get(
                    new HistoryKey(clusterId, running.request().topology().text(), SupplyMode.RESERVATION));
            Optional<QueueHistory.Spread> left = Optional.ofNullable(history)
                    .flatMap(h -> h.remainingRun(elapsed))
                    .map(spread -> spread.mean() > untilDeadline ? new QueueHistory.Spread(untilDeadline, 0) : spread);
            if (left.isPresent()
                    && (soonest.isEmpty() || left.get().mean() < soonest.get().mean())) {
                soonest = left;
            }
        }
        return soonest;
    }

    /** The spread of how long this job will hold the queue's slot once it has it. */
    Optional<QueueHistory.Spread> holdOf(ScheduledJob job, QueueKey key) {
        ClusterRow cluster = state.clusters.get(key.clusterId());
        if (cluster == null) {
            return Optional.empty();
        }
        return history(key, modeOf(job, cluster)).flatMap(QueueHistory::acquire);
    }

    /**
     * The history of the queue and supply mode; with too few samples of that mode, the queue's samples of every
     * mode together (a queue whose jobs mostly use another mode still says something), else none.
     */
    private Optional<QueueHistory> history(QueueKey key, SupplyMode mode) {
        QueueHistory own = state.histories.get(new HistoryKey(key.clusterId(), key.topology(), mode));
        if (own != null && own.acquireMillis().size() >= QueueHistory.MIN_SAMPLES) {
            return Optional.of(own);
        }
        List<Long> pooled = new ArrayList<>();
        for (SupplyMode any : SupplyMode.values()) {
            QueueHistory h = state.histories.get(new HistoryKey(key.clusterId(), key.topology(), any));
            if (h != null) {
                pooled.addAll(h.acquireMillis());
            }
        }
        return pooled.size() >= QueueHistory.MIN_SAMPLES
                ? Optional.of(new QueueHistory(pooled, List.of()))
                : Optional.empty();
    }

    private static SupplyMode modeOf(ScheduledJob job, ClusterRow cluster) {
        return SupplyDecision.decide(job.request().supplyMode(), cluster).mode();
    }

    /** Beyond this many jobs ahead a newcomer's queue is taken as wholly ahead of it: the count stays bounded. */
    static final int COUNT_AHEAD_LIMIT = 1000;

    /**
     * How long a job not yet queued would wait to start in this queue, in ms (the mean): what remains of the holder,
     * the holds of the jobs that rank before it, and its own; empty when the queue's history cannot tell.
     */
    java.util.OptionalDouble expectedWait(ScheduledJob job, QueueKey key, Instant now) {
        Optional<QueueHistory.Spread> before = beforeFirst(key, now);
        Optional<QueueHistory.Spread> hold = holdOf(job, key);
        if (before.isEmpty() || hold.isEmpty()) {
            return java.util.OptionalDouble.empty();
        }
        WaitQueue queue = state.queues.get(key);
        int ahead = queue == null ? 0 : queue.countAhead(state.entry(job), COUNT_AHEAD_LIMIT);
        if (ahead >= COUNT_AHEAD_LIMIT) {
            ahead = queue.size();
        }
        return java.util.OptionalDouble.of(
                before.get().mean() + (ahead + 1) * hold.get().mean());
    }

    /** The interval for a start that is {@code spread} away from now; never before now. */
    static StartEstimate interval(Instant now, QueueHistory.Spread spread) {
        double half = Z * Math.sqrt(spread.variance());
        long earliest = Math.round(Math.max(0, spread.mean() - half));
        long latest = Math.round(Math.max(earliest, spread.mean() + half));
        return new StartEstimate(now.plusMillis(earliest), now.plusMillis(latest));
    }

    /** Whether either end moved by more than the tolerance, or one of them is not there. */
    static boolean moved(Optional<StartEstimate> shown, Optional<StartEstimate> fresh, Duration tolerance) {
        if (shown.isEmpty() || fresh.isEmpty()) {
            return shown.isPresent() != fresh.isPresent();
        }
        return differs(shown.get().earliest(), fresh.get().earliest(), tolerance)
                || differs(shown.get().latest(), fresh.get().latest(), tolerance);
    }

    private static boolean differs(Instant a, Instant b, Duration tolerance) {
        return Duration.between(a, b).abs().compareTo(tolerance) > 0;
    }
}
