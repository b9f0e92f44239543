package io.falcon.scheduler.core;

import io.falcon.events.ResourceNames;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Queues and slots (seed section 4): each (cluster, topology) queue lets one job at a time acquire resources. The
 * free slot goes to the next job by the pick rule (FIFO per actor, round-robin across actors, in {@link WaitQueue}),
 * which then reuses an idle pool, takes over a pool its aborted creator left, or has one created; waiting jobs are
 * told their position.
 */
final class QueueSlots {
    private final SchedulerState state;
    private final Timers timers;

    QueueSlots(SchedulerState state, Timers timers) {
        this.state = state;
        this.timers = timers;
    }

    /** Gives the queue's free slot to the next job by the pick rule; true if a job started. */
    boolean startNext(QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = state.queue(key);
        ClusterRow cluster = state.clusters.get(key.clusterId());
        if (queue.slotHolder().isPresent() || cluster == null || !cluster.isActive()) {
            return false;
        }
        Optional<WaitQueue.Entry> next = queue.pollNext();
        if (next.isEmpty()) {
            return false;
        }
        out.queueChanged(key);
        ScheduledJob job = state.jobs.get(next.get().jobId());
        queue.takeSlot(job.id());
        ClusterTarget target = SchedulerState.target(cluster);
        Optional<NodePool> idle = state.idlePool(cluster, key.topology(), job);
        Optional<NodePool> handedOver = idle.isPresent() ? Optional.empty() : state.handedOverPool(cluster, key, job);
        if (idle.isPresent()) {
            dispatchOn(
                    job.withTarget(target),
                    idle.get(),
                    Messages.reusedPool(idle.get().name()),
                    now,
                    out);
        } else if (handedOver.isPresent()) {
            // An aborted job's pool still being created: this job takes it over instead of asking for another.
            NodePool pool = handedOver.get();
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
            String poolName = ResourceNames.nodePool(job.id());
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

    /** The job holds a READY pool now: ask for its Kubernetes Job, and keep asking until it is confirmed. */
    void dispatchOn(ScheduledJob job, NodePool pool, String message, Instant now, Decisions out) {
        if (!pool.name().equals(ResourceNames.nodePool(job.id()))
                && pool.heldBy().filter(job.id()::equals).isEmpty()) {
            out.reused(pool);
        }
        state.storePool(pool.heldBy(job.id(), NodePool.State.READY), out);
        ScheduledJob dispatching = job.enter(Phase.DISPATCHING, now)
                .withSupplyMode(pool.supplyMode())
                .withNodePool(pool.name())
                .withK8sJob(ResourceNames.k8sJob(job.id()))
                .withWakeAt(Optional.of(now.plus(state.settings.dispatchRetry())));
        out.send(SchedulerState.ensureJob(dispatching, now));
        state.publish(dispatching, Status.Pending, Optional.of(Reason.Dispatching), message, now, out);
        timers.arm(state.jobs.get(job.id()));
    }

    /**
     * Tells each of the first waiting jobs its exact position and who is ahead, when that changed; returns the
     * jobs it covered. Positions change for everyone behind any change, so only the first few are kept current.
     */
    Set<String> refreshPositions(QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = state.queue(key);
        List<WaitQueue.Entry> order = queue.pickOrder(state.settings.positionUpdates());
        List<WaitQueue.Entry> ahead = new ArrayList<>(order.size() + 1);
        queue.slotHolder().map(state.jobs::get).ifPresent(holder -> ahead.add(state.entry(holder)));
        Set<String> covered = new HashSet<>();
        for (WaitQueue.Entry entry : order) {
            ScheduledJob job = state.jobs.get(entry.jobId());
            String message = Messages.waiting(ahead.size() + 1, ahead);
            // Compared with what the job last showed, so that an unchanged position is not published again.
            if (!message.equals(job.message())
                    || job.reason().filter(Reason.Waiting::equals).isEmpty()) {
                state.publish(job, Status.Pending, Optional.of(Reason.Waiting), message, now, out);
            }
            covered.add(entry.jobId());
            ahead.add(entry);
        }
        return covered;
    }

    /**
     * A job queued behind the kept-current positions still gets its position when it arrives: exact up to a bound,
     * then a lower bound. It is told again once it moves up into the kept-current range.
     */
    void tellDeepPosition(ScheduledJob job, QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = state.queue(key);
        int holder = queue.slotHolder().isPresent() ? 1 : 0;
        int bound = state.settings.positionUpdates() * 10;
        OptionalInt position = queue.positionOf(state.entry(job), bound);
        String message = position.isPresent()
                ? Messages.waitingCount(position.getAsInt() + holder)
                : Messages.waitingBeyond(bound + holder);
        state.publish(job, Status.Pending, Optional.of(Reason.Waiting), message, now, out);
    }
}
