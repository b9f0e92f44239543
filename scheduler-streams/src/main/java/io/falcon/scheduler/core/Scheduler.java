package io.falcon.scheduler.core;

import io.falcon.events.Meta;
import io.falcon.events.ResourceNames;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * The scheduling state machine of the jobs it is given (one instance per stream task, which owns whole TPU
 * types). Plain Java: every input is a method call with the current time, every output is in the returned
 * {@link Decisions}. The shell persists changed state and forwards statuses and commands.
 *
 * <p>Recovery rules, which every handler below keeps:
 * <ol>
 *   <li>Every executor observation may arrive twice, late, or before the one that caused it. A handler acts only
 *       when the observation is about the job's current phase and resource (pool name, Kubernetes Job name);
 *       anything else is ignored, so a duplicate is a no-op and a stale event changes nothing.</li>
 *   <li>Every non-terminal phase has a re-drive timer or a deadline ({@link #onJobTimer}); nothing waits on a
 *       message that may have been lost.</li>
 *   <li>Every deletion the scheduler asks for (node pool, Kubernetes Job) is remembered and re-sent until the
 *       executor confirms it, and goes to where the resource was created ({@link ClusterTarget} kept with it), so a
 *       changed or deleted clusters row cannot leak it.</li>
 *   <li>No handler assumes a cluster row exists: a job or pool of a cluster that is gone is ended or deleted.</li>
 * </ol>
 */
public final class Scheduler {
    public static final String PRODUCER = "scheduler-streams";

    private final SchedulerSettings settings;
    private final Map<String, ClusterRow> clusters = new HashMap<>();
    private final Map<String, ScheduledJob> jobs = new HashMap<>();
    private final Map<QueueKey, WaitQueue> queues = new HashMap<>();
    private final Map<NodePool.PoolKey, NodePool> pools = new HashMap<>();
    private final Map<JobDeletion.Key, JobDeletion> deletions = new HashMap<>();
    private final Set<String> unplaced = new LinkedHashSet<>();
    /** Deadlines and re-drives of jobs, pools and deletions, earliest first; stale entries are skipped. */
    private final TreeSet<Timer> timers = new TreeSet<>(
            Comparator.comparing(Timer::at).thenComparing(Timer::kind).thenComparing(Timer::key));
    /** When each unknown falcon-* pool was first reported, for the orphan grace (rebuilt from inventories). */
    private final Map<NodePool.PoolKey, Instant> orphanPools = new HashMap<>();
    /** When each falcon Job of no known task was first reported, for the orphan grace. */
    private final Map<JobDeletion.Key, Instant> orphanJobs = new HashMap<>();

    private enum TimerKind { JOB, POOL, DELETION }

    private record Timer(Instant at, TimerKind kind, String key) {
    }

    public Scheduler(SchedulerSettings settings) {
        this.settings = settings;
    }

    public Scheduler() {
        this(SchedulerSettings.defaults());
    }

    // ---- restore (the shell replays its stores through these on start) ----

    public void restoreCluster(ClusterRow cluster) {
        clusters.put(cluster.id(), cluster);
    }

    /**
     * A restored pool being deleted is asked for again at the first tick (the executor may have lost it); an idle
     * one is looked at then too (its linger may be over).
     */
    public void restorePool(NodePool pool) {
        pools.put(pool.key(), pool);
        if (pool.state() != NodePool.State.CREATING) {
            timers.add(new Timer(Instant.EPOCH, TimerKind.POOL, pool.key().asString()));
        }
    }

    public void restoreDeletion(JobDeletion deletion) {
        deletions.put(deletion.key(), deletion);
        timers.add(new Timer(Instant.EPOCH, TimerKind.DELETION, deletion.key().asString()));
    }

    public void restoreQueue(QueueKey key, Optional<String> lastServedActor) {
        queue(key).restoreLastServedActor(lastServedActor);
    }

    public void restoreJob(ScheduledJob stored) {
        ScheduledJob job = stored.withProvisioningStepOfStoredRecord();
        jobs.put(job.id(), job);
        switch (job.phase()) {
            case UNPLACED -> unplaced.add(job.id());
            case WAITING -> job.queue().ifPresent(key -> queue(key).add(entry(job)));
            default -> {
                if (job.phase().holdsSlot()) {
                    job.queue().ifPresent(key -> queue(key).takeSlot(job.id()));
                }
            }
        }
        scheduleTimers(job);
    }

    // ---- reads for the shell ----

    public Optional<ScheduledJob> job(String jobId) {
        return Optional.ofNullable(jobs.get(jobId));
    }

    public Optional<NodePool> pool(NodePool.PoolKey key) {
        return Optional.ofNullable(pools.get(key));
    }

    public Optional<ClusterRow> cluster(String clusterId) {
        return Optional.ofNullable(clusters.get(clusterId));
    }

    public Optional<JobDeletion> deletion(JobDeletion.Key key) {
        return Optional.ofNullable(deletions.get(key));
    }

    public Optional<String> lastServedActor(QueueKey key) {
        return Optional.ofNullable(queues.get(key)).flatMap(WaitQueue::lastServedActor);
    }

    public int queueDepth(QueueKey key) {
        WaitQueue queue = queues.get(key);
        return queue == null ? 0 : queue.size() + (queue.slotHolder().isPresent() ? 1 : 0);
    }

    /** The job holding a queue's acquiring slot, if any. */
    public Optional<String> slotHolder(QueueKey key) {
        return Optional.ofNullable(queues.get(key)).flatMap(WaitQueue::slotHolder);
    }

    public Collection<ClusterRow> clusters() {
        return clusters.values();
    }

    /** Every job the scheduler knows, terminal ones included (for inspection and tests). */
    public Collection<ScheduledJob> jobs() {
        return Collections.unmodifiableCollection(jobs.values());
    }

    /** Waiting plus acquiring jobs of every queue (a scan: for periodic gauges, not per event). */
    public Map<QueueKey, Integer> queueDepths() {
        Map<QueueKey, Integer> depths = new HashMap<>();
        queues.keySet().forEach(key -> depths.put(key, queueDepth(key)));
        return depths;
    }

    /** Jobs whose pods run, per cluster (a scan: for periodic gauges, not per event). */
    public Map<String, Long> runningJobsByCluster() {
        Map<String, Long> running = new HashMap<>();
        clusters.keySet().forEach(id -> running.put(id, 0L));
        for (ScheduledJob job : jobs.values()) {
            if (job.phase() == Phase.RUNNING) {
                job.clusterId().ifPresent(c -> running.merge(c, 1L, Long::sum));
            }
        }
        return running;
    }

    /** Every node pool the scheduler knows of (for inspection and tests). */
    public Collection<NodePool> pools() {
        return Collections.unmodifiableCollection(pools.values());
    }

    /** When the earliest timer is due, if any: the shell need not tick before (simulations use it). */
    public Optional<Instant> nextTimer() {
        return timers.isEmpty() ? Optional.empty() : Optional.of(timers.first().at());
    }

    /** Every Kubernetes Job deletion not yet confirmed (for inspection and tests). */
    public Collection<JobDeletion> deletions() {
        return Collections.unmodifiableCollection(deletions.values());
    }

    // ---- inputs ----

    public Decisions submit(JobRequest request, Instant now) {
        Decisions out = new Decisions();
        if (jobs.containsKey(request.id())) {
            return out; // a redelivered or snapshotted submission of a job already known
        }
        RequestValidator.Result result = RequestValidator.validate(request);
        if (result instanceof RequestValidator.Invalid invalid) {
            out.publish(new TaskStatus(meta(now), request.id(), 1, Status.Failed, Optional.of(Reason.InvalidSpec),
                    invalid.message(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.empty(), Optional.of(now), Optional.empty()));
        } else if (result instanceof RequestValidator.Valid valid) {
            ScheduledJob job = ScheduledJob.accepted(valid.request());
            jobs.put(job.id(), job);
            place(job, now, out);
        }
        return out;
    }

    /**
     * Seed section 8. A waiting job leaves its queue at once. A job that may already have a Kubernetes Job goes
     * to Aborting until the executor confirms the deletion; then its pool goes through the same deprovisioning
     * path as any ending job. A job still provisioning releases its pool at once.
     */
    public Decisions abort(String jobId, Instant now) {
        Decisions out = new Decisions();
        ScheduledJob job = jobs.get(jobId);
        if (job == null || job.phase() == Phase.DONE || job.phase().aborting()) {
            return out;
        }
        switch (job.phase()) {
            case UNPLACED -> {
                unplaced.remove(job.id());
                end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out);
            }
            case WAITING -> {
                QueueKey key = job.queue().orElseThrow();
                queue(key).remove(entry(job));
                end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out);
                refreshPositions(key, now, out);
            }
            case DISPATCHING, RUNNING -> {
                // A dispatching job keeps its queue's slot until its Kubernetes Job is gone (seed section 4: the slot
                // is released when pods run or the job ends); then its pool goes to the next job of the queue.
                String k8sJob = job.k8sJobName().orElse(ResourceNames.k8sJob(job.id()));
                Phase next = job.phase() == Phase.DISPATCHING ? Phase.CANCELLING : Phase.ABORTING;
                ScheduledJob aborting = job.enter(next, now).withK8sJob(k8sJob)
                        .withWakeAt(Optional.of(now.plus(settings.abortRetry())));
                job.target().ifPresent(t -> out.send(new ExecutorCommand.EnsureJobDeleted(meta(now), job.id(), t,
                        k8sJob)));
                publish(aborting, Status.Aborting, Optional.empty(), Messages.aborting(), now, out);
                scheduleTimers(jobs.get(job.id()));
            }
            default -> end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out);
        }
        return out;
    }

    /**
     * A clusters row was inserted or changed. A cluster that now names another GKE cluster (name, project or
     * location changed) loses its active jobs, which are ended and whose resources at the old location are deleted;
     * a cluster that leaves active has its waiting jobs re-routed; one that becomes active takes its share of the
     * backlog.
     */
    public Decisions clusterUpserted(ClusterRow cluster, Instant now) {
        Decisions out = new Decisions();
        out.clusterChanged(cluster.id());
        ClusterRow previous = clusters.put(cluster.id(), cluster);
        if (previous != null && !previous.tpuType().equals(cluster.tpuType())) {
            // Its queues hold jobs of the old type: they are placed again like those of a deleted cluster.
            loseCluster(previous, previous.name() + " (" + previous.id() + ") changed tpu_type", now, out);
            clusters.put(cluster.id(), cluster);
            rebalanceWaitingJobs(cluster.tpuType(), now, out);
            return out;
        }
        if (previous != null && !target(previous).equals(target(cluster))) {
            endActiveJobsOf(cluster.id(), job -> Messages.clusterMoved(cluster.id(), target(previous).resourceName(),
                    target(cluster).resourceName(), phaseWord(job)), now, out);
        }
        boolean lostActive = previous != null && previous.isActive() && !cluster.isActive();
        if (lostActive) {
            rerouteWaitingJobsOf(cluster.id(), now, out);
        }
        boolean gainedActive = cluster.isActive() && (previous == null || !previous.isActive());
        if (gainedActive) {
            rebalanceWaitingJobs(cluster.tpuType(), now, out);
        }
        if (previous != null && !previous.status().equals(cluster.status())) {
            noteClusterStatusOnRunningJobs(cluster, now, out);
        }
        return out;
    }

    /** Running jobs of a cluster that is not active say so in their Message, and stop saying it when it is again. */
    private void noteClusterStatusOnRunningJobs(ClusterRow cluster, Instant now, Decisions out) {
        for (ScheduledJob job : List.copyOf(jobs.values())) {
            if (job.phase() == Phase.RUNNING && job.clusterId().filter(cluster.id()::equals).isPresent()) {
                String message = runningMessage(Messages.withoutClusterNote(job.message()), cluster.id());
                if (!message.equals(job.message())) {
                    publish(job, Status.Running, Optional.empty(), message, now, out);
                }
            }
        }
    }

    private String runningMessage(String running, String clusterId) {
        ClusterRow cluster = clusters.get(clusterId);
        return cluster == null || cluster.isActive() ? running
                : Messages.runningOnInactiveCluster(running, cluster.name(), cluster.status());
    }

    /**
     * A clusters row was deleted: its waiting jobs are placed again (another active cluster of the type, else they
     * wait for one), its active jobs end (Failed, or Aborted if they were aborting) with a Message naming the
     * cluster, and its node pools and Kubernetes Jobs are deleted where they were created.
     */
    public Decisions clusterRemoved(String clusterId, Instant now) {
        Decisions out = new Decisions();
        out.clusterChanged(clusterId);
        ClusterRow removed = clusters.get(clusterId);
        String name = removed == null ? clusterId : removed.name() + " (" + clusterId + ")";
        loseCluster(removed == null ? null : removed, name, now, out);
        if (removed == null) {
            // Nothing was known of it; still end anything that refers to it (a restored, inconsistent state).
            endActiveJobsOf(clusterId, job -> Messages.clusterRemoved(name, phaseWord(job)), now, out);
        }
        return out;
    }

    public Decisions observe(ExecutorEvent event, Instant now) {
        Decisions out = new Decisions();
        if (event instanceof ExecutorEvent.NodePoolReady ready) {
            onPoolReady(ready, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolWaitingForNodes waiting) {
            onWaitingForNodes(waiting, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolCreating creating) {
            onPoolCreating(creating, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolCreateFailed failed) {
            onPoolFailed(failed, now, out);
        } else if (event instanceof ExecutorEvent.ReservationShort shortage) {
            onReservationShort(shortage, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolDeleted deleted) {
            onPoolDeleted(deleted, out);
        } else if (event instanceof ExecutorEvent.NodePoolDeleteFailing failing) {
            onPoolDeleteFailing(failing, now, out);
        } else if (event instanceof ExecutorEvent.JobSubmitted submitted) {
            onJobSubmitted(submitted, now, out);
        } else if (event instanceof ExecutorEvent.JobSubmitFailed failed) {
            onJobSubmitFailed(failed, now, out);
        } else if (event instanceof ExecutorEvent.JobRunning running) {
            onJobRunning(running, now, out);
        } else if (event instanceof ExecutorEvent.JobSucceeded succeeded) {
            executing(succeeded.jobId(), succeeded.clusterId(), succeeded.k8sJobName())
                    .ifPresent(job -> end(job, Status.Succeeded, Optional.empty(), "", now, out));
        } else if (event instanceof ExecutorEvent.JobFailed failed) {
            executing(failed.jobId(), failed.clusterId(), failed.k8sJobName()).ifPresent(job ->
                    end(job, Status.Failed, Optional.of(Reason.JobFailed), failed.message(), now, out));
        } else if (event instanceof ExecutorEvent.JobDeleted deleted) {
            onJobDeleted(deleted, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolInventory inventory) {
            onPoolInventory(inventory, now, out);
        } else if (event instanceof ExecutorEvent.JobInventory inventory) {
            onJobInventory(inventory, now, out);
        }
        return out;
    }

    /** Fires the timers that are due; the cost is proportional to the number due, not to all jobs. */
    public Decisions tick(Instant now) {
        Decisions out = new Decisions();
        Set<String> handled = new HashSet<>(); // several due timers of one pool or deletion act once per tick
        while (!timers.isEmpty() && !timers.first().at().isAfter(now)) {
            Timer due = timers.pollFirst();
            if (due.kind() != TimerKind.JOB && !handled.add(due.kind() + due.key())) {
                continue;
            }
            switch (due.kind()) {
                case JOB -> {
                    ScheduledJob job = jobs.get(due.key());
                    if (job != null && job.phase() != Phase.DONE) {
                        onJobTimer(job, now, out);
                    }
                }
                case POOL -> Optional.ofNullable(pools.get(NodePool.PoolKey.parse(due.key())))
                        .ifPresent(p -> onPoolTimer(p, now, out));
                case DELETION -> Optional.ofNullable(deletions.get(JobDeletion.Key.parse(due.key())))
                        .ifPresent(d -> askJobDeletion(d, now, out));
            }
        }
        return out;
    }

    // ---- placement and queues ----

    private void place(ScheduledJob job, Instant now, Decisions out) {
        placeOnly(job, now, out).ifPresent(key -> {
            boolean told = refreshPositions(key, now, out).contains(job.id());
            startNext(key, now, out);
            if (!told && jobs.get(job.id()).phase() == Phase.WAITING) {
                tellDeepPosition(jobs.get(job.id()), key, now, out);
            }
        });
    }

    /**
     * Places many jobs (oldest first), then gives each touched queue's free slot by the pick rule over everything
     * now waiting there, so that the order the jobs were placed in does not decide who starts.
     */
    private void placeAll(List<ScheduledJob> waiting, Instant now, Decisions out) {
        waiting.sort(Comparator.comparingLong(ScheduledJob::seq).thenComparing(ScheduledJob::id));
        Set<QueueKey> touched = new java.util.TreeSet<>();
        for (ScheduledJob job : waiting) {
            placeOnly(jobs.get(job.id()), now, out).ifPresent(touched::add);
        }
        for (QueueKey key : touched) {
            startNext(key, now, out);
            Set<String> told = refreshPositions(key, now, out);
            for (ScheduledJob job : waiting) {
                ScheduledJob current = jobs.get(job.id());
                if (current.phase() == Phase.WAITING && current.queue().filter(key::equals).isPresent()
                        && !told.contains(current.id())) {
                    tellDeepPosition(current, key, now, out);
                }
            }
        }
    }

    /** Chooses the job's cluster and puts it in that queue (or parks it); returns the queue. */
    private Optional<QueueKey> placeOnly(ScheduledJob job, Instant now, Decisions out) {
        ClusterChoice.Result choice = ClusterChoice.choose(job.request().tpuType().wireName(),
                job.request().supplyMode(), clusters.values(),
                cluster -> idlePool(cluster, job.request().topology().text(), job).isPresent(),
                cluster -> queueDepth(new QueueKey(cluster.id(), job.request().topology().text())));
        if (choice instanceof ClusterChoice.Chosen chosen) {
            ScheduledJob queued = job.withCluster(Optional.of(chosen.cluster().id())).enter(Phase.WAITING, now);
            store(queued, out);
            QueueKey key = queued.queue().orElseThrow();
            queue(key).add(entry(queued));
            out.queueChanged(key);
            return Optional.of(key);
        }
        ClusterChoice.NoneEligible none = (ClusterChoice.NoneEligible) choice;
        ScheduledJob parked = job.withCluster(Optional.empty()).withPhase(Phase.UNPLACED);
        unplaced.add(parked.id());
        String message = Messages.noCluster(job.request().tpuType().wireName(), none.why());
        if (message.equals(job.message())) {
            store(parked, out);
        } else {
            publish(parked, Status.Pending, Optional.of(Reason.Waiting), message, now, out);
        }
        return Optional.empty();
    }

    /**
     * A cluster that becomes active takes its share of the backlog: every job of its TPU type that has not started
     * is placed again, oldest first, so queues even out and each queue keeps its FIFO order.
     */
    private void rebalanceWaitingJobs(String tpuType, Instant now, Decisions out) {
        List<ScheduledJob> waiting = new ArrayList<>();
        for (String jobId : List.copyOf(unplaced)) {
            ScheduledJob job = jobs.get(jobId);
            if (job.request().tpuType().wireName().equals(tpuType)) {
                unplaced.remove(jobId);
                waiting.add(job);
            }
        }
        for (Map.Entry<QueueKey, WaitQueue> queue : queues.entrySet()) {
            ClusterRow owner = clusters.get(queue.getKey().clusterId());
            if (owner != null && owner.tpuType().equals(tpuType)) {
                for (WaitQueue.Entry entry : queue.getValue().pickOrder(Integer.MAX_VALUE)) {
                    queue.getValue().remove(entry);
                    waiting.add(jobs.get(entry.jobId()));
                }
            }
        }
        placeAll(waiting, now, out);
    }

    private void rerouteWaitingJobsOf(String clusterId, Instant now, Decisions out) {
        List<ScheduledJob> waiting = new ArrayList<>();
        List<QueueKey> affected = queues.keySet().stream().filter(k -> k.clusterId().equals(clusterId)).toList();
        for (QueueKey key : affected) {
            WaitQueue queue = queues.get(key);
            for (WaitQueue.Entry entry : queue.pickOrder(Integer.MAX_VALUE)) {
                queue.remove(entry);
                waiting.add(jobs.get(entry.jobId()));
            }
            out.queueChanged(key);
        }
        placeAll(waiting, now, out);
    }

    /**
     * The cluster is gone for this scheduler (row deleted, or moved to another TPU type): its active jobs end, its
     * waiting jobs are placed elsewhere, its pools are deleted and its queues forgotten.
     */
    private void loseCluster(ClusterRow lost, String name, Instant now, Decisions out) {
        if (lost == null) {
            return;
        }
        String clusterId = lost.id();
        clusters.remove(clusterId); // first, so that nothing below starts a job or reuses a pool there
        endActiveJobsOf(clusterId, job -> Messages.clusterRemoved(name, phaseWord(job)), now, out);
        List<ScheduledJob> waiting = new ArrayList<>();
        List<QueueKey> affected = queues.keySet().stream().filter(k -> k.clusterId().equals(clusterId)).toList();
        for (QueueKey key : affected) {
            WaitQueue queue = queues.remove(key);
            out.queueChanged(key);
            for (WaitQueue.Entry entry : queue.pickOrder(Integer.MAX_VALUE)) {
                waiting.add(jobs.get(entry.jobId()));
            }
        }
        placeAll(waiting, now, out);
        for (NodePool pool : List.copyOf(pools.values())) {
            if (pool.clusterId().equals(clusterId) && pool.state() != NodePool.State.DELETING) {
                deletePool(pool, now, out);
            }
        }
        orphanPools.keySet().removeIf(k -> k.clusterId().equals(clusterId));
        orphanJobs.keySet().removeIf(k -> k.clusterId().equals(clusterId));
    }

    /**
     * Ends the jobs of a cluster whose resources Falcon can no longer reach where they are: slot holders first (so
     * that their queue does not hand a released pool to another of them), then running and aborting jobs.
     */
    private void endActiveJobsOf(String clusterId, java.util.function.Function<ScheduledJob, String> message,
            Instant now, Decisions out) {
        List<ScheduledJob> affected = jobs.values().stream()
                .filter(j -> j.clusterId().filter(clusterId::equals).isPresent())
                .filter(j -> j.phase() == Phase.PROVISIONING || j.phase() == Phase.DISPATCHING
                        || j.phase() == Phase.RUNNING || j.phase().aborting())
                .sorted(Comparator.comparing((ScheduledJob j) -> !j.phase().holdsSlot()).thenComparing(ScheduledJob::id))
                .toList();
        for (ScheduledJob stale : affected) {
            ScheduledJob job = jobs.get(stale.id());
            if (job.phase() == Phase.DONE) {
                continue;
            }
            switch (job.phase()) {
                case ABORTING, CANCELLING -> end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out);
                case PROVISIONING -> end(job, Status.Failed, Optional.of(Reason.NodePoolFailed),
                        Messages.nodePoolFailed(message.apply(job)), now, out);
                default -> end(job, Status.Failed, Optional.of(Reason.JobFailed), message.apply(job), now, out);
            }
        }
    }

    /** Gives the queue's free slot to the next job by the pick rule; true if a job started. */
    private boolean startNext(QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = queue(key);
        ClusterRow cluster = clusters.get(key.clusterId());
        if (queue.slotHolder().isPresent() || cluster == null || !cluster.isActive()) {
            return false;
        }
        Optional<WaitQueue.Entry> next = queue.pollNext();
        if (next.isEmpty()) {
            return false;
        }
        out.queueChanged(key);
        ScheduledJob job = jobs.get(next.get().jobId());
        queue.takeSlot(job.id());
        ClusterTarget target = target(cluster);
        Optional<NodePool> idle = idlePool(cluster, key.topology(), job);
        Optional<NodePool> handedOver = idle.isPresent() ? Optional.empty() : handedOverPool(cluster, key, job);
        if (idle.isPresent()) {
            dispatchOn(job.withTarget(target), idle.get(), Messages.reusedPool(idle.get().name()), now, out);
        } else if (handedOver.isPresent()) {
            // An aborted job's pool still being created: this job takes it over instead of asking for another.
            NodePool pool = handedOver.get();
            storePool(pool.heldBy(job.id(), NodePool.State.CREATING), out);
            ScheduledJob provisioning = job.enter(Phase.PROVISIONING, now).withTarget(target)
                    .withSupplyMode(pool.supplyMode()).withNodePool(pool.name())
                    .withWakeAt(Optional.of(now.plus(settings.provisioningRetry())));
            out.send(ensurePool(provisioning, now));
            out.reused(pool);
            publish(provisioning, Status.Pending, Optional.of(Reason.Provisioning),
                    Messages.provisioning(pool.supplyMode()) + " (taking over node pool " + pool.name() + ")", now, out);
            scheduleTimers(jobs.get(job.id()));
        } else {
            SupplyDecision supply = SupplyDecision.decide(job.request().supplyMode(), cluster);
            String poolName = ResourceNames.nodePool(job.id());
            storePool(new NodePool(target, poolName, key.topology(), supply.mode(), NodePool.State.CREATING,
                    Optional.of(job.id()), Optional.empty()), out);
            ScheduledJob provisioning = job.enter(Phase.PROVISIONING, now).withTarget(target)
                    .withSupplyMode(supply.mode()).withNodePool(poolName)
                    .withWakeAt(Optional.of(now.plus(settings.provisioningRetry())));
            out.send(ensurePool(provisioning, now));
            publish(provisioning, Status.Pending, Optional.of(Reason.Provisioning), Messages.provisioning(supply.mode()),
                    now, out);
            scheduleTimers(jobs.get(job.id()));
        }
        refreshPositions(key, now, out);
        return true;
    }

    /** The job holds a READY pool now: ask for its Kubernetes Job, and keep asking until it is confirmed. */
    private void dispatchOn(ScheduledJob job, NodePool pool, String message, Instant now, Decisions out) {
        if (!pool.name().equals(ResourceNames.nodePool(job.id())) && pool.heldBy().filter(job.id()::equals).isEmpty()) {
            out.reused(pool);
        }
        storePool(pool.heldBy(job.id(), NodePool.State.READY), out);
        ScheduledJob dispatching = job.enter(Phase.DISPATCHING, now).withSupplyMode(pool.supplyMode())
                .withNodePool(pool.name()).withK8sJob(ResourceNames.k8sJob(job.id()))
                .withWakeAt(Optional.of(now.plus(settings.dispatchRetry())));
        out.send(ensureJob(dispatching, now));
        publish(dispatching, Status.Pending, Optional.of(Reason.Dispatching), message, now, out);
        scheduleTimers(jobs.get(job.id()));
    }

    /**
     * Tells each of the first waiting jobs its exact position and who is ahead, when that changed; returns the
     * jobs it covered. Positions change for everyone behind any change, so only the first few are kept current.
     */
    private Set<String> refreshPositions(QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = queue(key);
        List<WaitQueue.Entry> order = queue.pickOrder(settings.positionUpdates());
        List<WaitQueue.Entry> ahead = new ArrayList<>(order.size() + 1);
        queue.slotHolder().map(jobs::get).ifPresent(holder -> ahead.add(entry(holder)));
        Set<String> covered = new HashSet<>();
        for (WaitQueue.Entry entry : order) {
            ScheduledJob job = jobs.get(entry.jobId());
            String message = Messages.waiting(ahead.size() + 1, ahead);
            if (!message.equals(job.message()) || job.reason().filter(Reason.Waiting::equals).isEmpty()) {
                publish(job, Status.Pending, Optional.of(Reason.Waiting), message, now, out);
            }
            covered.add(entry.jobId());
            ahead.add(entry);
        }
        return covered;
    }

    /**
     * A job queued behind the kept-current positions still gets its position when it arrives: exact up to a bound,
     * then a lower bound. It is told again once it moves up into the kept-current range.
     */
    private void tellDeepPosition(ScheduledJob job, QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = queue(key);
        int holder = queue.slotHolder().isPresent() ? 1 : 0;
        int bound = settings.positionUpdates() * 10;
        OptionalInt position = queue.positionOf(entry(job), bound);
        String message = position.isPresent()
                ? Messages.waitingCount(position.getAsInt() + holder)
                : Messages.waitingBeyond(bound + holder);
        publish(job, Status.Pending, Optional.of(Reason.Waiting), message, now, out);
    }

    // ---- observations: each acts only on the job's current phase and resource ----

    /**
     * The pool a provisioning job created is Ready: dispatch. A repeated NodePoolReady (redelivery, an executor
     * that restarted) for a pool already READY, held or idle, changes nothing; neither does one for a pool being
     * deleted or unknown.
     */
    private void onPoolReady(ExecutorEvent.NodePoolReady ready, Instant now, Decisions out) {
        NodePool pool = pools.get(new NodePool.PoolKey(ready.clusterId(), ready.nodePoolName()));
        if (pool == null || pool.state() != NodePool.State.CREATING) {
            return;
        }
        Optional<ScheduledJob> holder = pool.heldBy().map(jobs::get)
                .filter(job -> job.phase() == Phase.PROVISIONING)
                .filter(job -> job.nodePoolName().filter(pool.name()::equals).isPresent());
        if (holder.isPresent()) {
            dispatchOn(holder.get(), pool, Messages.dispatching(), now, out);
        } else {
            // Created for a job that has moved on without it (it cannot: a CREATING pool's holder is provisioning).
            deletePool(pool, now, out);
        }
    }

    private void onWaitingForNodes(ExecutorEvent.NodePoolWaitingForNodes waiting, Instant now, Decisions out) {
        provisioningWith(waiting.jobId(), waiting.clusterId(), waiting.nodePoolName()).ifPresent(job -> {
            String message = Messages.waitingForNode(waiting.nodePoolName(), waiting.registered(), waiting.ready(),
                    waiting.expected());
            // GKE keeps retrying the nodes (seed section 4): no backstop timeout while it does.
            ScheduledJob awaiting = job.inProvisioningStep(ProvisioningStep.AWAITING_NODES);
            if (!message.equals(job.message())) {
                publish(awaiting, Status.Pending, Optional.of(Reason.WaitingForNode), message, now, out);
            } else if (!awaiting.equals(job)) {
                store(awaiting, out);
            }
        });
    }

    /** Capacity appeared and GKE accepted the creation: a ClusterBusy job is Provisioning again. */
    private void onPoolCreating(ExecutorEvent.NodePoolCreating creating, Instant now, Decisions out) {
        provisioningWith(creating.jobId(), creating.clusterId(), creating.nodePoolName())
                .filter(job -> job.provisioningStep().filter(ProvisioningStep.RESERVATION_SHORT::equals).isPresent())
                .ifPresent(job -> publish(job.inProvisioningStep(ProvisioningStep.REQUESTED)
                                .withWakeAt(Optional.of(now.plus(settings.provisioningRetry()))),
                        Status.Pending, Optional.of(Reason.Provisioning),
                        Messages.provisioning(job.supplyMode().orElse(SupplyMode.FLEX_START)), now, out));
        job(creating.jobId()).ifPresent(this::scheduleTimers);
    }

    private void onPoolFailed(ExecutorEvent.NodePoolCreateFailed failed, Instant now, Decisions out) {
        provisioningWith(failed.jobId(), failed.clusterId(), failed.nodePoolName()).ifPresent(job -> {
            Reason reason = failed.timedOut() ? Reason.NodePoolTimeout : Reason.NodePoolFailed;
            String message = failed.timedOut()
                    ? Messages.nodePoolTimeout(java.time.Duration.ofSeconds(failed.timeoutSeconds()), failed.message())
                    : Messages.nodePoolFailed(failed.message());
            end(job, Status.Failed, Optional.of(reason), message, now, out);
        });
    }

    /**
     * Seed section 5: a reservation without enough free slices keeps the job Pending/ClusterBusy and asks again
     * later; it never falls back to another supply mode by itself. The job keeps its queue's slot and its pool
     * record (if a later attempt creates the pool, its NodePoolReady finds it). Once the pool's nodes are awaited
     * the pool exists: a late ReservationShort from an earlier attempt is ignored.
     */
    private void onReservationShort(ExecutorEvent.ReservationShort shortage, Instant now, Decisions out) {
        provisioningWith(shortage.jobId(), shortage.clusterId(), shortage.nodePoolName())
                .filter(job -> job.provisioningStep().filter(ProvisioningStep.AWAITING_NODES::equals).isEmpty())
                .ifPresent(job -> {
                    String message = Messages.clusterBusy(shortage.remainingSlices(), shortage.neededSlices());
                    ScheduledJob busy = job.inProvisioningStep(ProvisioningStep.RESERVATION_SHORT)
                            .withWakeAt(Optional.of(now.plus(settings.reservationRetry())));
                    if (message.equals(job.message())) {
                        store(busy, out);
                    } else {
                        publish(busy, Status.Pending, Optional.of(Reason.ClusterBusy), message, now, out);
                    }
                    scheduleTimers(jobs.get(job.id()));
                });
    }

    /** Only a pool the scheduler is deleting is forgotten; the event for any other pool is stale. */
    private void onPoolDeleted(ExecutorEvent.NodePoolDeleted deleted, Decisions out) {
        NodePool.PoolKey key = new NodePool.PoolKey(deleted.clusterId(), deleted.nodePoolName());
        NodePool pool = pools.get(key);
        if (pool != null && pool.state() == NodePool.State.DELETING) {
            pools.remove(key);
            out.poolChanged(key);
        }
    }

    /**
     * Seed error table: a node-pool deletion keeps failing; it goes on being retried, and the error is appended to
     * the Message of the job that last held the pool, whose Status stays its result.
     */
    private void onPoolDeleteFailing(ExecutorEvent.NodePoolDeleteFailing failing, Instant now, Decisions out) {
        NodePool pool = pools.get(new NodePool.PoolKey(failing.clusterId(), failing.nodePoolName()));
        if (pool == null || pool.state() != NodePool.State.DELETING) {
            return;
        }
        String note = Messages.poolDeleteFailing(failing.nodePoolName(), failing.message());
        jobs.values().stream()
                .filter(j -> j.phase() == Phase.DONE)
                .filter(j -> j.clusterId().filter(failing.clusterId()::equals).isPresent())
                .filter(j -> j.nodePoolName().filter(failing.nodePoolName()::equals).isPresent())
                .max(Comparator.comparing((ScheduledJob j) -> j.phaseSince().orElse(Instant.EPOCH)))
                .filter(j -> !j.message().contains(note))
                .ifPresent(j -> publish(j, j.status(), j.reason(), (j.message() + " " + note).strip(), now, out));
    }

    /**
     * The Kubernetes Job exists. Dispatching: record it, arm the dispatch and execution deadlines. Running already
     * (JobRunning came first): only the uid is new. Anything else (aborting, terminal): ignored.
     */
    private void onJobSubmitted(ExecutorEvent.JobSubmitted submitted, Instant now, Decisions out) {
        executing(submitted.jobId(), submitted.clusterId(), submitted.k8sJobName()).ifPresent(job -> {
            if (job.phase() == Phase.DISPATCHING && !job.submitted()) {
                ScheduledJob updated = job.withSubmission(Optional.of(submitted.jobUid()), now)
                        .withWakeAt(Optional.empty());
                publish(updated, Status.Pending, Optional.of(Reason.Dispatching),
                        Messages.submitted(submitted.k8sJobName(), job.request().topology().hosts()), now, out);
                scheduleTimers(jobs.get(job.id()));
            } else if (job.jobUid().isEmpty() && !submitted.jobUid().isBlank()) {
                ScheduledJob updated = job.withSubmission(Optional.of(submitted.jobUid()), now);
                publish(updated, job.status(), job.reason(), job.message(), now, out);
            }
        });
    }

    /**
     * Dispatching and the Job not seen yet: a refusal fails the job; a retryable error keeps it Dispatching, says
     * so, and the re-drive timer asks again until the submit deadline. Once the Job has been seen, a failure of an
     * earlier attempt is stale.
     */
    private void onJobSubmitFailed(ExecutorEvent.JobSubmitFailed failed, Instant now, Decisions out) {
        executing(failed.jobId(), failed.clusterId(), failed.k8sJobName())
                .filter(job -> job.phase() == Phase.DISPATCHING && !job.submitted())
                .ifPresent(job -> {
                    if (!failed.retryable()) {
                        end(job, Status.Failed, Optional.of(Reason.JobSubmitFailed),
                                Messages.jobSubmitFailed(failed.message()), now, out);
                        return;
                    }
                    ScheduledJob retrying = job.withLastError(failed.message());
                    String message = Messages.submitRetrying(failed.message());
                    if (message.equals(job.message())) {
                        store(retrying, out);
                    } else {
                        publish(retrying, Status.Pending, Optional.of(Reason.Dispatching), message, now, out);
                    }
                });
    }

    /**
     * All pods run. From Dispatching (even before JobSubmitted arrived): Running, the uid and dispatched_at are
     * recorded, the execution deadline armed and the queue's slot released. While Running: only a changed pod count
     * is published.
     */
    private void onJobRunning(ExecutorEvent.JobRunning running, Instant now, Decisions out) {
        executing(running.jobId(), running.clusterId(), running.k8sJobName()).ifPresent(job -> {
            String message = runningMessage(Messages.running(running.active(), running.expected()),
                    running.clusterId());
            if (job.phase() == Phase.RUNNING) {
                ScheduledJob updated = job.withSubmission(Optional.of(running.jobUid()), now);
                if (!message.equals(job.message()) || !updated.jobUid().equals(job.jobUid())) {
                    publish(updated, Status.Running, Optional.empty(), message, now, out);
                }
                return;
            }
            ScheduledJob runningJob = job.withSubmission(Optional.of(running.jobUid()), now).enter(Phase.RUNNING, now)
                    .withWakeAt(Optional.empty());
            publish(runningJob, Status.Running, Optional.empty(), message, now, out);
            scheduleTimers(jobs.get(job.id()));
            out.started(jobs.get(job.id()));
            QueueKey key = job.queue().orElseThrow();
            queue(key).releaseSlot(job.id());
            startNext(key, now, out);
        });
    }

    /** Confirms the deletion of an aborting job's Job (then Aborted), or of a finished job's. */
    private void onJobDeleted(ExecutorEvent.JobDeleted deleted, Instant now, Decisions out) {
        JobDeletion.Key key = new JobDeletion.Key(deleted.clusterId(), deleted.k8sJobName());
        if (deletions.remove(key) != null) {
            out.deletionChanged(key);
        }
        ScheduledJob job = jobs.get(deleted.jobId());
        if (job != null && job.phase().aborting() && job.k8sJobName().filter(deleted.k8sJobName()::equals)
                .isPresent() && job.clusterId().filter(deleted.clusterId()::equals).isPresent()) {
            end(job, Status.Aborted, Optional.empty(), Messages.aborted(), true, now, out);
        }
    }

    /**
     * The cluster an inventory listed, if this scheduler owns it and its row still names that GKE cluster (an
     * inventory of a location the row has left says nothing about where its pools and Jobs are now).
     */
    private Optional<ClusterTarget> listedHere(String clusterId, String clusterResource) {
        return Optional.ofNullable(clusters.get(clusterId)).map(Scheduler::target)
                .filter(t -> t.resourceName().equals(clusterResource));
    }

    /**
     * Orphans (seed error table): a falcon-* pool that no job of this scheduler holds or is creating is deleted once
     * it has been seen for the orphan grace, so a freshly created flex-start pool that GKE shows late is not
     * mistaken for one. A pool being deleted that the inventory of its own location no longer lists is gone.
     */
    private void onPoolInventory(ExecutorEvent.NodePoolInventory inventory, Instant now, Decisions out) {
        Optional<ClusterTarget> listed = listedHere(inventory.clusterId(), inventory.clusterResource());
        if (listed.isEmpty()) {
            return;
        }
        ClusterTarget here = listed.get();
        Set<NodePool.PoolKey> seen = new HashSet<>();
        for (ExecutorEvent.ObservedPool observed : inventory.pools()) {
            if (!ResourceNames.isFalconNodePool(observed.name())) {
                continue;
            }
            NodePool.PoolKey key = new NodePool.PoolKey(inventory.clusterId(), observed.name());
            seen.add(key);
            if (pools.containsKey(key)) {
                orphanPools.remove(key);
                continue;
            }
            Instant firstSeen = orphanPools.computeIfAbsent(key,
                    k -> observed.createdAt().filter(created -> created.isBefore(now)).orElse(now));
            if (!firstSeen.plus(settings.orphanGrace()).isAfter(now)) {
                orphanPools.remove(key);
                deletePool(new NodePool(here, observed.name(), observed.topology(), SupplyMode.ON_DEMAND,
                        NodePool.State.DELETING, Optional.empty(), Optional.empty()), now, out);
            }
        }
        orphanPools.keySet().removeIf(key -> key.clusterId().equals(inventory.clusterId()) && !seen.contains(key));
        // Absent from a listing of its own location long after its deletion was asked for: gone. Not sooner: a
        // flex-start pool is invisible for a while after its creation, and may be deleted in that while.
        Instant listedAt = inventory.meta().occurredAt();
        List<NodePool.PoolKey> gone = pools.values().stream()
                .filter(p -> p.clusterId().equals(inventory.clusterId()) && p.state() == NodePool.State.DELETING)
                .filter(p -> p.target().equals(here))
                .filter(p -> p.since().filter(since -> since.plus(settings.orphanGrace()).isBefore(listedAt))
                        .isPresent())
                .map(NodePool::key).filter(key -> !seen.contains(key)).toList();
        for (NodePool.PoolKey key : gone) {
            pools.remove(key);
            out.poolChanged(key);
        }
    }

    /**
     * The sweep of Kubernetes Jobs: a falcon Job whose task has ended is deleted (again); one of no task this
     * scheduler knows, or of a task that lives elsewhere, is deleted once seen for the orphan grace. A deletion
     * the inventory of its own location no longer lists is confirmed.
     */
    private void onJobInventory(ExecutorEvent.JobInventory inventory, Instant now, Decisions out) {
        Optional<ClusterTarget> listed = listedHere(inventory.clusterId(), inventory.clusterResource());
        if (listed.isEmpty()) {
            return;
        }
        ClusterTarget here = listed.get();
        Set<JobDeletion.Key> seen = new HashSet<>();
        for (ExecutorEvent.ObservedJob observed : inventory.jobs()) {
            JobDeletion.Key key = new JobDeletion.Key(inventory.clusterId(), observed.name());
            seen.add(key);
            if (deletions.containsKey(key)) {
                continue;
            }
            ScheduledJob job = jobs.get(observed.falconJobId());
            boolean owned = job != null && job.phase() != Phase.DONE
                    && job.clusterId().filter(inventory.clusterId()::equals).isPresent()
                    && job.target().filter(here::equals).isPresent()
                    && job.k8sJobName().filter(observed.name()::equals).isPresent();
            if (owned) {
                orphanJobs.remove(key);
                continue;
            }
            boolean ended = job != null && job.phase() == Phase.DONE;
            Instant firstSeen = orphanJobs.computeIfAbsent(key,
                    k -> observed.createdAt().filter(created -> created.isBefore(now)).orElse(now));
            if (ended || !firstSeen.plus(settings.orphanGrace()).isAfter(now)) {
                orphanJobs.remove(key);
                requestJobDeletion(new JobDeletion(here, observed.name(), observed.falconJobId(), now), now, out);
            }
        }
        orphanJobs.keySet().removeIf(key -> key.clusterId().equals(inventory.clusterId()) && !seen.contains(key));
        List<JobDeletion.Key> gone = deletions.values().stream()
                .filter(d -> d.target().equals(here) && d.requestedAt().isBefore(inventory.meta().occurredAt()))
                .map(JobDeletion::key).filter(key -> !seen.contains(key)).toList();
        for (JobDeletion.Key key : gone) {
            deletions.remove(key);
            out.deletionChanged(key);
        }
    }

    // ---- ending a job, pools and deletions ----

    /**
     * Ends a job in any active phase through the one deprovisioning path (seed section 8): delete its Kubernetes
     * Job (remembered until confirmed), offer its node pool to the next waiting job of the same queue, else delete
     * the pool.
     */
    private void end(ScheduledJob job, Status status, Optional<Reason> reason, String message, Instant now,
            Decisions out) {
        end(job, status, reason, message, false, now, out);
    }

    /** k8sJobGone: the executor confirmed its Kubernetes Job deleted, so no deletion is left to ask for. */
    private void end(ScheduledJob job, Status status, Optional<Reason> reason, String message, boolean k8sJobGone,
            Instant now, Decisions out) {
        boolean heldSlot = job.phase().holdsSlot();
        if (!k8sJobGone) {
            job.k8sJobName().ifPresent(name -> job.target().ifPresent(t ->
                    requestJobDeletion(new JobDeletion(t, name, job.id(), now), now, out)));
        }
        unplaced.remove(job.id());
        ScheduledJob done = job.enter(Phase.DONE, now).withWakeAt(Optional.empty());
        store(done, out);
        publishEnd(done, status, reason, message, now, out);
        Optional<NodePool> pool = job.nodePoolName()
                .flatMap(name -> job.clusterId().map(c -> new NodePool.PoolKey(c, name)))
                .map(pools::get)
                .filter(p -> p.heldBy().filter(job.id()::equals).isPresent());
        if (heldSlot) {
            job.queue().ifPresent(key -> queue(key).releaseSlot(job.id()));
        }
        if (pool.filter(p -> p.state() == NodePool.State.READY).isPresent()) {
            releasePool(pool.get().idle(now), now, out);
            return;
        }
        if (pool.isPresent() && status == Status.Aborted && heldSlot) {
            // Seed section 8: an abort does not skip the reuse check. The pool being created goes to the next job
            // of the queue if it suits it, else it is deleted.
            NodePool orphan = pool.get().with(NodePool.State.CREATING, Optional.empty());
            storePool(orphan, out);
            job.queue().ifPresent(key -> startNext(key, now, out));
            NodePool after = pools.get(orphan.key());
            if (after != null && after.heldBy().isEmpty() && after.state() == NodePool.State.CREATING) {
                deletePool(after, now, out);
            }
            return;
        }
        pool.ifPresent(p -> deletePool(p, now, out));
        if (heldSlot) {
            job.queue().ifPresent(key -> startNext(key, now, out));
        }
    }

    /**
     * An idle READY pool (seed section 5) goes to its queue: to the job acquiring resources there if that job is
     * still waiting for a pool of its own (whose creation is then cancelled), else to the next waiting job, else it
     * is deleted. Only a pool of the cluster as its row is now, and only while it is active, is reused.
     */
    private void releasePool(NodePool idle, Instant now, Decisions out) {
        storePool(idle, out);
        QueueKey key = new QueueKey(idle.clusterId(), idle.topology());
        ClusterRow cluster = clusters.get(idle.clusterId());
        if (cluster == null || !cluster.isActive() || !target(cluster).equals(idle.target())) {
            deletePool(idle, now, out);
            startNext(key, now, out); // the queue's slot is free all the same
            return;
        }
        Optional<ScheduledJob> provisioning = queue(key).slotHolder().map(jobs::get)
                .filter(job -> job.phase() == Phase.PROVISIONING).filter(idle::suits);
        if (provisioning.isPresent()) {
            ScheduledJob job = provisioning.get();
            job.nodePoolName().map(name -> pools.get(new NodePool.PoolKey(key.clusterId(), name)))
                    .filter(own -> own.state() != NodePool.State.DELETING)
                    .ifPresent(own -> deletePool(own, now, out));
            dispatchOn(job, idle, Messages.reusedPool(idle.name()), now, out);
            return;
        }
        startNext(key, now, out);
        NodePool after = pools.get(idle.key());
        if (after != null && after.heldBy().isEmpty() && after.state() == NodePool.State.READY) {
            Duration linger = settings.idleLinger(after.supplyMode());
            if (linger.isZero() || linger.isNegative()) {
                deletePool(after, now, out);
            } else {
                // Kept for a while: a new job of this topology prefers this cluster meanwhile (seed section 3).
                timers.add(new Timer(now.plus(linger), TimerKind.POOL, after.key().asString()));
            }
        }
    }

    /** A deletion not yet confirmed is asked again; an idle pool whose linger is over is deleted. */
    private void onPoolTimer(NodePool pool, Instant now, Decisions out) {
        if (pool.state() == NodePool.State.DELETING) {
            deletePool(pool, now, out);
        } else if (pool.state() == NodePool.State.READY && pool.heldBy().isEmpty()) {
            Instant until = pool.since().orElse(Instant.EPOCH).plus(settings.idleLinger(pool.supplyMode()));
            if (!until.isAfter(now) || !clusterActive(pool.clusterId())) {
                deletePool(pool, now, out);
            } else {
                timers.add(new Timer(until, TimerKind.POOL, pool.key().asString()));
            }
        }
    }

    /** Marks the pool DELETING and asks for it; re-asked every cleanup interval until NodePoolDeleted. */
    private void deletePool(NodePool pool, Instant now, Decisions out) {
        NodePool deleting = pool.deleting(now);
        storePool(deleting, out);
        out.send(new ExecutorCommand.EnsureNodePoolDeleted(meta(now), pool.heldBy().orElse(""), pool.target(),
                pool.name()));
        timers.add(new Timer(now.plus(settings.cleanupRetry()), TimerKind.POOL, deleting.key().asString()));
    }

    private void requestJobDeletion(JobDeletion deletion, Instant now, Decisions out) {
        JobDeletion existing = deletions.putIfAbsent(deletion.key(), deletion);
        if (existing == null) {
            out.deletionChanged(deletion.key());
        }
        askJobDeletion(existing == null ? deletion : existing, now, out);
    }

    private void askJobDeletion(JobDeletion deletion, Instant now, Decisions out) {
        out.send(new ExecutorCommand.EnsureJobDeleted(meta(now), deletion.jobId(), deletion.target(),
                deletion.k8sJobName()));
        timers.add(new Timer(now.plus(settings.cleanupRetry()), TimerKind.DELETION, deletion.key().asString()));
    }

    // ---- timers: the phase table of docs/architecture.md ----

    private void scheduleTimers(ScheduledJob job) {
        if (job.phase() == Phase.DONE) {
            return;
        }
        deadlines(job).forEach(at -> timers.add(new Timer(at, TimerKind.JOB, job.id())));
        job.wakeAt().ifPresent(at -> timers.add(new Timer(at, TimerKind.JOB, job.id())));
    }

    /** The deadlines of the job's phase (see {@link #onJobTimer}). */
    private List<Instant> deadlines(ScheduledJob job) {
        List<Instant> at = new ArrayList<>(2);
        Instant since = job.phaseSince().orElse(Instant.EPOCH);
        switch (job.phase()) {
            case PROVISIONING -> at.add(since.plus(settings.provisioningBackstop()));
            case DISPATCHING -> {
                if (job.submitted()) {
                    job.dispatchedAt().ifPresent(d -> at.add(d.plus(settings.dispatchDeadline())));
                    job.executionDeadline(settings.defaultExecutionTimeout()).ifPresent(at::add);
                } else {
                    at.add(since.plus(settings.submitDeadline()));
                }
            }
            case RUNNING -> job.executionDeadline(settings.defaultExecutionTimeout()).ifPresent(at::add);
            case CANCELLING -> at.add(since.plus(settings.dispatchDeadline()));
            default -> { }
        }
        return at;
    }

    /**
     * Per phase: what fires when nothing moved the job on.
     * <ul>
     *   <li>Provisioning (no word yet): NodePoolTimeout after the backstop; before it, EnsureNodePool re-sent.</li>
     *   <li>ClusterBusy / WaitingForNode: EnsureNodePool re-sent (reservation retry / provisioning retry); no
     *       deadline (seed sections 4 and 5).</li>
     *   <li>Dispatching, Job not seen: EnsureJob re-sent; JobSubmitFailed after the submit deadline.</li>
     *   <li>Dispatching, Job seen: JobFailed when its pods do not all run within the dispatch deadline; Timeout at
     *       the execution deadline.</li>
     *   <li>Running: Timeout at the execution deadline (timeout_seconds or the default).</li>
     *   <li>Aborting: EnsureJobDeleted re-sent; an aborting job that still holds its queue's slot (was Dispatching)
     *       gives the slot up after the dispatch deadline.</li>
     * </ul>
     */
    private void onJobTimer(ScheduledJob job, Instant now, Decisions out) {
        Instant since = job.phaseSince().orElse(Instant.EPOCH);
        boolean wakeDue = job.wakeAt().filter(at -> !at.isAfter(now)).isPresent();
        switch (job.phase()) {
            case PROVISIONING -> {
                ProvisioningStep step = job.provisioningStep().orElse(ProvisioningStep.REQUESTED);
                if (step == ProvisioningStep.REQUESTED && !since.plus(settings.provisioningBackstop()).isAfter(now)) {
                    end(job, Status.Failed, Optional.of(Reason.NodePoolTimeout), Messages.nodePoolTimeout(
                            settings.provisioningBackstop(), "no answer from the executor"), now, out);
                } else if (wakeDue) {
                    ScheduledJob again = job.withWakeAt(Optional.of(now.plus(step == ProvisioningStep.RESERVATION_SHORT
                            ? settings.reservationRetry() : settings.provisioningRetry())));
                    store(again, out);
                    out.send(ensurePool(again, now));
                    scheduleTimers(again);
                }
            }
            case DISPATCHING -> {
                Optional<Instant> execution = job.executionDeadline(settings.defaultExecutionTimeout());
                if (execution.filter(at -> !at.isAfter(now)).isPresent()) {
                    end(job, Status.Failed, Optional.of(Reason.Timeout), timeoutMessage(job), now, out);
                } else if (job.submitted()) {
                    if (!job.dispatchedAt().orElseThrow().plus(settings.dispatchDeadline()).isAfter(now)) {
                        end(job, Status.Failed, Optional.of(Reason.JobFailed), Messages.podsNeverRan(
                                job.k8sJobName().orElse(""), settings.dispatchDeadline()), now, out);
                    }
                } else if (!since.plus(settings.submitDeadline()).isAfter(now)) {
                    end(job, Status.Failed, Optional.of(Reason.JobSubmitFailed), Messages.submitGaveUp(
                            settings.submitDeadline(), job.lastError().orElse("no answer from the executor")), now, out);
                } else if (wakeDue) {
                    ScheduledJob again = job.withWakeAt(Optional.of(now.plus(settings.dispatchRetry())));
                    store(again, out);
                    out.send(ensureJob(again, now));
                    scheduleTimers(again);
                }
            }
            case RUNNING -> {
                if (job.executionDeadline(settings.defaultExecutionTimeout()).filter(at -> !at.isAfter(now))
                        .isPresent()) {
                    end(job, Status.Failed, Optional.of(Reason.Timeout), timeoutMessage(job), now, out);
                }
            }
            case CANCELLING, ABORTING -> {
                if (job.phase() == Phase.CANCELLING && !since.plus(settings.dispatchDeadline()).isAfter(now)) {
                    // The deletion cannot be confirmed (the edge cluster does not answer): the queue must not wait
                    // for it. The job stays Aborting, without the slot, and its deletion is asked for on.
                    ScheduledJob aborting = job.enter(Phase.ABORTING, now).withWakeAt(job.wakeAt());
                    store(aborting, out);
                    scheduleTimers(aborting);
                    QueueKey key = job.queue().orElseThrow();
                    queue(key).releaseSlot(job.id());
                    startNext(key, now, out);
                    return;
                }
                if (wakeDue) {
                    ScheduledJob again = job.withWakeAt(Optional.of(now.plus(settings.abortRetry())));
                    store(again, out);
                    again.target().ifPresent(t -> out.send(new ExecutorCommand.EnsureJobDeleted(meta(now), job.id(),
                            t, job.k8sJobName().orElse(ResourceNames.k8sJob(job.id())))));
                    scheduleTimers(again);
                }
            }
            default -> { }
        }
    }

    private String timeoutMessage(ScheduledJob job) {
        return Messages.timeout(job.executionTimeout(settings.defaultExecutionTimeout()).toSeconds());
    }

    // ---- helpers ----

    private boolean clusterActive(String clusterId) {
        ClusterRow cluster = clusters.get(clusterId);
        return cluster != null && cluster.isActive();
    }

    /** A READY pool of the cluster (as its row is now) and topology that nobody holds and that suits the job. */
    private Optional<NodePool> idlePool(ClusterRow cluster, String topology, ScheduledJob job) {
        return freePool(cluster, topology, job, NodePool.State.READY);
    }

    /** A pool still being created whose creator was aborted, that suits the job. */
    private Optional<NodePool> handedOverPool(ClusterRow cluster, QueueKey key, ScheduledJob job) {
        return freePool(cluster, key.topology(), job, NodePool.State.CREATING);
    }

    private Optional<NodePool> freePool(ClusterRow cluster, String topology, ScheduledJob job, NodePool.State state) {
        ClusterTarget here = target(cluster);
        return pools.values().stream()
                .filter(p -> p.clusterId().equals(cluster.id()) && p.topology().equals(topology))
                .filter(p -> p.state() == state && p.heldBy().isEmpty())
                .filter(p -> p.target().equals(here))
                .filter(p -> p.suits(job))
                .min(Comparator.comparing(NodePool::name));
    }

    /**
     * The job provisioning this very pool in this cluster: the pool's holder, whatever job id the event carries (a
     * pool being created can be taken over by the next job when its creator is aborted).
     */
    private Optional<ScheduledJob> provisioningWith(String jobId, String clusterId, String poolName) {
        return Optional.ofNullable(pools.get(new NodePool.PoolKey(clusterId, poolName)))
                .filter(pool -> pool.state() == NodePool.State.CREATING)
                .flatMap(NodePool::heldBy).map(jobs::get)
                .filter(job -> job.phase() == Phase.PROVISIONING)
                .filter(job -> job.clusterId().filter(clusterId::equals).isPresent())
                .filter(job -> job.nodePoolName().filter(poolName::equals).isPresent());
    }

    /** The job, if it is dispatching or running this very Kubernetes Job in this cluster. */
    private Optional<ScheduledJob> executing(String jobId, String clusterId, String k8sJobName) {
        return Optional.ofNullable(jobs.get(jobId))
                .filter(job -> job.phase() == Phase.DISPATCHING || job.phase() == Phase.RUNNING)
                .filter(job -> job.clusterId().filter(clusterId::equals).isPresent())
                .filter(job -> job.k8sJobName().filter(k8sJobName::equals).isPresent());
    }

    private static String phaseWord(ScheduledJob job) {
        return switch (job.phase()) {
            case PROVISIONING -> "provisioning";
            case DISPATCHING -> "dispatching";
            case RUNNING -> "running";
            case ABORTING, CANCELLING -> "aborting";
            default -> "waiting";
        };
    }

    private WaitQueue queue(QueueKey key) {
        return queues.computeIfAbsent(key, k -> new WaitQueue());
    }

    private static WaitQueue.Entry entry(ScheduledJob job) {
        return new WaitQueue.Entry(job.seq(), job.id(), job.actor(), job.request().name());
    }

    private ExecutorCommand.EnsureNodePool ensurePool(ScheduledJob job, Instant now) {
        ClusterTarget target = job.target().orElseThrow();
        Optional<String> reservation = job.supplyMode().filter(SupplyMode.RESERVATION::equals)
                .flatMap(m -> Optional.ofNullable(clusters.get(target.clusterId())))
                .flatMap(ClusterRow::defaultReservation).filter(r -> !r.isBlank());
        return new ExecutorCommand.EnsureNodePool(meta(now), job.id(), target, job.nodePoolName().orElseThrow(),
                job.request().tpuType().wireName(), job.request().topology().text(),
                job.supplyMode().orElse(SupplyMode.FLEX_START), reservation);
    }

    private ExecutorCommand.EnsureJob ensureJob(ScheduledJob job, Instant now) {
        return new ExecutorCommand.EnsureJob(meta(now), job.id(), job.target().orElseThrow(),
                job.nodePoolName().orElseThrow(), job.k8sJobName().orElse(ResourceNames.k8sJob(job.id())),
                job.request().tpuType().wireName(), job.request().topology().text(), job.request().spec());
    }

    static ClusterTarget target(ClusterRow cluster) {
        return new ClusterTarget(cluster.id(), cluster.name(), cluster.project(), cluster.location(),
                cluster.tpuType(), cluster.gcsBucket());
    }

    private void store(ScheduledJob job, Decisions out) {
        jobs.put(job.id(), job);
        out.jobChanged(job.id());
    }

    private void storePool(NodePool pool, Decisions out) {
        pools.put(pool.key(), pool);
        out.poolChanged(pool.key());
    }

    private void publish(ScheduledJob job, Status status, Optional<Reason> reason, String message, Instant now,
            Decisions out) {
        ScheduledJob updated = job.withStatus(status, reason, message);
        store(updated, out);
        out.publish(statusOf(updated, now, Optional.empty(), Optional.empty()));
    }

    private void publishEnd(ScheduledJob job, Status status, Optional<Reason> reason, String message, Instant now,
            Decisions out) {
        ScheduledJob updated = job.withStatus(status, reason, message);
        store(updated, out);
        out.publish(statusOf(updated, now, Optional.of(now),
                status == Status.Aborted ? Optional.of(now) : Optional.empty()));
    }

    private static TaskStatus statusOf(ScheduledJob job, Instant now, Optional<Instant> finishedAt,
            Optional<Instant> abortedAt) {
        return new TaskStatus(meta(now), job.id(), job.version(), job.status(), job.reason(), job.message(),
                job.clusterId(), job.nodePoolName(), job.k8sJobName(), job.jobUid(), job.dispatchedAt(), finishedAt,
                abortedAt);
    }

    private static Meta meta(Instant now) {
        return Meta.of(PRODUCER, now);
    }
}
