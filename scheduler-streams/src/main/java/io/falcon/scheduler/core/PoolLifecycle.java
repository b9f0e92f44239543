package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.decision.Decision;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Node pools after their job is done with them (seed section 5): an idle READY pool goes to the next job of its
 * queue or lingers or is deleted; a deletion is asked for until the executor confirms it, at the location the pool
 * was created.
 */
final class PoolLifecycle {
    private final SchedulerState state;
    private final Timers timers;
    private final QueueSlots slots;

    PoolLifecycle(SchedulerState state, Timers timers, QueueSlots slots) {
        this.state = state;
        this.timers = timers;
        this.slots = slots;
    }

    /**
     * An idle READY pool (seed section 5) goes to its queue: to the job acquiring resources there if that job is
     * still waiting for a pool of its own (whose creation is then cancelled), else to the next waiting job, else it
     * is deleted. Only a pool of the cluster as its row is now, and only while it is active, is reused.
     */
    void release(NodePool idle, Instant now, Decisions out) {
        state.storePool(idle, out);
        QueueKey key = new QueueKey(idle.clusterId(), idle.topology());
        ClusterRow cluster = state.clusters.get(idle.clusterId());
        if (cluster == null
                || !cluster.isActive()
                || !SchedulerState.target(cluster).sameCluster(idle.target())) {
            delete(idle, now, out);
            slots.startNext(key, now, out); // the queue's slot is free all the same
            return;
        }
        // the first of the queue's acquirers (in the order they took their slots) still waiting for a pool
        Optional<ScheduledJob> provisioning = state.queue(key).slotHolders().stream()
                .map(state.jobs::get)
                .filter(java.util.Objects::nonNull)
                .filter(job -> job.phase() == Phase.PROVISIONING)
                .filter(idle::suits)
                .findFirst();
        if (provisioning.isPresent()) {
            ScheduledJob job = provisioning.get();
            job.nodePoolName()
                    .map(name -> state.pools.get(new NodePool.PoolKey(key.clusterId(), name)))
                    .filter(own -> own.state() != NodePool.State.DELETING)
                    .ifPresent(own ->
                            delete(own, "the job takes the idle node pool " + idle.name() + " instead", now, out));
            out.record(Ledger.pool(
                    job,
                    Decision.Kind.POOL_REUSED,
                    idle.name(),
                    idle.supplyMode(),
                    "its own node pool was still being created: it takes the idle node pool " + idle.name()
                            + idle.lastHolder()
                                    .map(h -> " that job " + h + " left")
                                    .orElse("")
                            + " and its own creation is cancelled",
                    now));
            slots.dispatchOn(job, idle, Messages.reusedPool(idle.name()), now, out);
            return;
        }
        slots.startNext(key, now, out);
        NodePool after = state.pools.get(idle.key());
        if (after != null && after.heldBy().isEmpty() && after.state() == NodePool.State.READY) {
            Duration linger = state.settings.idleLinger(after.supplyMode());
            if (linger.isZero() || linger.isNegative()) {
                delete(after, now, out);
            } else {
                // Kept for a while: a new job of this topology prefers this cluster meanwhile (seed section 3).
                timers.arm(after.key(), now.plus(linger));
            }
        }
    }

    /** A deletion not yet confirmed is asked again; an idle pool whose linger is over is deleted. */
    void onTimer(NodePool pool, Instant now, Decisions out) {
        if (pool.state() == NodePool.State.DELETING) {
            delete(pool, now, out);
        } else if (pool.state() == NodePool.State.READY && pool.heldBy().isEmpty()) {
            Instant until = pool.since().orElse(Instant.EPOCH).plus(state.settings.idleLinger(pool.supplyMode()));
            if (!until.isAfter(now) || !state.clusterActive(pool.clusterId())) {
                delete(pool, now, out);
            } else {
                timers.arm(pool.key(), until);
            }
        }
    }

    /** Marks the pool DELETING and asks for it; re-asked every cleanup interval until NodePoolDeleted. */
    void delete(NodePool pool, Instant now, Decisions out) {
        delete(
                pool,
                pool.state() == NodePool.State.READY && pool.heldBy().isEmpty()
                        ? "idle, and no waiting job of its queue took it"
                        : "its job no longer needs it",
                now,
                out);
    }

    /** The same, saying why in the ledger. */
    void delete(NodePool pool, String why, Instant now, Decisions out) {
        if (pool.state() != NodePool.State.DELETING) {
            // The first ask only: re-asks of an unconfirmed deletion are no new decision.
            pool.lastHolder().ifPresent(holder -> out.record(Ledger.poolDeleted(holder, pool, why, now)));
        }
        NodePool deleting = pool.deleting(now);
        state.storePool(deleting, out);
        out.send(new ExecutorCommand.EnsureNodePoolDeleted(
                SchedulerState.meta(now), pool.heldBy().orElse(""), pool.target(), pool.name()));
        timers.arm(deleting.key(), now.plus(state.settings.cleanupRetry()));
    }

    /** Only a pool the scheduler is deleting is forgotten; the event for any other pool is stale. */
    void onDeleted(ExecutorEvent.NodePoolDeleted deleted, Decisions out) {
        NodePool.PoolKey key = new NodePool.PoolKey(deleted.clusterId(), deleted.nodePoolName());
        NodePool pool = state.pools.get(key);
        if (pool != null && pool.state() == NodePool.State.DELETING) {
            state.removePool(key);
            out.poolChanged(key);
        }
    }

    /**
     * Seed error table: a node-pool deletion keeps failing; it goes on being retried, and the error is appended to
     * the Message of the job that last held the pool, whose Status stays its result.
     */
    void onDeleteFailing(ExecutorEvent.NodePoolDeleteFailing failing, Instant now, Decisions out) {
        NodePool pool = state.pools.get(new NodePool.PoolKey(failing.clusterId(), failing.nodePoolName()));
        if (pool == null || pool.state() != NodePool.State.DELETING) {
            return;
        }
        String note = Messages.poolDeleteFailing(failing.nodePoolName(), failing.message());
        pool.lastHolder()
                .flatMap(state::liveOrRetired)
                .filter(j -> j.phase() == Phase.DONE)
                .filter(j -> j.clusterId().filter(failing.clusterId()::equals).isPresent())
                .filter(j ->
                        j.nodePoolName().filter(failing.nodePoolName()::equals).isPresent())
                .filter(j -> !j.message().contains(note))
                .ifPresent(j -> state.republishEnd(j, (j.message() + " " + note).strip(), now, out));
    }
}
