package io.falcon.scheduler.core;

import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.Optional;

/**
 * How a job ends, whatever ends it (success, failure, deadline, abort, a lost cluster): the one deprovisioning path of
 * seed section 8. Its Kubernetes Job's deletion is remembered until confirmed, its queue's slot is freed, and its node
 * pool goes to the next job of the same queue or is deleted.
 */
final class JobEnding {
    private final SchedulerState state;
    private final Timers timers;
    private final QueueSlots slots;
    private final PoolLifecycle pools;
    private final JobDeletions deletions;

    private final UpperWrites upperWrites;

    JobEnding(
            SchedulerState state,
            Timers timers,
            QueueSlots slots,
            PoolLifecycle pools,
            JobDeletions deletions,
            UpperWrites upperWrites) {
        this.upperWrites = upperWrites;
        this.state = state;
        this.timers = timers;
        this.slots = slots;
        this.pools = pools;
        this.deletions = deletions;
    }

    /**
     * Seed section 8. A waiting job leaves its queue at once. A job that may already have a Kubernetes Job goes
     * to Aborting until the executor confirms the deletion; then its pool goes through the same deprovisioning
     * path as any ending job. A job still provisioning releases its pool at once.
     */
    void abort(String jobId, Instant now, Decisions out) {
        ScheduledJob job = state.jobs.get(jobId);
        if (job == null) {
            upperWrites.abortOfNoLiveJob(jobId, now, out);
            return;
        }
        if (job.phase() == Phase.DONE) {
            return;
        }
        if (job.phase().aborting()) {
            return;
        }
        switch (job.phase()) {
            case UNPLACED -> {
                state.unplaced.remove(job.id());
                end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out);
            }
            case WAITING -> {
                QueueKey key = job.queue().orElseThrow();
                state.queue(key).remove(state.entry(job));
                end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out);
                slots.refreshPositions(key, now, out);
            }
            case DISPATCHING, RUNNING -> {
                // A dispatching job keeps its queue's slot until its Kubernetes Job is gone (seed section 4: the slot
                // is released when pods run or the job ends); then its pool goes to the next job of the queue.
                String k8sJob = job.k8sJobName().orElse(state.settings.k8sJobName(job));
                Phase next = job.phase() == Phase.DISPATCHING ? Phase.CANCELLING : Phase.ABORTING;
                ScheduledJob aborting = job.enter(next, now)
                        .withK8sJob(k8sJob)
                        .withWakeAt(Optional.of(now.plus(state.settings.abortRetry())));
                job.target().ifPresent(t -> out.send(state.ensureJobDeleted(aborting, t, now)));
                state.publish(aborting, Status.Aborting, Optional.empty(), Messages.aborting(), now, out);
                timers.arm(state.jobs.get(job.id()));
            }
            case RETRYING -> {
                // between two attempts: Aborted once the last attempt's Kubernetes Job is confirmed gone, as when
                // aborted while running
                if (!state.lastJobDeletionPending(job)) {
                    end(job, Status.Aborted, Optional.empty(), Messages.aborted(), true, now, out);
                    return;
                }
                ScheduledJob aborting =
                        job.enter(Phase.ABORTING, now).withWakeAt(Optional.of(now.plus(state.settings.abortRetry())));
                state.publish(aborting, Status.Aborting, Optional.empty(), Messages.aborting(), now, out);
                timers.arm(state.jobs.get(job.id()));
            }
            default -> end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out);
        }
    }

    /**
     * A Kubernetes Job's deletion is confirmed (the Job and its unfinished pods are gone): the READY pool its finished
     * job kept for it goes on now, as at the end (to the queue's provisioning job, the next job, or its linger).
     */
    void k8sJobGone(JobDeletion deletion, Instant now, Decisions out) {
        state.liveOrRetired(deletion.jobId())
                .filter(job -> job.phase() == Phase.DONE)
                .filter(job ->
                        job.k8sJobName().filter(deletion.k8sJobName()::equals).isPresent())
                .filter(job -> job.clusterId()
                        .filter(deletion.key().clusterId()::equals)
                        .isPresent())
                .flatMap(job -> job.nodePoolName()
                        .map(name -> new NodePool.PoolKey(deletion.key().clusterId(), name)))
                .map(state.pools::get)
                .filter(p -> p.state() == NodePool.State.READY)
                .filter(p -> p.heldBy().filter(deletion.jobId()::equals).isPresent())
                .ifPresent(p -> pools.release(p.idle(now), now, out));
    }

    /** Ends a job in any active phase; its Kubernetes Job, if it has one, is to be deleted. */
    void end(ScheduledJob job, Status status, Optional<Reason> reason, String message, Instant now, Decisions out) {
        end(job, status, reason, message, false, now, out);
    }

    /** k8sJobGone: the executor confirmed its Kubernetes Job deleted, so no deletion is left to ask for. */
    void end(
            ScheduledJob job,
            Status status,
            Optional<Reason> reason,
            String message,
            boolean k8sJobGone,
            Instant now,
            Decisions out) {
        boolean heldSlot = job.phase().holdsSlot();
        if (!k8sJobGone) {
            job.k8sJobName()
                    .ifPresent(name -> job.target()
                            .ifPresent(t -> deletions.request(new JobDeletion(t, name, job.id(), now), now, out)));
        }
        state.unplaced.remove(job.id());
        ScheduledJob done = job.enter(Phase.DONE, now).withWakeAt(Optional.empty());
        state.store(done, out);
        state.publishEnd(done, status, reason, message, now, out);
        Optional<NodePool> pool = job.nodePoolName()
                .flatMap(name -> job.clusterId().map(c -> new NodePool.PoolKey(c, name)))
                .map(state.pools::get)
                .filter(p -> p.heldBy().filter(job.id()::equals).isPresent());
        if (heldSlot) {
            job.queue().ifPresent(key -> state.queue(key).releaseSlot(job.id()));
        }
        if (pool.filter(p -> p.state() == NodePool.State.READY).isPresent()) {
            if (!k8sJobGone
                    && status != Status.Succeeded
                    && job.k8sJobName().isPresent()
                    && job.target().isPresent()) {
                // Its pods may still run (a deadline, an abort's end without the executor's word) or terminate
                // (a failed pod's siblings): they hold the chips until they are gone, and the next job's pods would
                // start on the freed hosts of a multi-host slice while the others wait. The finished job keeps the
                // pool until its Job's deletion is confirmed (k8sJobGone); a succeeded Job's pods have all ended. A
                // refused submission may have made one all the same: a later attempt, asked for before the refusal
                // was read, can have been let through (an admission webhook that refuses now and then), so it waits
                // too (the deletion of a Job that is not there is confirmed at once). The freed slot goes on meanwhile
                // (a pod stuck terminating on a dead
                // node must not stop the queue): its next job has a pool created, and takes this one instead if it
                // is still creating its own when this one is free (PoolLifecycle.release).
                if (heldSlot) {
                    job.queue().ifPresent(key -> slots.startNext(key, now, out));
                }
                return;
            }
            pools.release(pool.get().idle(now), now, out);
            return;
        }
        if (pool.isPresent() && status == Status.Aborted && heldSlot) {
            // Seed section 8: an abort does not skip the reuse check. The pool being created goes to the next job
            // of the queue if it suits it, else it is deleted.
            NodePool orphan = pool.get().with(NodePool.State.CREATING, Optional.empty());
            state.storePool(orphan, out);
            job.queue().ifPresent(key -> slots.startNext(key, now, out));
            NodePool after = state.pools.get(orphan.key());
            if (after != null && after.heldBy().isEmpty() && after.state() == NodePool.State.CREATING) {
                pools.delete(after, now, out);
            }
            return;
        }
        pool.ifPresent(p -> pools.delete(p, now, out));
        if (heldSlot) {
            job.queue().ifPresent(key -> slots.startNext(key, now, out));
        }
    }
}
