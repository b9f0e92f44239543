package io.falcon.scheduler.core;

import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What the executor reports of a node pool being created for a job (seed sections 4 and 5): ready (dispatch),
 * creation accepted, reservation short, nodes awaited, failed. Each acts only on the job provisioning that very pool
 * (recovery rule 1), and moves its {@link ProvisioningStep}, which the provisioning timers follow.
 */
final class Provisioning {
    private final SchedulerState state;
    private final Timers timers;
    private final QueueSlots slots;
    private final PoolLifecycle pools;
    private final JobEnding ending;

    private final Retrying retrying;

    Provisioning(
            SchedulerState state,
            Timers timers,
            QueueSlots slots,
            PoolLifecycle pools,
            JobEnding ending,
            Retrying retrying) {
        this.state = state;
        this.timers = timers;
        this.slots = slots;
        this.pools = pools;
        this.ending = ending;
        this.retrying = retrying;
    }

    /**
     * The pool a provisioning job created is Ready: dispatch. A repeated NodePoolReady (redelivery, an executor
     * that restarted) for a pool already READY, held or idle, changes nothing; neither does one for a pool being
     * deleted or unknown.
     */
    void onReady(ExecutorEvent.NodePoolReady ready, Instant now, Decisions out) {
        NodePool pool = state.pools.get(new NodePool.PoolKey(ready.clusterId(), ready.nodePoolName()));
        if (pool == null || pool.state() != NodePool.State.CREATING) {
            return;
        }
        Optional<ScheduledJob> holder = pool.heldBy()
                .map(state.jobs::get)
                .filter(job -> job.phase() == Phase.PROVISIONING)
                .filter(job -> job.nodePoolName().filter(pool.name()::equals).isPresent());
        if (holder.isPresent()) {
            state.health.succeeded(ready.clusterId(), now);
            slots.dispatchOn(holder.get(), pool, Messages.dispatching(), now, out);
        } else if (pool.heldBy()
                .map(state.jobs::get)
                .filter(j -> j.phase() == Phase.RETRYING)
                .isEmpty()) {
            // Created for a job that has moved on without it. (A retrying job's failed pool goes once its Job is
            // gone: Retrying.)
            pools.delete(pool, now, out);
        }
    }

    void onWaitingForNodes(ExecutorEvent.NodePoolWaitingForNodes waiting, Instant now, Decisions out) {
        Optional<ScheduledJob> dispatching = dispatchingOn(waiting);
        if (dispatching.isPresent()) {
            nodesOfDispatch(dispatching.get(), waiting, now, out);
            return;
        }
        provisioningWith(waiting.clusterId(), waiting.nodePoolName()).ifPresent(job -> {
            String message = Messages.waitingForNode(
                    waiting.nodePoolName(), waiting.registered(), waiting.ready(), waiting.expected());
            // GKE keeps retrying the nodes (seed section 4): no backstop timeout while it does.
            ScheduledJob awaiting = job.inProvisioningStep(ProvisioningStep.AWAITING_NODES);
            if (!job.shows(message)) {
                state.publish(awaiting, Status.Pending, Optional.of(Reason.WaitingForNode), message, now, out);
            } else if (!awaiting.equals(job)) {
                state.store(awaiting, out);
            }
        });
    }

    /**
     * The node count of a pool whose Job has been submitted (the executor reports it while the Job's pods are
     * Unschedulable, and in answer to a re-sent EnsureJob). Fewer Ready nodes than the slice's VMs: the pods wait for
     * them (a flex-start pool gets its VMs only for pending pods), WaitingForNode with the seed's message and, as
     * while provisioning, no deadline. All Ready after such a wait: the wait is over, the dispatch and execution
     * deadlines count from now. Any other count changes nothing: a late report of a wait that is over can only make
     * the job wait again until the next re-drive's count, never fail it.
     */
    private void nodesOfDispatch(
            ScheduledJob job, ExecutorEvent.NodePoolWaitingForNodes count, Instant now, Decisions out) {
        if (count.ready() < count.expected() && !count.podsWaiting() && !job.awaitingNodes()) {
            // a count of the pool alone (from its creation): whether the Job's pods wait is for the informers to
            // say; a Job whose pods cannot be created (a missing service account) does not wait for nodes
            return;
        }
        if (count.ready() < count.expected()) {
            ScheduledJob awaiting = job.awaitingNodes()
                    ? job
                    : job.awaitingNodesOfItsPool()
                            .withWakeAt(Optional.of(now.plus(state.settings.provisioningRetry())));
            String message =
                    Messages.waitingForNode(count.nodePoolName(), count.registered(), count.ready(), count.expected());
            if (!job.shows(message)
                    || job.reason().filter(Reason.WaitingForNode::equals).isEmpty()) {
                state.publish(awaiting, Status.Pending, Optional.of(Reason.WaitingForNode), message, now, out);
            } else if (!awaiting.equals(job)) {
                state.store(awaiting, out);
            }
            timers.arm(state.jobs.get(job.id()));
        } else if (job.awaitingNodes()) {
            ScheduledJob arrived = job.withNodesArrived(now);
            arrived = arrived.withWakeAt(
                    arrived.submitted() ? Optional.empty() : Optional.of(now.plus(state.settings.dispatchRetry())));
            String message = arrived.submitted()
                    ? Messages.submitted(
                            job.k8sJobName().orElse(""), job.request().vms())
                    : Messages.dispatching();
            state.publish(arrived, Status.Pending, Optional.of(Reason.Dispatching), message, now, out);
            timers.arm(state.jobs.get(job.id()));
        }
    }

    /** The job dispatching on this very pool in this cluster whose Job the count is about. */
    private Optional<ScheduledJob> dispatchingOn(ExecutorEvent.NodePoolWaitingForNodes count) {
        return dispatchingOn(count.clusterId(), count.nodePoolName(), count.jobId());
    }

    /** The job dispatching on this very pool in this cluster, if it is the job the event is about. */
    private Optional<ScheduledJob> dispatchingOn(String clusterId, String poolName, String jobId) {
        return Optional.ofNullable(state.pools.get(new NodePool.PoolKey(clusterId, poolName)))
                .flatMap(NodePool::heldBy)
                .filter(jobId::equals)
                .map(state.jobs::get)
                .filter(job -> job.phase() == Phase.DISPATCHING)
                .filter(job -> job.clusterId().filter(clusterId::equals).isPresent())
                .filter(job -> job.nodePoolName().filter(poolName::equals).isPresent());
    }

    /** Capacity appeared and GKE accepted the creation: a ClusterBusy job is Provisioning again. */
    void onCreating(ExecutorEvent.NodePoolCreating creating, Instant now, Decisions out) {
        Optional<ScheduledJob> provisioning = provisioningWith(creating.clusterId(), creating.nodePoolName());
        // GKE accepted the creation: the executor answered, and its own create timeout (counted from the pool's
        // label) takes over; the backstop for a lost command or a silent executor counts from this answer, so an
        // executor that was down when the job began provisioning and answers once back is not taken for silent.
        provisioning
                .filter(job -> job.provisioningStep().orElse(ProvisioningStep.REQUESTED) == ProvisioningStep.REQUESTED)
                .ifPresent(job -> state.store(job.requestedAgainAt(now), out));
        provisioning
                .filter(job -> job.provisioningStep()
                        .filter(ProvisioningStep.RESERVATION_SHORT::equals)
                        .isPresent())
                .ifPresent(job -> state.publish(
                        job.requestedAgainAt(now).withWakeAt(Optional.of(now.plus(state.settings.provisioningRetry()))),
                        Status.Pending,
                        Optional.of(Reason.Provisioning),
                        Messages.provisioning(job.supplyMode().orElse(SupplyMode.FLEX_START)),
                        now,
                        out));
        Optional.ofNullable(state.jobs.get(creating.jobId())).ifPresent(timers::arm);
        // The reservation had room after all: a queue that held its further slots back while this job was short of
        // capacity opens them now (acquirers-per-queue).
        provisioning.flatMap(ScheduledJob::queue).ifPresent(key -> slots.startNext(key, now, out));
    }

    /**
     * The creation of a pool failed for good: the job provisioning it fails (seed section 9's end path). So does a
     * job dispatched on the pool while it waits for the pool's nodes: its provisioning retry re-sends EnsureNodePool,
     * and the executor creates the pool again when it is gone (an operator, or GKE removing a failed pool). If that
     * creation fails for good, no node will ever come, and the job would otherwise wait for nodes without a deadline
     * (a flex-start wait has none), holding its queue's slot. Such a pool is deleted, never handed on: it does not
     * exist, or exists in ERROR.
     */
    void onFailed(ExecutorEvent.NodePoolCreateFailed failed, Instant now, Decisions out) {
        Reason reason = failed.timedOut() ? Reason.NodePoolTimeout : Reason.NodePoolFailed;
        String message = failed.timedOut()
                ? Messages.nodePoolTimeout(Duration.ofSeconds(failed.timeoutSeconds()), failed.message())
                : Messages.nodePoolFailed(failed.message());
        Optional<ScheduledJob> provisioning = provisioningWith(failed.clusterId(), failed.nodePoolName());
        if (provisioning.isPresent()) {
            state.health.failed(failed.clusterId(), failed.message(), now);
            // GKE could not make the pool (capacity, a stockout, its own error, too slow): the fleet's doing
            retrying.retryOrEnd(
                    provisioning.get(),
                    RetryDecision.ofPool(reason, failed.message()),
                    reason,
                    message,
                    false,
                    now,
                    out);
            return;
        }
        NodePool pool = state.pools.get(new NodePool.PoolKey(failed.clusterId(), failed.nodePoolName()));
        Optional<ScheduledJob> awaiting = dispatchingOn(failed.clusterId(), failed.nodePoolName(), failed.jobId())
                .filter(ScheduledJob::awaitingNodes);
        if (awaiting.isPresent() && pool.state() == NodePool.State.READY) {
            state.health.failed(failed.clusterId(), failed.message(), now);
            // Not READY any more, so the ending deletes it instead of releasing it to the queue.
            state.storePool(pool.with(NodePool.State.CREATING, pool.heldBy()), out);
            retrying.retryOrEnd(
                    awaiting.get(), RetryDecision.ofPool(reason, failed.message()), reason, message, false, now, out);
        }
    }

    /**
     * Seed section 5: a reservation without enough free slices keeps the job Pending/ClusterBusy and asks again
     * later; it never falls back to another supply mode by itself. The job keeps its queue's slot and its pool
     * record (if a later attempt creates the pool, its NodePoolReady finds it). Once the pool's nodes are awaited
     * the pool exists: a late ReservationShort from an earlier attempt is ignored. A job dispatched on the pool that
     * waits for its nodes (the pool went, and its provisioning retry asks for it again) stays WaitingForNode, its Job
     * being submitted, but says that it now waits for the reservation.
     */
    void onReservationShort(ExecutorEvent.ReservationShort shortage, Instant now, Decisions out) {
        dispatchingOn(shortage.clusterId(), shortage.nodePoolName(), shortage.jobId())
                .filter(ScheduledJob::awaitingNodes)
                .ifPresent(job -> {
                    String message = Messages.waitingForPoolAgain(
                            shortage.nodePoolName(), shortage.remainingSlices(), shortage.neededSlices());
                    if (!job.shows(message)) {
                        state.publish(job, Status.Pending, Optional.of(Reason.WaitingForNode), message, now, out);
                    }
                });
        provisioningWith(shortage.clusterId(), shortage.nodePoolName())
                .filter(job -> job.provisioningStep()
                        .filter(ProvisioningStep.AWAITING_NODES::equals)
                        .isEmpty())
                .ifPresent(job -> {
                    String message = Messages.clusterBusy(shortage.remainingSlices(), shortage.neededSlices());
                    ScheduledJob busy = job.inProvisioningStep(ProvisioningStep.RESERVATION_SHORT)
                            .withWakeAt(Optional.of(now.plus(state.settings.reservationRetry())));
                    pools.releaseLingering(shortage.clusterId(), now, out);
                    if (job.shows(message)) {
                        state.store(busy, out);
                    } else {
                        out.record(Ledger.pool(
                                job,
                                io.falcon.events.decision.Decision.Kind.CAPACITY_SHORT,
                                shortage.nodePoolName(),
                                job.supplyMode().orElse(io.falcon.events.executor.SupplyMode.RESERVATION),
                                "reservation " + shortage.reservation() + " has " + shortage.remainingSlices()
                                        + " of the " + shortage.neededSlices() + " TPU VM(s) this job needs: it waits"
                                        + " ClusterBusy, keeping its queue's slot, and asks again every "
                                        + state.settings.reservationRetry().toSeconds() + " s (never another supply"
                                        + " mode by itself)",
                                now));
                        state.publish(busy, Status.Pending, Optional.of(Reason.ClusterBusy), message, now, out);
                    }
                    timers.arm(state.jobs.get(job.id()));
                });
    }

    /**
     * The job provisioning this very pool in this cluster: the pool's holder, whatever job id the event carries (a
     * pool being created can be taken over by the next job when its creator is aborted).
     */
    private Optional<ScheduledJob> provisioningWith(String clusterId, String poolName) {
        return Optional.ofNullable(state.pools.get(new NodePool.PoolKey(clusterId, poolName)))
                .filter(pool -> pool.state() == NodePool.State.CREATING)
                .flatMap(NodePool::heldBy)
                .map(state.jobs::get)
                .filter(job -> job.phase() == Phase.PROVISIONING)
                .filter(job -> job.clusterId().filter(clusterId::equals).isPresent())
                .filter(job -> job.nodePoolName().filter(poolName::equals).isPresent());
    }
}
