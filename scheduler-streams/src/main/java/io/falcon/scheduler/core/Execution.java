package io.falcon.scheduler.core;

import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.Optional;

/**
 * What the executor reports of a job's Kubernetes Job: submitted, refused, running, succeeded, failed, deleted. Each
 * acts only on the job dispatching or running that very Kubernetes Job in that cluster (recovery rule 1), so a
 * duplicate, a late event or one of an earlier attempt changes nothing.
 */
final class Execution {
    private final SchedulerState state;
    private final Timers timers;
    private final QueueSlots slots;
    private final JobDeletions deletions;
    private final JobEnding ending;

    Execution(SchedulerState state, Timers timers, QueueSlots slots, JobDeletions deletions, JobEnding ending) {
        this.state = state;
        this.timers = timers;
        this.slots = slots;
        this.deletions = deletions;
        this.ending = ending;
    }

    /**
     * The Kubernetes Job exists. Dispatching: record it, arm the dispatch and execution deadlines. Running already
     * (JobRunning came first): only the uid is new. Anything else (aborting, terminal): ignored.
     */
    void onSubmitted(ExecutorEvent.JobSubmitted submitted, Instant now, Decisions out) {
        executing(submitted.jobId(), submitted.clusterId(), submitted.k8sJobName())
                .ifPresent(job -> {
                    if (job.phase() == Phase.DISPATCHING && job.awaitingNodes()) {
                        // its pods wait for nodes: it stays WaitingForNode, re-driven; only the uid may be new
                        ScheduledJob updated = job.withSubmission(Optional.of(submitted.jobUid()), now);
                        if (!updated.equals(job)) {
                            state.store(updated, out);
                        }
                    } else if (job.phase() == Phase.DISPATCHING && !job.submitted()) {
                        ScheduledJob updated = job.withSubmission(Optional.of(submitted.jobUid()), now)
                                .withWakeAt(Optional.empty());
                        state.publish(
                                updated,
                                Status.Pending,
                                Optional.of(Reason.Dispatching),
                                Messages.submitted(
                                        submitted.k8sJobName(), job.request().vms()),
                                now,
                                out);
                        timers.arm(state.jobs.get(job.id()));
                    } else if (job.jobUid().isEmpty() && !submitted.jobUid().isBlank()) {
                        ScheduledJob updated = job.withSubmission(Optional.of(submitted.jobUid()), now);
                        state.publish(updated, job.status(), job.reason(), job.message(), now, out);
                    }
                });
    }

    /**
     * Dispatching and the Job not seen yet: a refusal fails the job (RBAC 403, an admission webhook, a quota on Jobs:
     * asking again changes nothing); a retryable error keeps it Dispatching, says so, and the re-drive timer asks
     * again until the submit deadline. Once the Job has been seen, a failure of an
     * earlier attempt is stale.
     */
    void onSubmitFailed(ExecutorEvent.JobSubmitFailed failed, Instant now, Decisions out) {
        executing(failed.jobId(), failed.clusterId(), failed.k8sJobName())
                .filter(job -> job.phase() == Phase.DISPATCHING && !job.jobSeen())
                .ifPresent(job -> {
                    if (job.awaitingNodes()) {
                        // A node count came before any word of the Job (reordered reports): this refusal may be an
                        // earlier attempt's. It is kept for the Message; the submit deadline of a Job never seen
                        // decides (JobTimers), so a refused Job cannot hold the slot and pool for ever.
                        state.store(job.withLastError(failed.message()), out);
                        return;
                    }
                    if (!failed.retryable()) {
                        ending.end(
                                job,
                                Status.Failed,
                                Optional.of(Reason.JobSubmitFailed),
                                Messages.jobSubmitFailed(failed.message()),
                                now,
                                out);
                        return;
                    }
                    ScheduledJob retrying = job.withLastError(failed.message());
                    String message = Messages.submitRetrying(failed.message());
                    if (message.equals(job.message())) {
                        state.store(retrying, out);
                    } else {
                        state.publish(retrying, Status.Pending, Optional.of(Reason.Dispatching), message, now, out);
                    }
                });
    }

    /**
     * All pods run. From Dispatching (even before JobSubmitted arrived): Running, the uid and dispatched_at are
     * recorded, the execution deadline armed and the queue's slot released. While Running: only a changed pod count
     * is published.
     */
    void onRunning(ExecutorEvent.JobRunning running, Instant now, Decisions out) {
        executing(running.jobId(), running.clusterId(), running.k8sJobName()).ifPresent(job -> {
            String message =
                    state.runningMessage(Messages.running(running.active(), running.expected()), running.clusterId());
            if (job.phase() == Phase.RUNNING) {
                ScheduledJob updated = job.withSubmission(Optional.of(running.jobUid()), now);
                if (!message.equals(job.message()) || !updated.jobUid().equals(job.jobUid())) {
                    state.publish(updated, Status.Running, Optional.empty(), message, now, out);
                }
                return;
            }
            // pods that waited for their nodes run now: the execution deadline counts from here
            ScheduledJob arrived = job.awaitingNodes() ? job.withNodesArrived(now) : job;
            ScheduledJob runningJob = arrived.withSubmission(Optional.of(running.jobUid()), now)
                    .enter(Phase.RUNNING, now)
                    .withWakeAt(Optional.empty());
            state.publish(runningJob, Status.Running, Optional.empty(), message, now, out);
            state.recordAcquire(runningJob, now, out);
            timers.arm(state.jobs.get(job.id()));
            out.started(state.jobs.get(job.id()));
            QueueKey key = job.queue().orElseThrow();
            state.queue(key).releaseSlot(job.id());
            slots.startNext(key, now, out);
        });
    }

    void onSucceeded(ExecutorEvent.JobSucceeded succeeded, Instant now, Decisions out) {
        executing(succeeded.jobId(), succeeded.clusterId(), succeeded.k8sJobName())
                .ifPresent(job -> {
                    if (job.phase() == Phase.RUNNING) {
                        state.recordRun(job, now, out);
                    }
                    ending.end(job, Status.Succeeded, Optional.empty(), "", now, out);
                });
    }

    void onFailed(ExecutorEvent.JobFailed failed, Instant now, Decisions out) {
        executing(failed.jobId(), failed.clusterId(), failed.k8sJobName())
                .ifPresent(job ->
                        ending.end(job, Status.Failed, Optional.of(Reason.JobFailed), failed.message(), now, out));
    }

    /** Confirms the deletion of an aborting job's Job (then Aborted), or of a finished job's. */
    void onDeleted(ExecutorEvent.JobDeleted deleted, Instant now, Decisions out) {
        deletions.confirmed(new JobDeletion.Key(deleted.clusterId(), deleted.k8sJobName()), out);
        ScheduledJob job = state.jobs.get(deleted.jobId());
        if (job != null
                && job.phase().aborting()
                && job.k8sJobName().filter(deleted.k8sJobName()::equals).isPresent()
                && job.clusterId().filter(deleted.clusterId()::equals).isPresent()) {
            ending.end(job, Status.Aborted, Optional.empty(), Messages.aborted(), true, now, out);
        }
    }

    /** The job, if it is dispatching or running this very Kubernetes Job in this cluster. */
    private Optional<ScheduledJob> executing(String jobId, String clusterId, String k8sJobName) {
        return Optional.ofNullable(state.jobs.get(jobId))
                .filter(job -> job.phase() == Phase.DISPATCHING || job.phase() == Phase.RUNNING)
                .filter(job -> job.clusterId().filter(clusterId::equals).isPresent())
                .filter(job -> job.k8sJobName().filter(k8sJobName::equals).isPresent());
    }
}
