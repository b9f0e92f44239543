package io.falcon.scheduler.core;

import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    private final Retrying retrying;

    Execution(
            SchedulerState state,
            Timers timers,
            QueueSlots slots,
            JobDeletions deletions,
            JobEnding ending,
            Retrying retrying) {
        this.state = state;
        this.timers = timers;
        this.slots = slots;
        this.deletions = deletions;
        this.ending = ending;
        this.retrying = retrying;
    }

    /**
     * The Kubernetes Job exists. Dispatching: record it, arm the dispatch and execution deadlines. Running already
     * (JobRunning came first): only the uid is new. Anything else (aborting, terminal): ignored.
     */
    void onSubmitted(ExecutorEvent.JobSubmitted submitted, Instant now, Decisions out) {
        executing(submitted.jobId(), submitted.clusterId(), submitted.k8sJobName())
                .ifPresent(job -> {
                    state.health.succeeded(submitted.clusterId(), now);
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
                    if (!failed.retryable() && askedSinceThen(job, failed)) {
                        // The refusal answers an ask the scheduler has repeated since (the executor worked through
                        // a backlog of re-sends): a later ask may have been let through (an admission webhook that
                        // refuses now and then), and failing now would leave that Job running behind a Failed row.
                        // The answer to the latest ask decides, or the submit deadline.
                        state.store(job.withLastError(failed.message()), out);
                        return;
                    }
                    if (!failed.retryable()) {
                        state.health.failed(failed.clusterId(), failed.message(), now);
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
                    if (job.shows(message)) {
                        state.store(retrying, out);
                    } else {
                        state.publish(retrying, Status.Pending, Optional.of(Reason.Dispatching), message, now, out);
                    }
                });
    }

    /**
     * Whether the scheduler asked for the Job again after the ask this refusal answers: a DISPATCHING job is asked at
     * its dispatch and again every dispatch retry, each ask setting its wake-up one retry later, so the latest ask was
     * one retry before the wake-up.
     */
    private boolean askedSinceThen(ScheduledJob job, ExecutorEvent.JobSubmitFailed failed) {
        Optional<Instant> latestAsk = job.wakeAt().map(wake -> wake.minus(state.settings.dispatchRetry()));
        return failed.askedAt()
                .flatMap(asked -> latestAsk.map(latest -> asked.isBefore(latest)))
                .orElse(false);
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
                if (!job.shows(message) || !updated.jobUid().equals(job.jobUid())) {
                    state.publish(updated, Status.Running, Optional.empty(), message, now, out);
                }
                return;
            }
            // pods that waited for their nodes run now: the execution deadline counts from here, or from when the
            // last pod was bound if they waited while Falcon could not see it (seed 92828: an executor crash loop hid
            // two hours of pods waiting for a pool scaled to zero, and the job timed out 80 s after it started)
            ScheduledJob arrived = job.awaitingNodes() ? job.withNodesArrived(now) : job;
            ScheduledJob runningJob = arrived.withSubmission(Optional.of(running.jobUid()), now)
                    .withCapacitySince(running.podsBoundAt(), now)
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
        // The fleet ended an attempt (a device of it isolated) whose program had completed, and its success is read
        // only now: the job's work is done, so it ends Succeeded, and whatever later attempt was begun is taken down.
        Optional.ofNullable(state.jobs.get(succeeded.jobId()))
                .filter(job -> !job.phase().aborting() && job.phase() != Phase.DONE)
                .filter(job -> earlierAttempt(job, succeeded.k8sJobName()))
                .ifPresent(job -> ending.end(
                        job,
                        Status.Succeeded,
                        Optional.empty(),
                        "its Kubernetes Job " + succeeded.k8sJobName() + " had completed before the fleet ended it",
                        now,
                        out));
    }

    /** Whether the Kubernetes Job is one of an attempt of the job before its current one. */
    private boolean earlierAttempt(ScheduledJob job, String k8sJobName) {
        if (job.phase() == Phase.RETRYING) {
            return job.k8sJobName().filter(k8sJobName::equals).isPresent();
        }
        for (int retries = 0; retries < job.retries(); retries++) {
            if (io.falcon.events.ResourceNames.k8sJob(state.settings.installation(), job.id(), retries)
                    .equals(k8sJobName)) {
                return true;
            }
        }
        return false;
    }

    /** The Job failed: the job ends Failed/JobFailed, or runs again if the fleet ended it and it has retries left. */
    void onFailed(ExecutorEvent.JobFailed failed, Instant now, Decisions out) {
        executing(failed.jobId(), failed.clusterId(), failed.k8sJobName())
                .ifPresent(job ->
                        retrying.retryOrEnd(job, failed.cause(), Reason.JobFailed, failed.message(), false, now, out));
        // The fleet ended the attempt (its cluster moved, a device of it isolated) as its program failed, and the
        // program's failure is read only now, before the next attempt created its Kubernetes Job: a program that
        // failed is never run again.
        Optional.ofNullable(state.jobs.get(failed.jobId()))
                .filter(job -> endedAttemptBeforeTheNextJob(job, failed))
                .filter(job -> RetryDecision.ofProgram(job, failed.cause()))
                .ifPresent(job ->
                        ending.end(job, Status.Failed, Optional.of(Reason.JobFailed), failed.message(), now, out));
    }

    /**
     * Whether the failed Job is the attempt the fleet ended before this one, and this attempt has created no Job of
     * its own yet: still waiting to run again (it keeps that Job's name), or placed again and not yet dispatched.
     */
    private boolean endedAttemptBeforeTheNextJob(ScheduledJob job, ExecutorEvent.JobFailed failed) {
        if (job.phase() == Phase.RETRYING) {
            return job.k8sJobName().filter(failed.k8sJobName()::equals).isPresent()
                    && job.clusterId().filter(failed.clusterId()::equals).isPresent();
        }
        return job.k8sJobName().isEmpty()
                && !job.phase().aborting()
                && job.phase() != Phase.DONE
                && state.settings
                        .previousK8sJobName(job)
                        .filter(failed.k8sJobName()::equals)
                        .isPresent();
    }

    /** Confirms the deletion of an aborting job's Job (then Aborted), or of a finished job's. */
    void onDeleted(ExecutorEvent.JobDeleted deleted, Instant now, Decisions out) {
        deletions.confirmed(new JobDeletion.Key(deleted.clusterId(), deleted.k8sJobName()), now, out);
        ScheduledJob job = state.jobs.get(deleted.jobId());
        if (job != null
                && job.phase().aborting()
                && job.k8sJobName().filter(deleted.k8sJobName()::equals).isPresent()
                && job.clusterId().filter(deleted.clusterId()::equals).isPresent()) {
            ending.end(job, Status.Aborted, Optional.empty(), Messages.aborted(), true, now, out);
        }
    }

    /**
     * The backstop for a lost end report: a Job the inventory lists as ended (Complete or Failed, final for its uid)
     * ends the job that counts on it as the JobSucceeded / JobFailed would have, which the executor may never have sent
     * (it crash-looped from the Job's end until someone deleted the Job, whose inventory then no longer lists it).
     */
    private void endsListed(ExecutorEvent.JobInventory inventory, Instant now, Decisions out) {
        for (ExecutorEvent.ObservedJob observed : inventory.jobs()) {
            if (observed.end().isEmpty() || observed.falconJobId().isEmpty()) {
                continue;
            }
            boolean sameJob = Optional.ofNullable(state.jobs.get(observed.falconJobId()))
                    .filter(job ->
                            job.k8sJobName().filter(observed.name()::equals).isPresent())
                    .filter(job -> job.jobUid().filter(observed.uid()::equals).isPresent())
                    .filter(job -> job.target()
                            .filter(t -> t.resourceName().equals(inventory.clusterResource()))
                            .isPresent())
                    .isPresent();
            if (!sameJob) {
                continue; // another Job of that name (a redelivered creation), or one of another cluster's
            }
            ExecutorEvent.ObservedEnd end = observed.end().get();
            if (end.succeeded()) {
                onSucceeded(
                        new ExecutorEvent.JobSucceeded(
                                inventory.meta(),
                                observed.falconJobId(),
                                inventory.clusterId(),
                                inventory.tpuType(),
                                observed.name()),
                        now,
                        out);
            } else {
                onFailed(
                        new ExecutorEvent.JobFailed(
                                inventory.meta(),
                                observed.falconJobId(),
                                inventory.clusterId(),
                                inventory.tpuType(),
                                observed.name(),
                                end.message(),
                                end.cause()),
                        now,
                        out);
            }
        }
    }

    /**
     * The backstop for a Kubernetes Job deleted by someone other than Falcon when no informer saw it go (the executor
     * was down, or its report was lost): a job dispatching or running a Job that the executor had seen created (its
     * uid is known), which an inventory of that Job's own cluster no longer lists, ends Failed/JobFailed. Not sooner
     * than the orphan grace after the Job was surely there (JobSubmitted or JobRunning was observed; for pods waiting
     * for nodes, the submit deadline after dispatching began), so that an informer's cache that has not caught up
     * with the creation never passes for a deletion. A Job Falcon deletes belongs to a job that is no longer
     * dispatching or running. A Job of the same name with another uid proves the deletion at once (names are unique:
     * the Job seen created is gone, and a redelivered creation made a new one).
     */
    void onJobInventory(ExecutorEvent.JobInventory inventory, Instant now, Decisions out) {
        endsListed(inventory, now, out);
        Map<String, String> listed = new HashMap<>();
        inventory.jobs().forEach(observed -> listed.put(observed.name(), observed.uid()));
        Instant listedAt = inventory.meta().occurredAt();
        List<String> candidates = new ArrayList<>(state.runningOn(inventory.clusterId()));
        state.queues.forEach((key, queue) -> {
            if (key.clusterId().equals(inventory.clusterId())) {
                candidates.addAll(queue.slotHolders());
            }
        });
        for (String id : candidates) {
            Optional.ofNullable(state.jobs.get(id))
                    .filter(job -> job.phase() == Phase.DISPATCHING || job.phase() == Phase.RUNNING)
                    .filter(job -> job.jobUid().isPresent())
                    .filter(job -> job.clusterId()
                            .filter(inventory.clusterId()::equals)
                            .isPresent())
                    .filter(job -> job.target()
                            .filter(t -> t.resourceName().equals(inventory.clusterResource()))
                            .isPresent())
                    .filter(job -> {
                        String uid = listed.get(job.k8sJobName().orElseThrow());
                        if (uid != null) {
                            // another Job of that name: the one seen created was deleted, and a command sent before
                            // its creation was known (a redelivery) made this one
                            return !uid.isEmpty() && !uid.equals(job.jobUid().get());
                        }
                        return existedBy(job)
                                .filter(at ->
                                        at.plus(state.settings.orphanGrace()).isBefore(listedAt))
                                .isPresent();
                    })
                    .ifPresent(job -> missing.putIfAbsent(
                            job.id(), new Missing(job.jobUid().get(), listedAt)));
        }
        judgeMissing(now, out);
    }

    /** A Job an inventory no longer listed: the uid it was seen with, and the inventory's time (executor clock). */
    private record Missing(String uid, Instant listedAt) {}

    /** Jobs whose Kubernetes Job an inventory no longer listed, until the reports that could explain it are read. */
    private final Map<String, Missing> missing = new HashMap<>();

    /**
     * Ends the jobs whose Job an inventory no longer listed, once a heartbeat covers that inventory: the executor's
     * informer may have seen the Job end (and then go) just before the inventory was taken, and its JobSucceeded or
     * JobFailed, sent before the heartbeat, may come after the inventory (seed 43266: a finished Job deleted by
     * someone else, whose success came right behind the inventory that no longer listed it). A job that ended
     * meanwhile, or whose Job was seen again under the same uid, is left alone. Kept in memory: after a restart the
     * next inventory notices again.
     */
    void judgeMissing(Instant now, Decisions out) {
        for (Map.Entry<String, Missing> entry : List.copyOf(missing.entrySet())) {
            ScheduledJob job = state.jobs.get(entry.getKey());
            boolean stillCounts = job != null
                    && (job.phase() == Phase.DISPATCHING || job.phase() == Phase.RUNNING)
                    && job.jobUid().filter(entry.getValue().uid()::equals).isPresent();
            if (!stillCounts) {
                missing.remove(entry.getKey());
                continue;
            }
            if (state.observations.covers(job, entry.getValue().listedAt(), java.time.Duration.ZERO)) {
                missing.remove(entry.getKey());
                retrying.retryOrEnd(
                        job,
                        io.falcon.events.executor.FailureCause.infrastructure("JobGone"),
                        Reason.JobFailed,
                        Messages.k8sJobDisappeared(
                                job.k8sJobName().orElseThrow(), job.clusterId().orElse("")),
                        false,
                        now,
                        out);
            }
        }
    }

    /**
     * The GKE cluster a row's pools and Kubernetes Jobs were created in is gone (GKE answered NOT_FOUND, or the cluster
     * of that name is a new one): what Falcon had there before the observation is gone with it. Its pools and Job
     * deletions are forgotten, and the jobs that took their queue's slot there before the observation end: Failed
     * (NodePoolFailed while provisioning, JobFailed after) with a Message naming the cluster, or Aborted if aborting,
     * with no Job left to delete. A job that took its slot after the observation (on a cluster of that name created
     * again) is left alone, so a late or repeated report harms nothing.
     */
    void onClusterGone(ExecutorEvent.ClusterGone gone, Instant now, Decisions out) {
        Instant observed = gone.meta().occurredAt();
        java.util.function.Predicate<Optional<ScheduledJob>> before = job -> job.flatMap(ScheduledJob::slotTakenAt)
                .map(at -> !at.isAfter(observed))
                .orElse(true);
        List<ScheduledJob> affected = state.jobs.values().stream()
                .filter(job -> job.phase() != Phase.DONE
                        && job.phase() != Phase.WAITING
                        && job.phase() != Phase.UNPLACED
                        && job.phase() != Phase.RETRYING) // its last attempt's Job deletion is forgotten below
                .filter(job -> job.clusterId().filter(gone.clusterId()::equals).isPresent())
                .filter(job -> job.target()
                        .filter(t -> t.resourceName().equals(gone.clusterResource()))
                        .isPresent())
                .filter(job -> before.test(Optional.of(job)))
                .sorted(ScheduledJob.SUBMISSION_ORDER)
                .toList();
        for (NodePool pool : List.copyOf(state.pools.values())) {
            if (!pool.clusterId().equals(gone.clusterId())
                    || !pool.target().resourceName().equals(gone.clusterResource())) {
                continue;
            }
            // created for (or last held by) a job that took its slot there before the observation
            if (before.test(pool.heldBy().or(pool::lastHolder).flatMap(state::liveOrRetired))) {
                state.removePool(pool.key());
                out.poolChanged(pool.key());
            }
        }
        for (JobDeletion deletion : List.copyOf(state.deletions.values())) {
            if (deletion.target().resourceName().equals(gone.clusterResource())
                    && deletion.key().clusterId().equals(gone.clusterId())
                    && before.test(state.liveOrRetired(deletion.jobId()))) {
                deletions.confirmed(deletion.key(), now, out);
            }
        }
        String message = Messages.clusterGone(gone.clusterResource(), gone.message());
        for (ScheduledJob stale : affected) {
            ScheduledJob job = state.jobs.get(stale.id());
            if (job == null || job.phase() == Phase.DONE) {
                continue;
            }
            if (job.phase().aborting()) {
                ending.end(job, Status.Aborted, Optional.empty(), Messages.aborted(), true, now, out);
            } else {
                Reason reason = job.phase() == Phase.PROVISIONING ? Reason.NodePoolFailed : Reason.JobFailed;
                retrying.retryOrEnd(
                        job,
                        io.falcon.events.executor.FailureCause.infrastructure("ClusterGone"),
                        reason,
                        message,
                        true,
                        now,
                        out);
            }
        }
    }

    /** By when the job's Kubernetes Job surely existed, as far as the scheduler knows. */
    private Optional<Instant> existedBy(ScheduledJob job) {
        return job.dispatchedAt().or(() -> job.phaseSince().map(since -> since.plus(state.settings.submitDeadline())));
    }

    /** The job, if it is dispatching or running this very Kubernetes Job in this cluster. */
    private Optional<ScheduledJob> executing(String jobId, String clusterId, String k8sJobName) {
        return Optional.ofNullable(state.jobs.get(jobId))
                .filter(job -> job.phase() == Phase.DISPATCHING || job.phase() == Phase.RUNNING)
                .filter(job -> job.clusterId().filter(clusterId::equals).isPresent())
                .filter(job -> job.k8sJobName().filter(k8sJobName::equals).isPresent());
    }
}
