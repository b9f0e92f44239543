package io.falcon.scheduler.core;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.StartEstimate;
import io.falcon.events.status.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The scheduler's state of one job. Immutable: every change makes a new value, which the shell persists.
 *
 * @param seq submission time in ms (FIFO order, ties by job id)
 * @param target the edge cluster (project, location, name) its node pool and Kubernetes Job live in, fixed when the
 *     job takes its queue's slot: cleanup goes there even if the clusters row is later changed or deleted
 * @param dispatchedAt when its Kubernetes Job was first seen created (JobSubmitted or JobRunning) on a pool with its
 *     nodes; when its pods wait for the nodes of a pool that gets them only for pending pods (flex-start), empty until
 *     those nodes come: execution and dispatch deadlines count from it, so that waiting for capacity does not use up
 *     timeout_seconds
 * @param phaseSince when the current phase began (submit, dispatch and provisioning deadlines count from it)
 * @param lastError the last retryable error the executor reported for it, shown when a deadline gives up
 * @param version counts published status transitions
 * @param wakeAt when the scheduler re-drives this job's command (EnsureNodePool, EnsureJob, EnsureJobDeleted)
 * @param provisioningStep where its node pool stands, present while the phase is PROVISIONING (the provisioning
 *     timers branch on it), and {@link ProvisioningStep#AWAITING_NODES} while DISPATCHING when the submitted Job's pods
 *     wait for the pool's nodes (flex-start); records stored before it existed lack it and get it from {@link
 *     #withProvisioningStepOfStoredRecord} on restore
 * @param slotTakenAt when it took its queue's slot (kept until it ends): how long the slot was held, from here to
 *     its pods running, is the history the start-time estimates are made from
 * @param startEstimate the start-time estimate its last published Waiting status carried, while it waits in a
 *     queue: a new estimate is published only when it moved by more than the tolerance
 * @param faultNote what fault-streams decided about faults of its devices while it ran (issue 18: software fault,
 *     device isolated), appended to every Message it is given from then on so its owner learns why it failed
 * @param movedAt when it last moved to another cluster's queue to start sooner: at most one move per move interval
 * @param retries how many times it was run again after the fleet ended an attempt (0 on its first attempt, and in
 *     records stored before retries existed): names its attempt's node pool and Kubernetes Job
 * @param attempts what ended each earlier attempt, one line each ("attempt 1 on cluster c1: ..."), shown in its
 *     Messages from then on and in its final one
 * @param lastFailure the Reason the fleet's last failure of it would have ended it with (it ends so if retries are
 *     switched off before its next attempt starts)
 */
public record ScheduledJob(
        ValidRequest request,
        long seq,
        Phase phase,
        Optional<String> clusterId,
        Optional<ClusterTarget> target,
        Optional<SupplyMode> supplyMode,
        Optional<String> nodePoolName,
        Optional<String> k8sJobName,
        Optional<String> jobUid,
        Optional<Instant> dispatchedAt,
        Optional<Instant> phaseSince,
        Optional<String> lastError,
        Status status,
        Optional<Reason> reason,
        String message,
        long version,
        Optional<Instant> wakeAt,
        Optional<ProvisioningStep> provisioningStep,
        Optional<Instant> slotTakenAt,
        Optional<StartEstimate> startEstimate,
        Optional<Instant> movedAt,
        Optional<String> faultNote,
        int retries,
        Optional<String> attempts,
        Optional<Reason> lastFailure) {

    public ScheduledJob {
        attempts = attempts == null ? Optional.empty() : attempts;
        lastFailure = lastFailure == null ? Optional.empty() : lastFailure;
    }

    /**
     * FIFO order is submission order: when the INSERT was committed, then its binlog position, then the job id.
     * Arrival order at the scheduler would not do (row changes reach it through differently keyed partitions), nor
     * would the row's created_at (the writer chooses it).
     */
    public static final java.util.Comparator<ScheduledJob> SUBMISSION_ORDER = java.util.Comparator.comparingLong(
                    ScheduledJob::seq)
            .thenComparingLong(j -> j.request().commitOrder())
            .thenComparing(ScheduledJob::id);

    /** A job just accepted: not yet placed; its seq is its submission's commit time. */
    public static ScheduledJob accepted(ValidRequest request) {
        return new ScheduledJob(
                request,
                request.submittedAt().toEpochMilli(),
                Phase.UNPLACED,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Status.Pending,
                Optional.of(Reason.Waiting),
                "",
                0,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                0,
                Optional.empty(),
                Optional.empty());
    }

    public String id() {
        return request.id();
    }

    public String actor() {
        return request.actor();
    }

    public Optional<QueueKey> queue() {
        return clusterId.map(c -> new QueueKey(c, request.topology().text()));
    }

    /** The Kubernetes Job has been seen created (its uid or the time it was first seen is known). */
    public boolean submitted() {
        return dispatchedAt.isPresent();
    }

    /**
     * The executor has confirmed its Kubernetes Job exists (its uid, or dispatched_at): a Job whose pods wait for a
     * flex-start pool's nodes has its uid but no dispatched_at yet.
     */
    public boolean jobSeen() {
        return jobUid.isPresent() || dispatchedAt.isPresent();
    }

    /** A new phase, starting now; a pool creation starts with its EnsureNodePool sent and no word yet. */
    public ScheduledJob enter(Phase newPhase, Instant now) {
        return with(c -> {
            c.phase = newPhase;
            c.phaseSince = Optional.of(now);
            c.lastError = Optional.empty();
            c.provisioningStep = firstStepOf(newPhase);
            c.startEstimate =
                    Optional.empty(); // an estimate is about the wait in a queue: a new phase starts without one
        });
    }

    /** Only for the terminal bookkeeping and re-placement, where no deadline depends on the phase's start. */
    public ScheduledJob withPhase(Phase newPhase) {
        return with(c -> {
            c.phase = newPhase;
            c.provisioningStep = newPhase == phase ? provisioningStep : firstStepOf(newPhase);
        });
    }

    private static Optional<ProvisioningStep> firstStepOf(Phase phase) {
        return phase == Phase.PROVISIONING ? Optional.of(ProvisioningStep.REQUESTED) : Optional.empty();
    }

    /** The provisioning job's pool moved on (capacity short, nodes awaited, creation accepted again). */
    public ScheduledJob inProvisioningStep(ProvisioningStep step) {
        return with(c -> c.provisioningStep = Optional.of(step));
    }

    /**
     * A dispatching job's pods wait for its pool's nodes: no dispatch time (and so no execution deadline) until they
     * come.
     */
    public ScheduledJob awaitingNodesOfItsPool() {
        return with(c -> {
            c.dispatchedAt = Optional.empty();
            c.provisioningStep = Optional.of(ProvisioningStep.AWAITING_NODES);
        });
    }

    /**
     * A dispatching job's pods waited for its pool's nodes, and they came now: the execution clock starts here if its
     * Job has been seen (else at JobSubmitted).
     */
    public ScheduledJob withNodesArrived(Instant now) {
        return with(c -> {
            c.dispatchedAt = jobUid.isPresent() ? Optional.of(now) : Optional.empty();
            c.phaseSince = Optional.of(now); // a submit deadline (the Job not seen yet) also counts from here
            c.provisioningStep = Optional.empty();
        });
    }

    /**
     * Its pods run, the last of them bound to its node at {@code podsBoundAt} (the edge cluster's clock): when that is
     * later than the dispatch time, the pods waited for capacity unseen (the executor was blind, or its word of the
     * wait was lost), and the execution clock starts when the slice was there, as it would have had Falcon seen the
     * wait. Never later than {@code now}, so that a cluster clock running ahead cannot push the deadline further.
     */
    public ScheduledJob withCapacitySince(Optional<Instant> podsBoundAt, Instant now) {
        if (dispatchedAt.isEmpty()
                || podsBoundAt.isEmpty()
                || !podsBoundAt.get().isAfter(dispatchedAt.get())) {
            return this;
        }
        Instant bound = podsBoundAt.get().isAfter(now) ? now : podsBoundAt.get();
        return with(c -> c.dispatchedAt = Optional.of(bound));
    }

    /** Its pods wait for the nodes of its pool (a DISPATCHING job on a flex-start pool). */
    public boolean awaitingNodes() {
        return provisioningStep.filter(ProvisioningStep.AWAITING_NODES::equals).isPresent();
    }

    /**
     * Creation asked for again after a reservation shortfall, at {@code now}: the provisioning backstop ("no word from
     * the executor") counts from here, not from when the job first started provisioning, or a job that waited
     * ClusterBusy longer than the backstop would time out the moment its pool is finally being created.
     */
    public ScheduledJob requestedAgainAt(Instant now) {
        return with(c -> {
            c.phaseSince = Optional.of(now);
            c.provisioningStep = Optional.of(ProvisioningStep.REQUESTED);
        });
    }

    /**
     * A PROVISIONING job stored before provisioningStep existed kept its step only in the Reason it showed, which
     * mirrored the step exactly (Provisioning, ClusterBusy, WaitingForNode): read it from there, once, on restore.
     */
    public ScheduledJob withProvisioningStepOfStoredRecord() {
        if (phase != Phase.PROVISIONING || provisioningStep.isPresent()) {
            return this;
        }
        ProvisioningStep step = reason.map(shown -> switch (shown) {
                    case ClusterBusy -> ProvisioningStep.RESERVATION_SHORT;
                    case WaitingForNode -> ProvisioningStep.AWAITING_NODES;
                    default -> ProvisioningStep.REQUESTED;
                })
                .orElse(ProvisioningStep.REQUESTED);
        return inProvisioningStep(step);
    }

    public ScheduledJob withCluster(Optional<String> newClusterId) {
        return with(c -> c.clusterId = newClusterId);
    }

    public ScheduledJob withTarget(ClusterTarget newTarget) {
        return with(c -> c.target = Optional.of(newTarget));
    }

    public ScheduledJob withSupplyMode(SupplyMode mode) {
        return with(c -> c.supplyMode = Optional.of(mode));
    }

    public ScheduledJob withNodePool(String pool) {
        return with(c -> c.nodePoolName = Optional.of(pool));
    }

    public ScheduledJob withK8sJob(String name) {
        return with(c -> c.k8sJobName = Optional.of(name));
    }

    /** The Kubernetes Job exists: its uid (when the event carried one) and when it was first seen. */
    public ScheduledJob withSubmission(Optional<String> uid, Instant seenAt) {
        return with(c -> {
            c.jobUid = jobUid.or(() -> uid.filter(u -> !u.isBlank()));
            c.dispatchedAt = awaitingNodes() ? dispatchedAt : Optional.of(dispatchedAt.orElse(seenAt));
        });
    }

    public ScheduledJob withLastError(String error) {
        return with(c -> c.lastError = Optional.of(error));
    }

    /**
     * What the retired store keeps of a finished job: everything a status or a lookup needs, but not the workload's
     * command, arguments and environment (the bulk of a record, and never read again once the job ended), so that
     * a day of finished jobs is small on disk and in the changelog a cold restore reads.
     */
    public ScheduledJob retiredForm() {
        ValidRequest slim = request.withSpec(new JobSpec(request.spec().image(), List.of(), List.of(), Map.of()));
        return with(c -> {
            c.request = slim;
            c.lastError = Optional.empty();
            c.wakeAt = Optional.empty();
            c.provisioningStep = Optional.empty();
            c.slotTakenAt = Optional.empty();
            c.startEstimate = Optional.empty();
        });
    }

    /** The next published status; the version grows so that writers can drop stale events. */
    public ScheduledJob withStatus(Status newStatus, Optional<Reason> newReason, String newMessage) {
        return with(c -> {
            c.status = newStatus;
            c.reason = newReason;
            c.message = newMessage;
            c.version = version + 1;
        });
    }

    public ScheduledJob withSlotTakenAt(Instant at) {
        return with(c -> c.slotTakenAt = Optional.of(at));
    }

    public ScheduledJob withStartEstimate(Optional<StartEstimate> estimate) {
        return with(c -> c.startEstimate = estimate);
    }

    public ScheduledJob withMovedAt(Instant at) {
        return with(c -> c.movedAt = Optional.of(at));
    }

    /** When the scheduler must re-drive this job's command, if ever. */
    /**
     * Its command is sent again only now, more than a re-drive interval late (the scheduler was stalled or down, so
     * nothing drove the desired state meanwhile): a deadline that waits for the executor's answer to that command
     * (the provisioning backstop, the submit deadline) counts from now, as if it had just been asked.
     */
    public ScheduledJob askedAgainAt(Instant now) {
        return with(c -> c.phaseSince = Optional.of(now));
    }

    /** The job with another priority (an upper component changed the column while it waits). */
    public ScheduledJob withPriority(int priority) {
        ValidRequest changed = request.withPriority(priority);
        return with(c -> c.request = changed);
    }

    public ScheduledJob withWakeAt(Optional<Instant> at) {
        return with(c -> c.wakeAt = at);
    }

    /** How long the job may run: its timeout_seconds, else the configured default. */
    public Duration executionTimeout(Duration defaultTimeout) {
        return request.timeoutSeconds().map(Duration::ofSeconds).orElse(defaultTimeout);
    }

    /** dispatched_at + timeout (seed: 执行超时 counts from dispatched_at). */
    public Optional<Instant> executionDeadline(Duration defaultTimeout) {
        return dispatchedAt.map(d -> d.plus(executionTimeout(defaultTimeout)));
    }

    /**
     * A Message as it is published for this job: ending with what fault-streams decided about its devices, and, from
     * its second attempt on, which attempt it is and how the others ended (while it waits to run again its Retrying
     * Message says so already). Whether a new Message differs from the one shown is asked of this form.
     */
    public String shown(String message) {
        String withFault = faultNote
                .map(n -> FaultNotes.withNote(message, Optional.of(n), n))
                .orElse(message);
        if (phase == Phase.RETRYING || attempts.isEmpty()) {
            return withFault;
        }
        return Messages.withAttempts(withFault, retries, attempts.get());
    }

    /** Whether the job shows this Message now (as {@link #shown} would publish it). */
    public boolean shows(String message) {
        return shown(message).equals(this.message);
    }

    /** With what fault-streams decided about its devices (see {@link #faultNote}). */
    public ScheduledJob withFaultNote(String note) {
        return with(c -> c.faultNote = Optional.of(note));
    }

    /**
     * The fleet ended this attempt ({@code ended}: how) and the job runs again: Retrying from now, one more retry, the
     * attempt's line in its story. It keeps the cluster, target, pool and Kubernetes Job name of the attempt that
     * ended (it waits for that Job's deletion, and the pool goes after it) and loses the rest of it: uid, dispatch,
     * slot, fault note.
     */
    public ScheduledJob retrying(String ended, Reason failure, Instant now) {
        String line = "attempt " + (retries + 1)
                + (clusterId.map(c -> " on cluster " + c).orElse("")) + ": " + ended;
        return enter(Phase.RETRYING, now).with(c -> {
            c.retries = retries + 1;
            c.attempts = Optional.of(attempts.map(a -> a + "; ").orElse("") + line);
            c.lastFailure = Optional.of(failure);
            c.jobUid = Optional.empty();
            c.dispatchedAt = Optional.empty();
            c.slotTakenAt = Optional.empty();
            c.movedAt = Optional.empty();
            c.faultNote = Optional.empty();
        });
    }

    /** A retrying job's new attempt, to be placed: nothing left of the last attempt's cluster or Kubernetes Job. */
    public ScheduledJob forPlacementAgain() {
        return with(c -> {
            c.phase = Phase.UNPLACED;
            c.clusterId = Optional.empty();
            c.target = Optional.empty();
            c.supplyMode = Optional.empty();
            c.nodePoolName = Optional.empty();
            c.k8sJobName = Optional.empty();
        });
    }

    /** A copy with the change applied: each wither names only what it changes. */
    private ScheduledJob with(java.util.function.Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.build();
    }

    /** The job's fields, to change some of them and build a new value. */
    private static final class Copy {
        ValidRequest request;
        long seq;
        Phase phase;
        Optional<String> clusterId;
        Optional<ClusterTarget> target;
        Optional<SupplyMode> supplyMode;
        Optional<String> nodePoolName;
        Optional<String> k8sJobName;
        Optional<String> jobUid;
        Optional<Instant> dispatchedAt;
        Optional<Instant> phaseSince;
        Optional<String> lastError;
        Status status;
        Optional<Reason> reason;
        String message;
        long version;
        Optional<Instant> wakeAt;
        Optional<ProvisioningStep> provisioningStep;
        Optional<Instant> slotTakenAt;
        Optional<StartEstimate> startEstimate;
        Optional<Instant> movedAt;
        Optional<String> faultNote;
        int retries;
        Optional<String> attempts;
        Optional<Reason> lastFailure;

        Copy(ScheduledJob job) {
            this.request = job.request;
            this.seq = job.seq;
            this.phase = job.phase;
            this.clusterId = job.clusterId;
            this.target = job.target;
            this.supplyMode = job.supplyMode;
            this.nodePoolName = job.nodePoolName;
            this.k8sJobName = job.k8sJobName;
            this.jobUid = job.jobUid;
            this.dispatchedAt = job.dispatchedAt;
            this.phaseSince = job.phaseSince;
            this.lastError = job.lastError;
            this.status = job.status;
            this.reason = job.reason;
            this.message = job.message;
            this.version = job.version;
            this.wakeAt = job.wakeAt;
            this.provisioningStep = job.provisioningStep;
            this.slotTakenAt = job.slotTakenAt;
            this.startEstimate = job.startEstimate;
            this.movedAt = job.movedAt;
            this.faultNote = job.faultNote;
            this.retries = job.retries;
            this.attempts = job.attempts;
            this.lastFailure = job.lastFailure;
        }

        ScheduledJob build() {
            return new ScheduledJob(
                    request,
                    seq,
                    phase,
                    clusterId,
                    target,
                    supplyMode,
                    nodePoolName,
                    k8sJobName,
                    jobUid,
                    dispatchedAt,
                    phaseSince,
                    lastError,
                    status,
                    reason,
                    message,
                    version,
                    wakeAt,
                    provisioningStep,
                    slotTakenAt,
                    startEstimate,
                    movedAt,
                    faultNote,
                    retries,
                    attempts,
                    lastFailure);
        }
    }
}
