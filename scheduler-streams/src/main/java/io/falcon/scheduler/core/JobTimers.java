package io.falcon.scheduler.core;

import io.falcon.events.executor.FailureCause;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.Optional;

/**
 * What fires when nothing moved a job on: the phase table of docs/architecture.md (recovery rule 2). Every branch
 * looks at the {@link Phase} and its detail ({@link ProvisioningStep}, whether the Kubernetes Job was seen), never at
 * the Reason shown to users. Per phase:
 * <ul>
 *   <li>Provisioning, {@link ProvisioningStep#REQUESTED}: NodePoolTimeout after the backstop; before it,
 *       EnsureNodePool re-sent every provisioning retry.</li>
 *   <li>Provisioning, {@link ProvisioningStep#RESERVATION_SHORT} / {@link ProvisioningStep#AWAITING_NODES}:
 *       EnsureNodePool re-sent every reservation retry / provisioning retry; no deadline (seed sections 4 and 5).</li>
 *   <li>Dispatching, its pods waiting for the pool's nodes ({@link ProvisioningStep#AWAITING_NODES}, flex-start):
 *       EnsureNodePool and EnsureJob re-sent every provisioning retry (the pool created again if it went; the Job's
 *       answer carries the pool's node count); no deadline.</li>
 *   <li>Dispatching, Job not seen: EnsureJob re-sent; JobSubmitFailed after the submit deadline.</li>
 *   <li>Dispatching, Job seen: JobFailed when its pods do not all run within the dispatch deadline; Timeout at
 *       the execution deadline.</li>
 *   <li>Running: Timeout at the execution deadline (timeout_seconds or the default).</li>
 *   <li>Cancelling / Aborting: EnsureJobDeleted re-sent; a cancelling job (aborted while Dispatching, still holding
 *       its queue's slot) gives the slot up after the dispatch deadline and goes on as Aborting.</li>
 *   <li>Retrying: at the end of its backoff, placed again as a new attempt once its last attempt's Kubernetes Job is
 *       confirmed gone (that deletion is re-sent by its own timer); until then woken every cleanup retry.</li>
 * </ul>
 */
final class JobTimers {
    private final SchedulerState state;
    private final Timers timers;
    private final QueueSlots slots;
    private final JobEnding ending;

    private final Retrying retrying;

    JobTimers(SchedulerState state, Timers timers, QueueSlots slots, JobEnding ending, Retrying retrying) {
        this.state = state;
        this.timers = timers;
        this.slots = slots;
        this.ending = ending;
        this.retrying = retrying;
    }

    void fire(ScheduledJob job, Instant now, Decisions out) {
        SchedulerSettings settings = state.settings;
        Instant since = job.phaseSince().orElse(Instant.EPOCH);
        boolean wakeDue = job.wakeAt().filter(at -> !at.isAfter(now)).isPresent();
        switch (job.phase()) {
            case RETRYING -> retrying.wake(job, now, out);
            case PROVISIONING -> {
                ProvisioningStep step = job.provisioningStep().orElse(ProvisioningStep.REQUESTED);
                Instant backstop = since.plus(settings.provisioningBackstop());
                if (step == ProvisioningStep.REQUESTED && redriveLate(job, settings.provisioningRetry(), now)) {
                    // nothing asked for the pool while the scheduler was stalled or down (a restarted executor
                    // forgets what it was creating): ask now, and give the executor the backstop from now
                    ScheduledJob again =
                            job.askedAgainAt(now).withWakeAt(Optional.of(now.plus(settings.provisioningRetry())));
                    state.store(again, out);
                    out.send(state.ensurePool(again, now));
                    timers.arm(again);
                } else if (step == ProvisioningStep.REQUESTED && due(job, backstop, now)) {
                    retrying.retryOrEnd(
                            job,
                            FailureCause.infrastructure(Reason.NodePoolTimeout.name()),
                            Reason.NodePoolTimeout,
                            Messages.nodePoolTimeout(settings.provisioningBackstop(), "no answer from the executor"),
                            false,
                            now,
                            out);
                } else if (wakeDue) {
                    ScheduledJob again = job.withWakeAt(Optional.of(now.plus(
                            step == ProvisioningStep.RESERVATION_SHORT
                                    ? settings.reservationRetry()
                                    : settings.provisioningRetry())));
                    if (step == ProvisioningStep.RESERVATION_SHORT && state.reservationGone(again)) {
                        // its cluster's default_reservation was cleared while it waited for room: asking for a pool
                        // of no reservation would fail it; it waits (ClusterBusy, no deadline) for one to be set
                        String message =
                                Messages.reservationCleared(again.clusterId().orElse(""));
                        if (again.shows(message)) {
                            state.store(again, out);
                        } else {
                            state.publish(again, Status.Pending, Optional.of(Reason.ClusterBusy), message, now, out);
                        }
                        timers.arm(state.jobs.get(again.id()));
                        return;
                    }
                    state.store(again, out);
                    out.send(state.ensurePool(again, now));
                    timers.arm(again);
                }
            }
            case DISPATCHING -> {
                Optional<Instant> execution = job.executionDeadline(settings.defaultExecutionTimeout());
                if (job.awaitingNodes() && !job.jobSeen() && redriveLate(job, settings.provisioningRetry(), now)) {
                    // its Job never confirmed, and nothing asked for it while the scheduler was stalled or down: ask
                    // now, and give the executor the submit deadline from now (seed 39006: the create had taken
                    // effect, its answer was lost, and the deadline fired before the executor could say so)
                    ScheduledJob again =
                            job.askedAgainAt(now).withWakeAt(Optional.of(now.plus(settings.provisioningRetry())));
                    state.store(again, out);
                    out.send(state.ensurePool(again, now));
                    out.send(state.ensureJob(again, now));
                    timers.arm(again);
                } else if (job.awaitingNodes()
                        && !job.jobSeen()
                        && due(job, since.plus(settings.submitDeadline()), now)) {
                    // a node count made it await nodes, but its Kubernetes Job was never confirmed (every create
                    // refused): the submit deadline, as for any Job never seen
                    // no Job after asking all along (the API server failing, or the executor not answering): the
                    // fleet's doing, unlike a refusal (Execution.onSubmitFailed)
                    retrying.retryOrEnd(
                            job,
                            FailureCause.infrastructure(Reason.JobSubmitFailed.name()),
                            Reason.JobSubmitFailed,
                            Messages.submitGaveUp(
                                    settings.submitDeadline(), job.lastError().orElse("no answer from the executor")),
                            false,
                            now,
                            out);
                } else if (job.awaitingNodes()) {
                    if (wakeDue) {
                        // the desired state is the pool and the Job: a pool deleted under the waiting pods (by an
                        // operator, or GKE) is asked for again, as while provisioning, or nothing would bring them
                        // nodes
                        ScheduledJob again = job.withWakeAt(Optional.of(now.plus(settings.provisioningRetry())));
                        state.store(again, out);
                        out.send(state.ensurePool(again, now));
                        out.send(state.ensureJob(again, now));
                        timers.arm(again);
                    }
                } else if (execution.filter(at -> due(job, at, now)).isPresent()) {
                    ending.end(job, Status.Failed, Optional.of(Reason.Timeout), timeoutMessage(job), now, out);
                } else if (job.submitted()) {
                    if (due(job, job.dispatchedAt().orElseThrow().plus(settings.dispatchDeadline()), now)) {
                        ending.end(
                                job,
                                Status.Failed,
                                Optional.of(Reason.JobFailed),
                                Messages.podsNeverRan(job.k8sJobName().orElse(""), settings.dispatchDeadline()),
                                now,
                                out);
                    }
                } else if (redriveLate(job, settings.dispatchRetry(), now)) {
                    // as for the backstop above: the Job was not asked for while the scheduler was stalled or down
                    ScheduledJob again =
                            job.askedAgainAt(now).withWakeAt(Optional.of(now.plus(settings.dispatchRetry())));
                    state.store(again, out);
                    out.send(state.ensureJob(again, now));
                    timers.arm(again);
                } else if (due(job, since.plus(settings.submitDeadline()), now)) {
                    // no Job after asking all along (the API server failing, or the executor not answering): the
                    // fleet's doing, unlike a refusal (Execution.onSubmitFailed)
                    retrying.retryOrEnd(
                            job,
                            FailureCause.infrastructure(Reason.JobSubmitFailed.name()),
                            Reason.JobSubmitFailed,
                            Messages.submitGaveUp(
                                    settings.submitDeadline(), job.lastError().orElse("no answer from the executor")),
                            false,
                            now,
                            out);
                } else if (wakeDue) {
                    ScheduledJob again = job.withWakeAt(Optional.of(now.plus(settings.dispatchRetry())));
                    state.store(again, out);
                    out.send(state.ensureJob(again, now));
                    timers.arm(again);
                }
            }
            case RUNNING -> {
                if (job.executionDeadline(settings.defaultExecutionTimeout())
                        .filter(at -> due(job, at, now))
                        .isPresent()) {
                    ending.end(job, Status.Failed, Optional.of(Reason.Timeout), timeoutMessage(job), now, out);
                }
            }
            case CANCELLING, ABORTING -> {
                if (job.phase() == Phase.CANCELLING && due(job, since.plus(settings.dispatchDeadline()), now)) {
                    // The deletion cannot be confirmed (the edge cluster does not answer): the queue must not wait
                    // for it. The job stays Aborting, without the slot, and its deletion is asked for on.
                    ScheduledJob aborting = job.enter(Phase.ABORTING, now).withWakeAt(job.wakeAt());
                    state.store(aborting, out);
                    timers.arm(aborting);
                    QueueKey key = job.queue().orElseThrow();
                    state.queue(key).releaseSlot(job.id());
                    slots.startNext(key, now, out);
                    return;
                }
                if (wakeDue) {
                    ScheduledJob again = job.withWakeAt(Optional.of(now.plus(settings.abortRetry())));
                    state.store(again, out);
                    again.target().ifPresent(t -> out.send(state.ensureJobDeleted(again, t, now)));
                    timers.arm(again);
                }
            }
            default -> {}
        }
    }

    /** The job's re-drive was due more than an interval ago: the scheduler was not there to send it. */
    private static boolean redriveLate(ScheduledJob job, java.time.Duration interval, Instant now) {
        return job.wakeAt().filter(at -> at.plus(interval).isBefore(now)).isPresent();
    }

    /**
     * The deadline has passed by the scheduler's clock and the executor has reported the job's cluster observed
     * through it (plus the slack): every event that could have met it has been read. Passed but not yet covered,
     * it is held until a heartbeat covers it ({@link Observations}); the re-drives go on meanwhile.
     */
    private boolean due(ScheduledJob job, Instant deadline, Instant now) {
        if (deadline.isAfter(now)) {
            return false;
        }
        if (state.observations.covers(job, deadline, state.settings.observationSlack())) {
            return true;
        }
        state.observations.hold(job);
        return false;
    }

    private String timeoutMessage(ScheduledJob job) {
        return Messages.timeout(
                job.executionTimeout(state.settings.defaultExecutionTimeout()).toSeconds());
    }
}
