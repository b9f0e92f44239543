package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.decision.Decision;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.status.Reason;
import io.falcon.events.status.StartEstimate;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Queues and slots (seed section 4): each (cluster, topology) queue lets one job at a time acquire resources. The
 * free slot goes to the next job by the pick rule (priority with aging, then FIFO per actor and round-robin across
 * actors, in {@link WaitQueue}), which then reuses an idle pool, takes over a pool its aborted creator left, or has
 * one created; waiting jobs are told their position and when they should start.
 */
final class QueueSlots {
    private final SchedulerState state;
    private final Timers timers;
    private final StartEstimates estimates;

    QueueSlots(SchedulerState state, Timers timers) {
        this.state = state;
        this.timers = timers;
        this.estimates = new StartEstimates(state);
    }

    StartEstimates estimates() {
        return estimates;
    }

    /**
     * Gives the queue's free slots to the next jobs by the pick rule, one after another in pick order, while a slot is
     * free ({@code acquirers-per-queue}) and none of the queue's acquirers is short of reservation capacity (the
     * reservation has no room for one more slice: a further acquirer would only wait beside it); true if a job
     * started.
     */
    boolean startNext(QueueKey key, Instant now, Decisions out) {
        boolean started = false;
        while (slotFree(key) && startOne(key, now, out)) {
            started = true;
        }
        return started;
    }

    private boolean slotFree(QueueKey key) {
        WaitQueue queue = state.queue(key);
        if (queue.slotsHeld() >= state.settings.acquirersPerQueue()) {
            return false;
        }
        return queue.slotHolders().stream()
                .map(state.jobs::get)
                .filter(java.util.Objects::nonNull)
                .noneMatch(job -> job.phase() == Phase.PROVISIONING
                        && job.provisioningStep()
                                .filter(ProvisioningStep.RESERVATION_SHORT::equals)
                                .isPresent());
    }

    /** Gives one free slot to the next job by the pick rule; true if a job started. */
    private boolean startOne(QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = state.queue(key);
        ClusterRow cluster = state.clusters.get(key.clusterId());
        if (cluster == null || !cluster.isActive()) {
            return false;
        }
        // A cluster that keeps refusing work takes no new work until its cool-down ends: the slot its last failure
        // freed stays free, and the jobs waiting there are placed again elsewhere (or parked) in the same step.
        if (state.health.avoided(key.clusterId(), now).isPresent()) {
            return false;
        }
        Optional<WaitQueue.Entry> next = queue.pollNext();
        if (next.isEmpty()) {
            return false;
        }
        out.queueChanged(key);
        // The slot is held from now until its pods run: that span is what the start-time estimates learn from.
        ScheduledJob job = state.jobs.get(next.get().jobId()).withSlotTakenAt(now);
        queue.takeSlot(job.id());
        out.granted(job, key);
        ClusterTarget target = SchedulerState.target(cluster);
        Optional<NodePool> idle = state.idlePool(cluster, key.topology(), job);
        Optional<NodePool> handedOver = idle.isPresent() ? Optional.empty() : state.handedOverPool(cluster, key, job);
        String slot = "took the slot of queue " + key.asString() + " after waiting "
                + waited(job.request().submittedAt(), now);
        if (idle.isPresent()) {
            out.record(Ledger.pool(
                    job,
                    Decision.Kind.POOL_REUSED,
                    idle.get().name(),
                    idle.get().supplyMode(),
                    slot + "; runs on the idle node pool " + idle.get().name()
                            + idle.get()
                                    .lastHolder()
                                    .map(h -> " that job " + h + " left")
                                    .orElse("") + " (no 5-10 min creation)",
                    now));
            dispatchOn(
                    job.withTarget(target),
                    idle.get(),
                    Messages.reusedPool(idle.get().name()),
                    now,
                    out);
        } else if (handedOver.isPresent()) {
            // An aborted job's pool still being created: this job takes it over instead of asking for another.
            NodePool pool = handedOver.get();
            out.record(Ledger.pool(
                    job,
                    Decision.Kind.POOL_TAKEN_OVER,
                    pool.name(),
                    pool.supplyMode(),
                    slot + "; takes over node pool " + pool.name() + ", still being created for an aborted job",
                    now));
            state.storePool(pool.heldBy(job.id(), NodePool.State.CREATING), out);
            ScheduledJob provisioning = job.enter(Phase.PROVISIONING, now)
                    .withTarget(target)
                    .withSupplyMode(pool.supplyMode())
                    .withNodePool(pool.name())
                    .withWakeAt(Optional.of(now.plus(state.settings.provisioningRetry())));
            out.send(state.ensurePool(provisioning, now));
            out.reused(pool);
            state.publish(
                    provisioning,
                    Status.Pending,
                    Optional.of(Reason.Provisioning),
                    Messages.provisioning(pool.supplyMode()) + " (taking over node pool " + pool.name() + ")",
                    now,
                    out);
            timers.arm(state.jobs.get(job.id()));
        } else {
            SupplyDecision supply = SupplyDecision.decide(job.request().supplyMode(), cluster);
            String poolName = state.settings.nodePoolName(job);
            String why = job.request().supplyMode().isPresent()
                    ? "supply_mode=" + supply.mode().wireName() + " was asked for"
                    : supply.reservation()
                            .map(r -> "the cluster's default_reservation " + r)
                            .orElse("no supply_mode asked and no default_reservation on the cluster");
            out.record(Ledger.pool(
                    job,
                    Decision.Kind.POOL_CREATED,
                    poolName,
                    supply.mode(),
                    slot + "; creates node pool " + poolName + " (supply "
                            + supply.mode().wireName() + ": " + why + ")",
                    now));
            state.storePool(
                    NodePool.of(
                            target,
                            poolName,
                            key.topology(),
                            supply.mode(),
                            NodePool.State.CREATING,
                            Optional.of(job.id()),
                            Optional.empty()),
                    out);
            ScheduledJob provisioning = job.enter(Phase.PROVISIONING, now)
                    .withTarget(target)
                    .withSupplyMode(supply.mode())
                    .withNodePool(poolName)
                    .withWakeAt(Optional.of(now.plus(state.settings.provisioningRetry())));
            out.send(state.ensurePool(provisioning, now));
            state.publish(
                    provisioning,
                    Status.Pending,
                    Optional.of(Reason.Provisioning),
                    Messages.provisioning(supply.mode()),
                    now,
                    out);
            timers.arm(state.jobs.get(job.id()));
        }
        refreshPositions(key, now, out);
        return true;
    }

    private static String waited(Instant since, Instant now) {
        long s = Math.max(0, java.time.Duration.between(since, now).toSeconds());
        return s < 120 ? s + " s" : s < 7200 ? (s / 60) + " min" : (s / 3600) + " h " + (s % 3600 / 60) + " min";
    }

    /** The job holds a READY pool now: ask for its Kubernetes Job, and keep asking until it is confirmed. */
    void dispatchOn(ScheduledJob job, NodePool pool, String message, Instant now, Decisions out) {
        if (!pool.name().equals(state.settings.nodePoolName(job))
                && pool.heldBy().filter(job.id()::equals).isEmpty()) {
            out.reused(pool);
        }
        state.storePool(pool.heldBy(job.id(), NodePool.State.READY), out);
        ScheduledJob dispatching = job.enter(Phase.DISPATCHING, now)
                .withTarget(state.currentTarget(job))
                .withSupplyMode(pool.supplyMode())
                .withNodePool(pool.name())
                .withK8sJob(state.settings.k8sJobName(job))
                .withWakeAt(Optional.of(now.plus(state.settings.dispatchRetry())));
        out.send(state.ensureJob(dispatching, now));
        state.publish(dispatching, Status.Pending, Optional.of(Reason.Dispatching), message, now, out);
        timers.arm(state.jobs.get(job.id()));
    }

    /**
     * Tells each of the first waiting jobs its exact position, who is ahead and when it should start, when that
     * changed; returns the jobs it covered. Positions change for everyone behind any change, so only the first few
     * are kept current. An estimate alone is published again only when it moved by more than the tolerance, so that
     * estimates drifting with time do not re-publish every waiting job.
     */
    Set<String> refreshPositions(QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = state.queue(key);
        List<WaitQueue.Entry> order = queue.pickOrder(state.settings.positionUpdates());
        List<WaitQueue.Entry> ahead = new ArrayList<>(order.size() + 1);
        queue.slotHolders().stream()
                .map(state.jobs::get)
                .filter(java.util.Objects::nonNull)
                .forEach(holder -> ahead.add(state.entry(holder)));
        Set<String> covered = new HashSet<>();
        Optional<StartEstimates.SlotChain> slots = estimates.slots(key, now);
        for (WaitQueue.Entry entry : order) {
            ScheduledJob job = state.jobs.get(entry.jobId());
            Optional<QueueHistory.Spread> hold = estimates.holdOf(job, key);
            Optional<QueueHistory.Spread> untilStart = slots.isPresent() && hold.isPresent()
                    ? Optional.of(slots.get().take(hold.get()))
                    : Optional.empty();
            Optional<StartEstimate> estimate = untilStart.map(spread -> StartEstimates.interval(now, spread));
            tellWaiting(
                    job,
                    Messages.waiting(ahead.size() + 1, ahead, job.actor(), state.settings.whoIsAhead()),
                    estimate,
                    now,
                    out);
            covered.add(entry.jobId());
            ahead.add(entry);
            if (untilStart.isEmpty()) {
                slots = Optional.empty(); // nothing further down the queue can be estimated either
            }
        }
        return covered;
    }

    private void tellWaiting(
            ScheduledJob job, String position, Optional<StartEstimate> estimate, Instant now, Decisions out) {
        ZoneId zone = state.settings.messageZone();
        // Compared with what the job last showed, so that an unchanged position is not published again.
        boolean positionChanged = !job.shows(position + Messages.estimate(job.startEstimate(), now, zone))
                || job.reason().filter(Reason.Waiting::equals).isEmpty();
        if (positionChanged
                || StartEstimates.moved(job.startEstimate(), estimate, state.settings.estimateTolerance())) {
            state.publish(
                    job.withStartEstimate(estimate),
                    Status.Pending,
                    Optional.of(Reason.Waiting),
                    position + Messages.estimate(estimate, now, zone),
                    now,
                    out);
        }
    }

    /**
     * A job queued behind the kept-current positions still gets its position when it arrives: exact up to a bound,
     * then a lower bound. It is told again once it moves up into the kept-current range.
     */
    void tellDeepPosition(ScheduledJob job, QueueKey key, Instant now, Decisions out) {
        tellDeepPositions(List.of(job), key, now, out);
    }

    /**
     * As {@link #tellDeepPosition}, for many jobs of one queue at once (a re-placed backlog): the pick order up to the
     * bound is computed once, not once per job, so re-placing n jobs costs O(bound log n + n), not O(n x bound).
     */
    void tellDeepPositions(List<ScheduledJob> jobs, QueueKey key, Instant now, Decisions out) {
        if (jobs.isEmpty()) {
            return;
        }
        WaitQueue queue = state.queue(key);
        int holder = queue.slotsHeld();
        int bound = state.settings.positionUpdates() * 10;
        Map<String, Integer> positions = new HashMap<>();
        List<WaitQueue.Entry> order = queue.pickOrder(bound);
        for (int i = 0; i < order.size(); i++) {
            positions.put(order.get(i).jobId(), i + 1);
        }
        for (ScheduledJob job : jobs) {
            Integer position = positions.get(job.id());
            String message = position != null
                    ? Messages.waitingCount(position + holder)
                    : Messages.waitingBeyond(bound + holder);
            state.publish(
                    job.withStartEstimate(Optional.empty()),
                    Status.Pending,
                    Optional.of(Reason.Waiting),
                    message,
                    now,
                    out);
        }
    }
}
