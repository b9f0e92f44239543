package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.decision.Decision;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
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
            Duration linger = lingerFor(after);
            if (linger.isZero() || linger.isNegative()) {
                delete(after, now, out);
            } else {
                // Kept for a while: a new job of this topology prefers this cluster meanwhile (seed section 3).
                timers.arm(after.key(), now.plus(linger));
            }
        }
    }

    /**
     * How long an idle pool no job takes is kept: its supply mode's setting, or, for a reservation pool of a queue
     * whose recent jobs came at most {@code idle-linger.from-queue-history} apart (median), as long as the next one
     * is expected to take to come, and at least as long as a new pool of the queue takes (its history of holds), so
     * that the next job of its topology finds it instead of waiting for a creation. A reservation pool never lingers
     * while a job on its cluster is short of reservation capacity: another queue needs the chips now.
     */
    Duration lingerFor(NodePool pool) {
        Duration set = state.settings.idleLinger(pool.supplyMode());
        if (pool.supplyMode() != SupplyMode.RESERVATION) {
            return set;
        }
        if (capacityWanted(pool.clusterId())) {
            return Duration.ZERO;
        }
        Duration max = state.settings.historyLingerMax();
        QueueKey key = new QueueKey(pool.clusterId(), pool.topology());
        Optional<Duration> creation = Optional.ofNullable(
                        state.histories.get(new HistoryKey(pool.clusterId(), pool.topology(), SupplyMode.RESERVATION)))
                .flatMap(QueueHistory::acquire)
                .map(spread -> Duration.ofMillis(Math.round(spread.mean())));
        Optional<Duration> gap = state.typicalArrivalGap(key);
        if (max.isZero() || creation.isEmpty() || gap.isEmpty() || gap.get().compareTo(max) > 0) {
            return set;
        }
        Duration expected = gap.get().compareTo(creation.get()) > 0 ? gap.get() : creation.get();
        Duration fromHistory = expected.compareTo(max) > 0 ? max : expected;
        return fromHistory.compareTo(set) > 0 ? fromHistory : set;
    }

    /** A job on the cluster waits for reservation capacity (ClusterBusy). */
    boolean capacityWanted(String clusterId) {
        return state.queues.entrySet().stream()
                .filter(e -> e.getKey().clusterId().equals(clusterId))
                .flatMap(e -> e.getValue().slotHolders().stream())
                .map(state.jobs::get)
                .filter(java.util.Objects::nonNull)
                .anyMatch(job -> job.phase() == Phase.PROVISIONING
                        && job.provisioningStep()
                                .filter(ProvisioningStep.RESERVATION_SHORT::equals)
                                .isPresent());
    }

    /**
     * A job on the cluster is short of reservation capacity: the idle reservation pools lingering there give their
     * chips back now.
     */
    void releaseLingering(String clusterId, Instant now, Decisions out) {
        state.pools.values().stream()
                .filter(p -> p.clusterId().equals(clusterId)
                        && p.state() == NodePool.State.READY
                        && p.heldBy().isEmpty()
                        && p.supplyMode() == SupplyMode.RESERVATION)
                .toList()
                .forEach(p -> delete(p, "idle, and a job on its cluster waits for reservation capacity", now, out));
    }

    /** A deletion not yet confirmed is asked again; an idle pool whose linger is over is deleted. */
    void onTimer(NodePool pool, Instant now, Decisions out) {
        if (pool.state() == NodePool.State.DELETING) {
            delete(pool, now, out);
        } else if (pool.state() == NodePool.State.READY && pool.heldBy().isEmpty()) {
            Instant until = pool.since().orElse(Instant.EPOCH).plus(lingerFor(pool));
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
