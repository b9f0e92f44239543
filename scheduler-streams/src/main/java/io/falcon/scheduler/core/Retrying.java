package io.falcon.scheduler.core;

import io.falcon.events.executor.FailureCause;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Running a job again after the fleet ended its attempt ({@link RetryDecision}), under its id (docs/architecture.md,
 * Retries). An attempt the fleet ended (a node lost, a pod preempted or evicted, its Kubernetes Job gone) goes:
 *
 * <ol>
 *   <li>its Kubernetes Job is deleted (remembered and re-sent until confirmed, {@link JobDeletions}), and its node
 *       pool deleted, never handed to another job or attempt; a slot it held goes to the next job of its queue;</li>
 *   <li>the job waits Pending/Retrying ({@link Phase#RETRYING}) until that Job is confirmed gone (at most one attempt
 *       is ever live) and its backoff has passed; its wake-up is the timer;</li>
 *   <li>then it is placed again as a new attempt: a cluster chosen among the eligible ones, a queue, a fresh pool and
 *       Kubernetes Job under the attempt's own names ({@link SchedulerSettings#nodePoolName(ScheduledJob)}).</li>
 * </ol>
 *
 * An abort while it waits ends it Aborted once that Job is gone ({@link JobEnding#abort}).
 */
final class Retrying {
    private static final String FAILED_POOL = "its job's attempt failed; the next attempt gets a new pool";

    /**
     * When attempts ended on each cluster ran again, within the last hour (the per-cluster budget). Kept in memory: a
     * restart forgets it, and each job's own retries still bound what follows.
     */
    private final Map<String, java.util.ArrayDeque<Instant>> retriedOn = new HashMap<>();

    private int clusterRetries(ScheduledJob job, Instant now) {
        return job.clusterId()
                .map(retriedOn::get)
                .map(times -> {
                    Instant hourAgo = now.minus(Duration.ofHours(1));
                    while (!times.isEmpty() && times.peekFirst().isBefore(hourAgo)) {
                        times.pollFirst();
                    }
                    return times.size();
                })
                .orElse(0);
    }

    /** The most of one attempt's ending a job's story keeps. */
    static final int MAX_ENDED_CHARS = 200;

    private final SchedulerState state;
    private final Timers timers;
    private final QueueSlots slots;
    private final PoolLifecycle pools;
    private final JobDeletions deletions;
    private final JobEnding ending;
    private Placement placement;

    Retrying(
            SchedulerState state,
            Timers timers,
            QueueSlots slots,
            PoolLifecycle pools,
            JobDeletions deletions,
            JobEnding ending) {
        this.state = state;
        this.timers = timers;
        this.slots = slots;
        this.pools = pools;
        this.deletions = deletions;
        this.ending = ending;
    }

    /** Placement is built after this step (it needs the ending path); wired once both exist. */
    void placeWith(Placement placement) {
        this.placement = placement;
    }

    /**
     * The attempt failed as {@code cause} says: runs the job again if {@link RetryDecision} lets it, else ends it
     * Failed with the reason and message given.
     */
    void retryOrEnd(
            ScheduledJob job,
            FailureCause cause,
            Reason reason,
            String message,
            boolean k8sJobGone,
            Instant now,
            Decisions out) {
        RetryDecision decision =
                RetryDecision.of(job, cause, state.settings.retries(), clusterRetries(job, now), state.retrySwitch);
        out.retryDecided(new Decisions.RetryOutcome(
                reason.name(), cause.kind().name().toLowerCase(java.util.Locale.ROOT), decision.outcome()));
        if (decision instanceof RetryDecision.Retry retry) {
            begin(job, retry, reason, message, k8sJobGone, now, out);
        } else {
            ending.end(job, Status.Failed, Optional.of(reason), message, k8sJobGone, now, out);
        }
    }

    /**
     * fault-streams isolated a device of the job's running attempt (a hardware fault, seen often enough): with retries
     * left, the attempt ends and the job runs again on a fresh pool, off that chip; without, it runs on as before (its
     * Message says what was isolated). Only a fault received since the attempt took its slot counts: a late verdict
     * about an earlier attempt's device never ends a later one.
     */
    void deviceIsolated(ScheduledJob job, io.falcon.events.fault.FaultVerdict verdict, Instant now, Decisions out) {
        if ((job.phase() != Phase.RUNNING && job.phase() != Phase.DISPATCHING)
                || job.clusterId().filter(verdict.clusterId()::equals).isEmpty()
                || job.slotTakenAt()
                        .filter(at ->
                                Instant.ofEpochMilli(verdict.receiveTimeMs()).isBefore(at))
                        .isPresent()) {
            return;
        }
        String where = verdict.nodeName() + "/" + verdict.deviceName();
        FailureCause cause = FailureCause.infrastructure("DeviceIsolated: " + where);
        RetryDecision decision =
                RetryDecision.of(job, cause, state.settings.retries(), clusterRetries(job, now), state.retrySwitch);
        if (decision instanceof RetryDecision.Retry retry) {
            out.retryDecided(new Decisions.RetryOutcome("DeviceIsolated", "infrastructure", retry.outcome()));
            begin(
                    job,
                    retry,
                    Reason.JobFailed,
                    "device " + where + " of its slice was isolated (hardware fault)",
                    false,
                    now,
                    out);
        }
    }

    private void begin(
            ScheduledJob job,
            RetryDecision.Retry retry,
            Reason failure,
            String message,
            boolean k8sJobGone,
            Instant now,
            Decisions out) {
        boolean heldSlot = job.phase().holdsSlot();
        job.clusterId()
                .ifPresent(c -> retriedOn
                        .computeIfAbsent(c, k -> new java.util.ArrayDeque<>())
                        .addLast(now));
        if (!k8sJobGone) {
            job.k8sJobName()
                    .ifPresent(name -> job.target()
                            .ifPresent(t -> deletions.request(new JobDeletion(t, name, job.id(), now), now, out)));
        }
        Optional<NodePool> pool = job.nodePoolName()
                .flatMap(name -> job.clusterId().map(c -> new NodePool.PoolKey(c, name)))
                .map(state.pools::get)
                .filter(p -> p.heldBy().filter(job.id()::equals).isPresent());
        boolean jobMayLive = !k8sJobGone && job.k8sJobName().isPresent();
        pool.ifPresent(p -> {
            if (jobMayLive) {
                // its pods may still run or terminate there: the pool goes once the Job is gone (placeAgain), as at
                // any end; not READY meanwhile, so nothing hands it on (an abort's end deletes it too)
                state.storePool(p.with(NodePool.State.CREATING, p.heldBy()), out);
            } else {
                pools.delete(p, FAILED_POOL, now, out);
            }
        });
        if (heldSlot) {
            job.queue().ifPresent(key -> state.queue(key).releaseSlot(job.id()));
        }
        Duration wait = state.settings.retries().backoffBefore(job.retries());
        String ended =
                bounded(job.faultNote().map(n -> message + " (" + n + ")").orElse(message));
        ScheduledJob retrying = job.retrying(ended, failure, now).withWakeAt(Optional.of(now.plus(wait)));
        String text = Messages.retrying(
                retrying.retries() + 1, retry.maxRetries() + 1, ended, now.plus(wait), state.settings.messageZone());
        out.record(Ledger.retried(
                job,
                "attempt " + retrying.retries() + " ended by " + retry.why() + ": " + ended + "; attempt "
                        + (retrying.retries() + 1) + " of " + (retry.maxRetries() + 1) + " is placed once its"
                        + " Kubernetes Job is gone and after " + Messages.duration(wait),
                now));
        state.publish(retrying, Status.Pending, Optional.of(Reason.Retrying), text, now, out);
        timers.arm(state.jobs.get(job.id()));
        if (heldSlot) {
            job.queue().ifPresent(key -> slots.startNext(key, now, out));
        }
    }

    /** Its wake-up: placed again once the last attempt's Job is gone; until then it waits (the deletion is re-sent). */
    void wake(ScheduledJob job, Instant now, Decisions out) {
        if (job.wakeAt().filter(at -> !at.isAfter(now)).isEmpty()) {
            return;
        }
        if (!backoffOver(job, now)) {
            ScheduledJob later = job.withWakeAt(Optional.of(backoffEnd(job)));
            state.store(later, out);
            timers.arm(later);
            return;
        }
        if (state.lastJobDeletionPending(job)) {
            ScheduledJob waiting = job.withWakeAt(Optional.of(now.plus(state.settings.cleanupRetry())));
            state.store(waiting, out);
            timers.arm(waiting);
            return;
        }
        placeAgain(job, now, out);
    }

    /** A Kubernetes Job's deletion is confirmed: the job whose last attempt it was goes on if its backoff passed. */
    void k8sJobGone(JobDeletion deletion, Instant now, Decisions out) {
        Optional.ofNullable(state.jobs.get(deletion.jobId()))
                .filter(job -> job.phase() == Phase.RETRYING)
                .filter(job ->
                        job.k8sJobName().filter(deletion.k8sJobName()::equals).isPresent())
                .filter(job -> backoffOver(job, now))
                .ifPresent(job -> placeAgain(job, now, out));
    }

    /** The wait before this attempt, counted from when the last one ended (its wake-up may be a later check). */
    private boolean backoffOver(ScheduledJob job, Instant now) {
        return !now.isBefore(backoffEnd(job));
    }

    private Instant backoffEnd(ScheduledJob job) {
        Duration wait = state.settings.retries().backoffBefore(Math.max(0, job.retries() - 1));
        return job.phaseSince().map(since -> since.plus(wait)).orElse(Instant.EPOCH);
    }

    /**
     * The queues this step placed retrying jobs in, and those jobs: they join their queue at once (so that whatever
     * else this step starts picks among them by the rule) and the queues start their next jobs at the step's end
     * ({@link #placeWoken}), so that the order they woke in does not decide who starts.
     */
    private final Map<QueueKey, List<String>> placedIn = new HashMap<>();

    /** Starts what the queues the step placed retrying jobs in may start (Placement.startPlaced). */
    void placeWoken(Instant now, Decisions out) {
        if (placedIn.isEmpty()) {
            return;
        }
        Map<QueueKey, List<String>> placed = new HashMap<>(placedIn);
        placedIn.clear();
        placement.startPlaced(placed, now, out);
    }

    private void placeAgain(ScheduledJob job, Instant now, Decisions out) {
        if (!state.retriesOn()) {
            endSwitchedOff(job, now, out);
            return;
        }
        // the last attempt's pool, kept while its Job might run there, goes now
        job.nodePoolName()
                .flatMap(name -> job.clusterId().map(c -> new NodePool.PoolKey(c, name)))
                .map(state.pools::get)
                .filter(p -> p.heldBy().filter(job.id()::equals).isPresent())
                .filter(p -> p.state() != NodePool.State.DELETING)
                .ifPresent(p -> pools.delete(p, FAILED_POOL, now, out));
        ScheduledJob fresh = job.forPlacementAgain().withWakeAt(Optional.empty());
        state.store(fresh, out);
        timers.arm(fresh);
        placement
                .placeOnly(fresh, now, out)
                .ifPresent(key ->
                        placedIn.computeIfAbsent(key, k -> new ArrayList<>()).add(fresh.id()));
    }

    /**
     * Retries were just switched off: a job placed again that has not begun its attempt (it waits for its queue's
     * slot, or to be placed) never begins it, and ends as its last attempt did. One whose attempt acquires its pool
     * already, or runs, goes on: that attempt began before the switch.
     */
    void switchedOff(Instant now, Decisions out) {
        for (ScheduledJob job : List.copyOf(state.jobs.values())) {
            if (job.retries() > 0 && (job.phase() == Phase.UNPLACED || job.phase() == Phase.WAITING)) {
                endSwitchedOff(job, now, out);
            }
        }
    }

    /**
     * Retries were switched off while the job waited to run again: its next attempt never starts, and it ends
     * Failed as its last attempt did (its Kubernetes Job is gone already: placeAgain comes only after that).
     */
    private void endSwitchedOff(ScheduledJob job, Instant now, Decisions out) {
        String off = state.retrySwitch
                .map(io.falcon.events.control.RetrySwitch::told)
                .orElse("switched off (falcon.scheduler.retry.enabled)");
        out.retryDecided(new Decisions.RetryOutcome(
                job.lastFailure().map(Reason::name).orElse(Reason.JobFailed.name()), "infrastructure", "off"));
        out.record(Ledger.retried(job, "attempt " + (job.retries() + 1) + " not started: retries are " + off, now));
        Optional<QueueKey> leftQueue = Optional.empty();
        if (job.phase() == Phase.WAITING) {
            leftQueue = job.queue();
            leftQueue.ifPresent(key -> state.queue(key).remove(state.entry(job)));
        } else if (job.phase() == Phase.UNPLACED) {
            state.unplaced.remove(job.id());
        }
        ending.end(
                job,
                Status.Failed,
                Optional.of(job.lastFailure().orElse(Reason.JobFailed)),
                "not run again: retries are " + off,
                true,
                now,
                out);
        leftQueue.ifPresent(key -> slots.refreshPositions(key, now, out));
    }

    private static String bounded(String text) {
        return text.length() <= MAX_ENDED_CHARS ? text : text.substring(0, MAX_ENDED_CHARS - 3) + "...";
    }
}
