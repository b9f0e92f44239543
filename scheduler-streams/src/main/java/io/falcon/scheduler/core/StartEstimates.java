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
 * When a waiting job should start, from what its queue did before ({@link QueueHistory}). A queue hands a slot on
 * when its holder's pods run, so each waiting job, in pick order, takes the slot that frees soonest and starts after
 * what remains there and its own hold ({@link SlotChain}; with one slot, the holder's remaining hold, the holds of
 * the k - 1 jobs ahead and its own): a sum of independent durations, whose means and variances add. The
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
     * When each of the queue's slots is free for the next waiting job: what remains of each holder's hold, and nothing
     * for a slot no job holds (a queue short of reservation capacity opens none: its free slots wait as long as the
     * short holder does). Empty when it cannot be told: the cluster is not active, or a holder's queue has no history.
     */
    Optional<SlotChain> slots(QueueKey key, Instant now) {
        ClusterRow cluster = state.clusters.get(key.clusterId());
        if (cluster == null || !cluster.isActive()) {
            return Optional.empty();
        }
        // Read without creating the queue: cluster choice asks about queues that may never get a job.
        List<String> holders = Optional.ofNullable(state.queues.get(key))
                .map(WaitQueue::slotHolders)
                .orElse(List.of());
        List<QueueHistory.Spread> free = new ArrayList<>();
        Optional<QueueHistory.Spread> shortOfCapacity = Optional.empty();
        for (String id : holders) {
            ScheduledJob job = state.jobs.get(id);
            if (job == null) {
                continue;
            }
            Optional<QueueHistory.Spread> left = remainingHold(job, key, cluster, now);
            if (left.isEmpty()) {
                return Optional.empty();
            }
            free.add(left.get());
            if (job.phase() == Phase.PROVISIONING
                    && job.provisioningStep()
                            .filter(ProvisioningStep.RESERVATION_SHORT::equals)
                            .isPresent()) {
                shortOfCapacity = left;
            }
        }
        while (free.size() < state.settings.acquirersPerQueue()) {
            free.add(shortOfCapacity.orElse(QueueHistory.Spread.NONE));
        }
        return Optional.of(new SlotChain(free));
    }

    /**
     * The queue's slots as its waiting jobs take them in pick order: each job takes the slot free soonest and holds
     * it until its pods run, when the slot is free for the next (with one slot, a chain of holds).
     */
    static final class SlotChain {
        private final List<QueueHistory.Spread> free;

        SlotChain(List<QueueHistory.Spread> free) {
            this.free = new ArrayList<>(free);
        }

        QueueHistory.Spread soonest() {
            return free.get(soonestIndex());
        }

        /** The next job in pick order, holding its slot for {@code hold}: when its pods should run. */
        QueueHistory.Spread take(QueueHistory.Spread hold) {
            int i = soonestIndex();
            QueueHistory.Spread start = free.get(i).plus(hold);
            free.set(i, start);
            return start;
        }

        int size() {
            return free.size();
        }

        private int soonestIndex() {
            int best = 0;
            for (int i = 1; i < free.size(); i++) {
                if (free.get(i).mean() < free.get(best).mean()) {
                    best = i;
                }
            }
            return best;
        }
    }

    /** What remains of one holder's hold. */
    private Optional<QueueHistory.Spread> remainingHold(
            ScheduledJob job, QueueKey key, ClusterRow cluster, Instant now) {
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
        Optional<SlotChain> slots = slots(key, now);
        Optional<QueueHistory.Spread> hold = holdOf(job, key);
        if (slots.isEmpty() || hold.isEmpty()) {
            return java.util.OptionalDouble.empty();
        }
        QueueHistory.Spread before = slots.get().soonest();
        WaitQueue queue = state.queues.get(key);
        int ahead = queue == null ? 0 : queue.countAhead(state.entry(job), COUNT_AHEAD_LIMIT);
        if (ahead >= COUNT_AHEAD_LIMIT) {
            ahead = queue.size();
        }
        // the jobs ahead share the queue's slots: about ahead / slots holds each before this one's turn
        return java.util.OptionalDouble.of(
                before.mean() + (ahead / slots.get().size() + 1) * hold.get().mean());
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
