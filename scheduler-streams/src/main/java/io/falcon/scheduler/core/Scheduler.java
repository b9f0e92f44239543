package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorEvent;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The scheduling state machine of the jobs it is given (one instance per stream task, which owns whole TPU
 * types). Plain Java: every input is a method call with the current time, every output is in the returned
 * {@link Decisions}. The shell persists changed state and forwards statuses and commands. This class is the facade:
 * it takes each input through the steps below, which live in the package's step classes (intake and placement:
 * {@link Placement}; queues and slots: {@link QueueSlots}; pool lifecycle: {@link PoolLifecycle}, {@link
 * Provisioning}; Kubernetes Jobs: {@link Execution}, {@link JobDeletions}; ending: {@link JobEnding}; timers: {@link
 * Timers}, {@link JobTimers}; orphans: {@link Orphans}; clusters: {@link ClusterChanges}; wording: {@link Messages}).
 *
 * <h2>The steps taken for each input</h2>
 *
 * <p><b>submit</b> (a jobs row inserted):
 * <ol>
 *   <li>A job already known (redelivery, a CDC snapshot), live or finished within the retention, is ignored.</li>
 *   <li>The request is validated ({@link RequestValidator}); an invalid one gets one Failed/InvalidSpec status naming
 *       the field, and nothing is kept.</li>
 *   <li>The valid job is kept, and its cluster chosen ({@link ClusterChoice}: an active cluster of its TPU type, one
 *       with an idle pool of its topology first, then the soonest expected start when every candidate has history,
 *       then the shortest queue). None: it is parked (Waiting, the Message says why) until a cluster of its type
 *       becomes active; stop.</li>
 *   <li>It joins its (cluster, topology) queue, ranked by priority with aging ({@link WaitQueue}); the first waiting
 *       jobs of that queue are told their positions and start-time estimates ({@link StartEstimates}).</li>
 *   <li>If the queue's slot is free, the next job by the pick rule takes it (<i>start-next</i>, below).</li>
 *   <li>If the job still waits behind the kept-current positions, it is told its position.</li>
 * </ol>
 *
 * <p><b>abort</b> (a jobs row set to Aborting):
 * <ol>
 *   <li>A job unknown, done or already aborting is ignored.</li>
 *   <li>Unplaced: Aborted. Waiting: it leaves its queue, Aborted, and the queue's positions are told again.</li>
 *   <li>Dispatching: Cancelling (it keeps the queue's slot); Running: Aborting. EnsureJobDeleted is sent and re-sent
 *       every abort retry; JobDeleted then takes it down the <i>end path</i> as Aborted.</li>
 *   <li>Provisioning: the <i>end path</i> at once, as Aborted.</li>
 * </ol>
 *
 * <p><b>clusterUpserted</b> (a clusters row inserted or changed):
 * <ol>
 *   <li>The row is kept.</li>
 *   <li>Its TPU type changed: the cluster is lost to its old type (as in clusterRemoved), then the backlog of its new
 *       type is placed again; stop.</li>
 *   <li>It names another GKE cluster (name, project or location changed): its active jobs end (the <i>end path</i>,
 *       Failed, or Aborted if aborting), their resources deleted at the old location.</li>
 *   <li>It left active: its waiting jobs are placed again, oldest first.</li>
 *   <li>It became active: every job of its TPU type that has not started is placed again, oldest first.</li>
 *   <li>Its status changed: its running jobs' Messages note the status, or stop noting it.</li>
 * </ol>
 *
 * <p><b>clusterRemoved</b> (a clusters row deleted, or the cluster left this task's TPU types):
 * <ol>
 *   <li>The row is forgotten first, so that nothing below starts a job or reuses a pool there.</li>
 *   <li>Its active jobs end (the <i>end path</i>, Failed naming the cluster, Aborted if aborting), slot holders
 *       first.</li>
 *   <li>Its waiting jobs are placed again on the other clusters, oldest first; its queues are forgotten.</li>
 *   <li>Its pools are deleted where they were created; what the orphan sweep saw there is forgotten.</li>
 * </ol>
 *
 * <p><b>observe</b> (an executor event): first, the job or pool the event is about must be in the phase and hold the
 * resource (pool, Kubernetes Job, cluster) the event names; anything else is ignored (recovery rule 1). Then:
 * <ol>
 *   <li>NodePoolReady: the provisioning job dispatches on its pool (Dispatching, EnsureJob, re-sent every dispatch
 *       retry); a pool nobody provisions is deleted.</li>
 *   <li>NodePoolCreating: a job short of reservation capacity is back to {@link ProvisioningStep#REQUESTED}
 *       (Provisioning); its timers are armed.</li>
 *   <li>NodePoolWaitingForNodes: {@link ProvisioningStep#AWAITING_NODES} (WaitingForNode, no deadline).</li>
 *   <li>ReservationShort: unless the nodes are already awaited, {@link ProvisioningStep#RESERVATION_SHORT}
 *       (ClusterBusy), asked again every reservation retry.</li>
 *   <li>NodePoolCreateFailed: the <i>end path</i>, Failed NodePoolTimeout or NodePoolFailed.</li>
 *   <li>NodePoolDeleted: a pool being deleted is forgotten. NodePoolDeleteFailing: the error is appended to the
 *       Message of the job that last held the pool.</li>
 *   <li>JobSubmitted: a dispatching job's Kubernetes Job is seen (dispatched_at, uid); the dispatch and execution
 *       deadlines replace the re-drive.</li>
 *   <li>JobSubmitFailed: a refusal takes the <i>end path</i> (Failed JobSubmitFailed); a retryable error is kept for
 *       the Message and the re-drive goes on until the submit deadline.</li>
 *   <li>JobRunning: Running, the execution deadline armed, the queue's slot released and given on
 *       (<i>start-next</i>); while Running, a changed pod count is published.</li>
 *   <li>JobSucceeded / JobFailed: the <i>end path</i>, Succeeded / Failed JobFailed (the executor reports a Job deleted
 *       before it finished as JobFailed saying so; only a job that still counts on that Job acts on it).</li>
 *   <li>JobDeleted (the Job and every pod of it that had not finished are gone): the deletion is confirmed; an
 *       aborting job whose Job it was takes the <i>end path</i> as Aborted, with no deletion left to ask for; the
 *       READY pool a finished job kept until then goes on as in the <i>end path</i> (4).</li>
 *   <li>ClusterGone (the GKE cluster a row's pools and Jobs were created in is deleted, or deleted and created
 *       again): its pools and Job deletions created before the observation are forgotten (gone with it), and the
 *       jobs that had taken their slot there before it end (Failed NodePoolFailed / JobFailed naming the cluster, or
 *       Aborted); jobs placed there after it are left alone.</li>
 *   <li>NodePoolInventory / JobInventory: the orphan sweeps ({@link Orphans}); before them, a job whose Kubernetes
 *       Job a JobInventory of its own cluster no longer lists, an orphan grace after the Job surely existed, ends
 *       Failed/JobFailed: the Job was deleted outside Falcon and no informer saw it go.</li>
 *   <li>ReservationSeen (a reservation's count and use as the executor read them, at every capacity check): ignored;
 *       the scheduler acts on what the executor decided from it (ReservationShort, NodePoolCreating), and the figures
 *       are for the console.</li>
 * </ol>
 *
 * <p><b>tick</b> (the wall-clock punctuator):
 * <ol>
 *   <li>Every timer due by now is taken off the index, earliest first; several due entries of one pool or deletion
 *       act once per tick.</li>
 *   <li>A job's: what its phase says ({@link JobTimers}): re-send its command, or fail it at its deadline.</li>
 *   <li>A pool's: a deletion not yet confirmed is asked again; an idle pool whose linger is over (or whose cluster
 *       left active) is deleted.</li>
 *   <li>A Job deletion's: EnsureJobDeleted is sent again.</li>
 *   <li>Once a minute: waiting jobs of priority above 0 expected to start sooner on another cluster of their type by
 *       more than the move gain move there (at most once per move interval each); then the start-time estimates of
 *       every queue's first waiting jobs are recomputed, and those that moved by more than the estimate tolerance
 *       (or whose position changed) are published.</li>
 * </ol>
 *
 * <p><b>every input</b> ends with one more step: the jobs it finished leave memory and their timers for the retired
 * store ({@link RetiredJobs}), where they are kept for the terminal retention.
 *
 * <p>Two paths the steps above share:
 * <ul>
 *   <li><i>start-next</i> ({@link QueueSlots#startNext}): on an active cluster with a free slot, the next job by the
 *       pick rule takes the slot and (a) dispatches on an idle pool of its topology, or (b) takes over a pool an
 *       aborted job was creating, or (c) has a pool created (Provisioning, EnsureNodePool re-sent every provisioning
 *       retry); the queue's positions are told again.</li>
 *   <li>the <i>end path</i> ({@link JobEnding#end}, seed section 8): (1) its Kubernetes Job's deletion is requested
 *       and remembered; (2) the job is done and its final status published; (3) its slot, if it held one, is freed;
 *       (4) its pool, if READY, goes to the queue's provisioning job, else the next job, else lingers or is deleted
 *       (unless the job Succeeded, only once its Kubernetes Job's deletion is confirmed: pods of a Job ended by a
 *       deadline or a failure may still run or terminate, holding the chips, and the job keeps the pool until then);
 *       a pool still being created by an aborted slot holder goes to the next job if it suits it, else is deleted;
 *       any other pool is deleted; (5) the freed slot goes to the next job (<i>start-next</i>).</li>
 * </ul>
 *
 * <p>Recovery rules, which every step keeps:
 * <ol>
 *   <li>Every executor observation may arrive twice, late, or before the one that caused it. A handler acts only
 *       when the observation is about the job's current phase and resource (pool name, Kubernetes Job name);
 *       anything else is ignored, so a duplicate is a no-op and a stale event changes nothing.</li>
 *   <li>Every non-terminal phase has a re-drive timer or a deadline ({@link JobTimers}); nothing waits on a
 *       message that may have been lost.</li>
 *   <li>Every deletion the scheduler asks for (node pool, Kubernetes Job) is remembered and re-sent until the
 *       executor confirms it, and goes to where the resource was created ({@link ClusterTarget} kept with it), so a
 *       changed or deleted clusters row cannot leak it.</li>
 *   <li>No handler assumes a cluster row exists: a job or pool of a cluster that is gone is ended or deleted.</li>
 * </ol>
 */
public final class Scheduler {
    public static final String PRODUCER = "scheduler-streams";

    private final SchedulerState state;
    private final Timers timers;
    private final Placement placement;
    private final PoolLifecycle pools;
    private final JobDeletions deletions;
    private final JobEnding ending;
    private final Retrying retrying;
    private final FaultNotes faultNotes;
    private final Provisioning provisioning;
    private final Execution execution;
    private final JobTimers jobTimers;
    private final Orphans orphans;
    private final ClusterChanges clusterChanges;
    private final QueueSlots slots;
    private final UpperWrites upperWrites;
    /** When waiting jobs' start-time estimates are next looked at again (not persisted: a restart looks at once). */
    private Instant nextEstimateRefresh = Instant.EPOCH;
    /** When the tick last looked for clusters whose cool-down ended (not persisted, as the health itself). */
    private Instant lastHealthCheck = Instant.EPOCH;

    /**
     * How often estimates are recomputed while nothing happens in a queue, so that a slot holder slower than its
     * history moves the estimates behind it; only the ones that moved by more than the tolerance are published.
     */
    static final java.time.Duration ESTIMATE_REFRESH = java.time.Duration.ofMinutes(1);

    /** A scheduler whose finished jobs are retained in memory (tests; bounded by the retention all the same). */
    public Scheduler(SchedulerSettings settings) {
        this(settings, RetiredJobs.inMemory(settings.terminalRetention()));
    }

    /** A scheduler whose finished jobs go to the given retired store (the shell's, durable). */
    public Scheduler(SchedulerSettings settings, RetiredJobs retired) {
        state = new SchedulerState(settings, retired);
        timers = new Timers(settings);
        slots = new QueueSlots(state, timers);
        upperWrites = new UpperWrites(state, slots);
        placement = new Placement(state, slots, upperWrites);
        pools = new PoolLifecycle(state, timers, slots);
        deletions = new JobDeletions(state, timers);
        ending = new JobEnding(state, timers, slots, pools, deletions, upperWrites);
        retrying = new Retrying(state, timers, slots, pools, deletions, ending);
        retrying.placeWith(placement);
        deletions.whenConfirmed((deletion, now, out) -> {
            ending.k8sJobGone(deletion, now, out);
            retrying.k8sJobGone(deletion, now, out);
        });
        faultNotes = new FaultNotes(state);
        provisioning = new Provisioning(state, timers, slots, pools, ending, retrying);
        execution = new Execution(state, timers, slots, deletions, ending, retrying);
        jobTimers = new JobTimers(state, timers, slots, ending, retrying);
        orphans = new Orphans(state, pools, deletions);
        clusterChanges = new ClusterChanges(state, placement, pools, ending, orphans, retrying);
    }

    public Scheduler() {
        this(SchedulerSettings.defaults());
    }

    // ---- restore (the shell replays its stores through these on start) ----

    public void restoreRetrySwitch(io.falcon.events.control.RetrySwitch value) {
        state.retrySwitch = Optional.of(value);
    }

    public void restoreCluster(ClusterRow cluster) {
        state.clusters.put(cluster.id(), cluster);
    }

    /**
     * A restored pool being deleted is asked for again at the first tick (the executor may have lost it); an idle
     * one is looked at then too (its linger may be over).
     */
    public void restorePool(NodePool pool) {
        state.putPool(pool);
        if (pool.state() != NodePool.State.CREATING) {
            timers.arm(pool.key(), Instant.EPOCH);
        }
    }

    public void restoreDeletion(JobDeletion deletion) {
        state.deletions.put(deletion.key(), deletion);
        timers.arm(deletion.key(), Instant.EPOCH);
    }

    public void restoreQueue(QueueKey key, Optional<String> lastServedActor) {
        state.queue(key).restoreLastServedActor(lastServedActor);
    }

    public void restoreHistory(HistoryKey key, QueueHistory history) {
        state.histories.put(key, history);
    }

    public Optional<QueueHistory> history(HistoryKey key) {
        return Optional.ofNullable(state.histories.get(key));
    }

    public Map<HistoryKey, QueueHistory> histories() {
        return Collections.unmodifiableMap(state.histories);
    }

    public void restoreJob(ScheduledJob stored) {
        ScheduledJob job = stored.withProvisioningStepOfStoredRecord();
        state.put(job);
        switch (job.phase()) {
            case UNPLACED -> state.unplaced.add(job.id());
            case WAITING -> job.queue().ifPresent(key -> state.queue(key).add(state.entry(job)));
            default -> {
                if (job.phase().holdsSlot()) {
                    job.queue().ifPresent(key -> state.queue(key).takeSlot(job.id()));
                }
            }
        }
        timers.arm(job);
    }

    // ---- reads for the shell ----

    public SchedulerSettings settings() {
        return state.settings;
    }

    /** A live job, or a finished one the retired store still holds. */
    public Optional<ScheduledJob> job(String jobId) {
        return state.liveOrRetired(jobId);
    }

    /** A job that has not finished (what the shell's job table holds). */
    public Optional<ScheduledJob> liveJob(String jobId) {
        return Optional.ofNullable(state.jobs.get(jobId));
    }

    public Optional<NodePool> pool(NodePool.PoolKey key) {
        return Optional.ofNullable(state.pools.get(key));
    }

    /** The operator's retry switch last read, if any. */
    public Optional<io.falcon.events.control.RetrySwitch> retrySwitch() {
        return state.retrySwitch;
    }

    public Optional<ClusterRow> cluster(String clusterId) {
        return Optional.ofNullable(state.clusters.get(clusterId));
    }

    public Optional<JobDeletion> deletion(JobDeletion.Key key) {
        return Optional.ofNullable(state.deletions.get(key));
    }

    public Optional<String> lastServedActor(QueueKey key) {
        return Optional.ofNullable(state.queues.get(key)).flatMap(WaitQueue::lastServedActor);
    }

    public int queueDepth(QueueKey key) {
        return state.queueDepth(key);
    }

    /** The job holding a queue's acquiring slot, if any. */
    public List<String> slotHolders(QueueKey key) {
        return Optional.ofNullable(state.queues.get(key))
                .map(WaitQueue::slotHolders)
                .orElse(List.of());
    }

    public Collection<ClusterRow> clusters() {
        return state.clusters.values();
    }

    /** Every live job; finished ones have left for the retired store (for inspection and tests). */
    public Collection<ScheduledJob> jobs() {
        return Collections.unmodifiableCollection(state.jobs.values());
    }

    /** Waiting plus acquiring jobs of every queue (a scan: for periodic gauges, not per event). */
    public Map<QueueKey, Integer> queueDepths() {
        Map<QueueKey, Integer> depths = new HashMap<>();
        state.queues.keySet().forEach(key -> depths.put(key, queueDepth(key)));
        return depths;
    }

    /** Jobs whose pods run, per known cluster (counted as jobs change: no scan). */
    public Map<String, Long> runningJobsByCluster() {
        Map<String, Long> running = new HashMap<>();
        state.clusters.keySet().forEach(id -> running.put(id, 0L));
        state.runningPerCluster().forEach((cluster, n) -> running.put(cluster, (long) n));
        return running;
    }

    /** Every node pool the scheduler knows of (for inspection and tests). */
    public Collection<NodePool> pools() {
        return Collections.unmodifiableCollection(state.pools.values());
    }

    /**
     * When the earliest timer is due, if any: the shell need not tick before (simulations use it). A cluster's
     * cool-down ending counts: the tick then places the jobs that avoided it again.
     */
    public Optional<Instant> nextTimer() {
        // A process that has not ticked yet forgot the avoidances that parked its waiting jobs, and their ends: its
        // first tick, which places them again, is due at once.
        if (lastHealthCheck.equals(Instant.EPOCH) && !state.unplaced.isEmpty()) {
            return Optional.of(Instant.EPOCH);
        }
        Optional<Instant> timer = timers.next();
        Optional<Instant> coolDown = state.health.nextCoolDownEnd(lastHealthCheck);
        if (timer.isEmpty()) {
            return coolDown;
        }
        return coolDown.filter(c -> c.isBefore(timer.get())).or(() -> timer);
    }

    /** Every Kubernetes Job deletion not yet confirmed (for inspection and tests). */
    public Collection<JobDeletion> deletions() {
        return Collections.unmodifiableCollection(state.deletions.values());
    }

    // ---- inputs: the steps are listed at the top of this class ----

    public Decisions submit(JobRequest request, Instant now) {
        Decisions out = new Decisions();
        placement.submit(request, false, now, out);
        return finished(now, out);
    }

    /**
     * A snapshot row that carries Falcon's status ({@link Intake.Submit#rowWrittenByFalcon}): a duplicate if the job
     * is known; if it is not, Falcon took it before and forgot it after it ended, and it is not run again.
     */
    public Decisions submitSnapshotted(JobRequest request, Instant now) {
        Decisions out = new Decisions();
        placement.submit(request, true, now, out);
        return finished(now, out);
    }

    /** fault-streams decided about a fault of a job's devices: the job's Message says so (issue 18). */
    public Decisions faultNoted(io.falcon.events.fault.FaultVerdict verdict, Instant now) {
        Decisions out = new Decisions();
        faultNotes.noted(verdict, now, out);
        if (verdict.outcome() == io.falcon.events.fault.FaultVerdict.Outcome.ISOLATED) {
            verdict.jobId().map(state.jobs::get).ifPresent(job -> retrying.deviceIsolated(job, verdict, now, out));
        }
        return finished(now, out);
    }

    /**
     * An operator switched automatic retries ({@code falcon retries off|on}): from this step on, a failed attempt
     * runs again only if they are on, and a job waiting to run again ends Failed at its wake-up if they are off. A
     * switch older than the one held (a redelivery, or the compacted topic read again) changes nothing.
     */
    public Decisions retriesSwitched(io.falcon.events.control.RetrySwitch value, Instant now) {
        Decisions out = new Decisions();
        if (state.retrySwitch.filter(held -> held.at().isAfter(value.at())).isEmpty()
                && !state.retrySwitch.equals(Optional.of(value))) {
            state.retrySwitch = Optional.of(value);
            out.retrySwitchChanged();
            if (!state.retriesOn()) {
                retrying.switchedOff(now, out);
            }
        }
        return finished(now, out);
    }

    /** An upper component wrote a status Falcon never writes ({@link Intake.Rewrite}). */
    public Decisions rewrite(String jobId, String written, Instant now) {
        Decisions out = new Decisions();
        upperWrites.rewrite(jobId, written, now, out);
        return finished(now, out);
    }

    /** An upper component changed the job's priority column. */
    public Decisions reprioritize(String jobId, Optional<Long> priority, Instant now) {
        Decisions out = new Decisions();
        upperWrites.reprioritize(jobId, priority, now, out);
        return finished(now, out);
    }

    public Decisions abort(String jobId, Instant now) {
        Decisions out = new Decisions();
        ending.abort(jobId, now, out);
        return finished(now, out);
    }

    public Decisions clusterUpserted(ClusterRow cluster, Instant now) {
        Decisions out = new Decisions();
        clusterChanges.upserted(cluster, now, out);
        return finished(now, out);
    }

    public Decisions clusterRemoved(String clusterId, Instant now) {
        Decisions out = new Decisions();
        clusterChanges.removed(clusterId, now, out);
        return finished(now, out);
    }

    public Decisions observe(ExecutorEvent event, Instant now) {
        Decisions out = new Decisions();
        if (event instanceof ExecutorEvent.NodePoolReady ready) {
            provisioning.onReady(ready, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolWaitingForNodes waiting) {
            provisioning.onWaitingForNodes(waiting, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolCreating creating) {
            provisioning.onCreating(creating, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolCreateFailed failed) {
            provisioning.onFailed(failed, now, out);
        } else if (event instanceof ExecutorEvent.ReservationShort shortage) {
            provisioning.onReservationShort(shortage, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolDeleted deleted) {
            pools.onDeleted(deleted, out);
        } else if (event instanceof ExecutorEvent.NodePoolDeleteFailing failing) {
            pools.onDeleteFailing(failing, now, out);
        } else if (event instanceof ExecutorEvent.JobSubmitted submitted) {
            execution.onSubmitted(submitted, now, out);
        } else if (event instanceof ExecutorEvent.JobSubmitFailed failed) {
            execution.onSubmitFailed(failed, now, out);
        } else if (event instanceof ExecutorEvent.JobRunning running) {
            execution.onRunning(running, now, out);
        } else if (event instanceof ExecutorEvent.JobSucceeded succeeded) {
            execution.onSucceeded(succeeded, now, out);
        } else if (event instanceof ExecutorEvent.JobFailed failed) {
            execution.onFailed(failed, now, out);
        } else if (event instanceof ExecutorEvent.JobDeleted deleted) {
            execution.onDeleted(deleted, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolInventory inventory) {
            orphans.onPoolInventory(inventory, now, out);
        } else if (event instanceof ExecutorEvent.JobInventory inventory) {
            execution.onJobInventory(inventory, now, out);
            orphans.onJobInventory(inventory, now, out);
        } else if (event instanceof ExecutorEvent.Heartbeat heartbeat) {
            for (String jobId : state.observations.heartbeat(heartbeat)) {
                liveJob(jobId).filter(job -> job.phase() != Phase.DONE).ifPresent(job -> jobTimers.fire(job, now, out));
            }
            execution.judgeMissing(now, out);
        } else if (event instanceof ExecutorEvent.ClusterGone gone) {
            execution.onClusterGone(gone, now, out);
        } else if (event instanceof ExecutorEvent.ReservationSeen) {
            // Ignored: what the executor read of a reservation; what it decided from it comes as its own event.
        }
        // A cluster that kept refusing work is avoided from now on: its waiting jobs are placed again elsewhere.
        for (String clusterId : state.health.takeTripped()) {
            placement.rerouteWaitingJobsOf(clusterId, now, out);
        }
        return finished(now, out);
    }

    /** Fires the timers that are due; the cost is proportional to the number due, not to all jobs. */
    public Decisions tick(Instant now) {
        Decisions out = new Decisions();
        Set<String> handled = new HashSet<>(); // several due timers of one pool or deletion act once per tick
        for (Optional<Timers.Due> next = timers.pollDue(now); next.isPresent(); next = timers.pollDue(now)) {
            Timers.Due due = next.get();
            if (due.kind() != Timers.Kind.JOB && !handled.add(due.kind() + due.key())) {
                continue;
            }
            switch (due.kind()) {
                case JOB ->
                    liveJob(due.key())
                            .filter(job -> job.phase() != Phase.DONE)
                            .ifPresent(job -> jobTimers.fire(job, now, out));
                case POOL -> pool(NodePool.PoolKey.parse(due.key())).ifPresent(p -> pools.onTimer(p, now, out));
                case DELETION -> deletion(JobDeletion.Key.parse(due.key())).ifPresent(d -> deletions.ask(d, now, out));
            }
        }
        // The first tick of this process: what parked jobs avoided was forgotten with the last one, so they try again.
        if (lastHealthCheck.equals(Instant.EPOCH) && !state.unplaced.isEmpty()) {
            placement.placeUnplaced(now, out);
        }
        // Clusters whose cool-down is over take jobs again: the waiting ones of their type are placed again.
        for (String clusterId : state.health.cooledDown(lastHealthCheck, now)) {
            cluster(clusterId).ifPresent(c -> placement.rebalanceWaitingJobs(c.tpuType(), now, out));
        }
        lastHealthCheck = now;
        if (!now.isBefore(nextEstimateRefresh)) {
            nextEstimateRefresh = now.plus(ESTIMATE_REFRESH);
            Set<QueueKey> moved = placement.moveToSooner(now, out);
            for (Map.Entry<QueueKey, WaitQueue> queue : state.queues.entrySet()) {
                if (!queue.getValue().isEmpty() || moved.contains(queue.getKey())) {
                    slots.refreshPositions(queue.getKey(), now, out);
                }
            }
        }
        return finished(now, out);
    }

    /**
     * Every input ends here: the retrying jobs it let go on are placed, together (so that the order they woke in does
     * not decide who starts), and the jobs it finished leave memory for the retired store.
     */
    private Decisions finished(Instant now, Decisions out) {
        retrying.placeWoken(now, out);
        state.retireFinished(timers, out);
        return out;
    }

    /** How many deadlines are due but held until the executor has reported their cluster through them. */
    public int heldDeadlines() {
        return state.observations.held();
    }

    /** How many timers are armed in all (for tests of the index's bound). */
    int armedTimers() {
        return timers.size();
    }

    /** How many job timers are armed (for tests of the index's bound). */
    int armedJobTimers() {
        return timers.jobTimers();
    }
}
