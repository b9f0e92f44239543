package io.falcon.scheduler.core;

import io.falcon.events.Meta;
import io.falcon.events.ResourceNames;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The scheduling state machine of the jobs it is given (one instance per stream task, which owns whole TPU
 * types). Plain Java: every input is a method call with the current time, every output is in the returned
 * {@link Decisions}. The shell persists changed state and forwards statuses and commands.
 */
public final class Scheduler {
    public static final String PRODUCER = "scheduler-streams";

    private final SchedulerSettings settings;
    private final Map<String, ClusterRow> clusters = new HashMap<>();
    private final Map<String, ScheduledJob> jobs = new HashMap<>();
    private final Map<QueueKey, WaitQueue> queues = new HashMap<>();
    private final Map<NodePool.PoolKey, NodePool> pools = new HashMap<>();
    private final java.util.Set<String> unplaced = new java.util.LinkedHashSet<>();
    /** Execution deadlines and wake-ups of all jobs, earliest first; stale entries are skipped when they fire. */
    private final TreeSet<Timer> timers = new TreeSet<>(Comparator.comparing(Timer::at).thenComparing(Timer::jobId));
    /** When each unknown falcon-* pool was first reported, for the orphan grace. */
    private final Map<NodePool.PoolKey, Instant> orphanCandidates = new HashMap<>();

    private record Timer(Instant at, String jobId) {
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

    public void restorePool(NodePool pool) {
        pools.put(pool.key(), pool);
    }

    public void restoreQueue(QueueKey key, Optional<String> lastServedActor) {
        queue(key).restoreLastServedActor(lastServedActor);
    }

    public void restoreJob(ScheduledJob job) {
        jobs.put(job.id(), job);
        switch (job.phase()) {
            case UNPLACED -> unplaced.add(job.id());
            case WAITING -> queue(job.queue().orElseThrow()).add(entry(job));
            case PROVISIONING, DISPATCHING -> queue(job.queue().orElseThrow()).takeSlot(job.id());
            default -> { }
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

    public Optional<String> lastServedActor(QueueKey key) {
        return Optional.ofNullable(queues.get(key)).flatMap(WaitQueue::lastServedActor);
    }

    public int queueDepth(QueueKey key) {
        WaitQueue queue = queues.get(key);
        return queue == null ? 0 : queue.size() + (queue.slotHolder().isPresent() ? 1 : 0);
    }

    public Collection<ClusterRow> clusters() {
        return clusters.values();
    }

    /** Every job the scheduler knows, terminal ones included (for inspection and tests). */
    public Collection<ScheduledJob> jobs() {
        return java.util.Collections.unmodifiableCollection(jobs.values());
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
                running.merge(job.clusterId().orElseThrow(), 1L, Long::sum);
            }
        }
        return running;
    }

    /** Every node pool the scheduler knows of (for inspection and tests). */
    public Collection<NodePool> pools() {
        return java.util.Collections.unmodifiableCollection(pools.values());
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
        if (job == null || job.phase() == Phase.DONE || job.phase() == Phase.ABORTING) {
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
                String k8sJob = job.k8sJobName().orElse(ResourceNames.k8sJob(job.id()));
                out.send(new ExecutorCommand.EnsureJobDeleted(meta(now), job.id(),
                        target(clusters.get(job.clusterId().orElseThrow())), k8sJob));
                ScheduledJob aborting = job.withPhase(Phase.ABORTING)
                        .withK8sJob(k8sJob, job.jobUid(), job.dispatchedAt());
                publish(aborting, Status.Aborting, Optional.empty(), Messages.aborting(), now, out);
                wake(jobs.get(job.id()), now.plus(settings.abortRetry()), out);
                if (job.phase() == Phase.DISPATCHING) {
                    QueueKey key = job.queue().orElseThrow();
                    queue(key).releaseSlot(job.id());
                    startNext(key, now, out);
                }
            }
            default -> end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out);
        }
        return out;
    }

    public Decisions clusterUpserted(ClusterRow cluster, Instant now) {
        Decisions out = new Decisions();
        ClusterRow previous = clusters.put(cluster.id(), cluster);
        boolean lostActive = previous != null && previous.isActive() && !cluster.isActive();
        if (lostActive) {
            rerouteWaitingJobsOf(cluster.id(), now, out);
        }
        boolean gainedActive = cluster.isActive() && (previous == null || !previous.isActive());
        if (gainedActive) {
            rebalanceWaitingJobs(cluster.tpuType(), now, out);
        }
        return out;
    }

    public Decisions clusterRemoved(String clusterId, Instant now) {
        Decisions out = new Decisions();
        if (clusters.remove(clusterId) != null) {
            rerouteWaitingJobsOf(clusterId, now, out);
        }
        return out;
    }

    public Decisions observe(ExecutorEvent event, Instant now) {
        Decisions out = new Decisions();
        if (event instanceof ExecutorEvent.NodePoolReady ready) {
            onPoolReady(ready, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolCreateFailed failed) {
            onPoolFailed(failed, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolDeleted deleted) {
            NodePool.PoolKey key = new NodePool.PoolKey(deleted.clusterId(), deleted.nodePoolName());
            if (pools.remove(key) != null) {
                out.poolChanged(key);
            }
        } else if (event instanceof ExecutorEvent.JobSubmitted submitted) {
            activeJob(submitted.jobId(), Phase.DISPATCHING).ifPresent(job -> {
                ScheduledJob updated = job.withK8sJob(submitted.k8sJobName(), Optional.of(submitted.jobUid()),
                        Optional.of(job.dispatchedAt().orElse(now)));
                updated.executionDeadline().ifPresent(at -> timers.add(new Timer(at, job.id())));
                publish(updated, Status.Pending, Optional.of(Reason.Dispatching),
                        Messages.submitted(submitted.k8sJobName(), job.request().topology().hosts()), now, out);
            });
        } else if (event instanceof ExecutorEvent.JobSubmitFailed failed) {
            activeJob(failed.jobId(), Phase.DISPATCHING).ifPresent(job -> end(job, Status.Failed,
                    Optional.of(Reason.JobSubmitFailed), Messages.jobSubmitFailed(failed.message()), now, out));
        } else if (event instanceof ExecutorEvent.JobRunning running) {
            onJobRunning(running, now, out);
        } else if (event instanceof ExecutorEvent.JobSucceeded succeeded) {
            runningOrDispatching(succeeded.jobId()).ifPresent(job ->
                    end(job, Status.Succeeded, Optional.empty(), "", now, out));
        } else if (event instanceof ExecutorEvent.JobFailed failed) {
            runningOrDispatching(failed.jobId()).ifPresent(job ->
                    end(job, Status.Failed, Optional.of(Reason.JobFailed), failed.message(), now, out));
        } else if (event instanceof ExecutorEvent.JobDeleted deleted) {
            activeJob(deleted.jobId(), Phase.ABORTING).ifPresent(job ->
                    end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out));
        } else if (event instanceof ExecutorEvent.ReservationShort shortage) {
            onReservationShort(shortage, now, out);
        } else if (event instanceof ExecutorEvent.NodePoolWaitingForNodes waiting) {
            activeJob(waiting.jobId(), Phase.PROVISIONING).ifPresent(job -> {
                String message = Messages.waitingForNode(waiting.nodePoolName(), waiting.registered(),
                        waiting.ready(), waiting.expected());
                if (!message.equals(job.message())) {
                    // GKE keeps retrying the nodes (seed section 4): no backstop timeout while it does.
                    publish(job.withWakeAt(Optional.empty()), Status.Pending, Optional.of(Reason.WaitingForNode),
                            message, now, out);
                }
            });
        } else if (event instanceof ExecutorEvent.NodePoolInventory inventory) {
            onInventory(inventory, now, out);
        }
        return out;
    }

    /** Fires the timers that are due; the cost is proportional to the number due, not to all jobs. */
    public Decisions tick(Instant now) {
        Decisions out = new Decisions();
        while (!timers.isEmpty() && !timers.first().at().isAfter(now)) {
            Timer due = timers.pollFirst();
            ScheduledJob job = jobs.get(due.jobId());
            if (job != null && job.phase() != Phase.DONE) {
                onTimer(job, now, out);
            }
        }
        return out;
    }

    // ---- placement and queues ----

    private void place(ScheduledJob job, Instant now, Decisions out) {
        ClusterChoice.Result choice = ClusterChoice.choose(job.request().tpuType().wireName(),
                job.request().supplyMode(), clusters.values(),
                cluster -> idlePool(cluster.id(), job.request().topology().text()).isPresent(),
                cluster -> queueDepth(new QueueKey(cluster.id(), job.request().topology().text())));
        if (choice instanceof ClusterChoice.NoneEligible none) {
            ScheduledJob parked = job.withCluster(Optional.empty()).withPhase(Phase.UNPLACED);
            unplaced.add(parked.id());
            String message = Messages.noCluster(job.request().tpuType().wireName(), none.why());
            if (message.equals(job.message())) {
                store(parked, out);
            } else {
                publish(parked, Status.Pending, Optional.of(Reason.Waiting), message, now, out);
            }
        } else if (choice instanceof ClusterChoice.Chosen chosen) {
            ScheduledJob queued = job.withCluster(Optional.of(chosen.cluster().id())).withPhase(Phase.WAITING);
            store(queued, out);
            QueueKey key = queued.queue().orElseThrow();
            queue(key).add(entry(queued));
            out.queueChanged(key);
            boolean told = refreshPositions(key, now, out).contains(queued.id());
            startNext(key, now, out);
            if (!told && jobs.get(queued.id()).phase() == Phase.WAITING) {
                tellDeepPosition(jobs.get(queued.id()), key, now, out);
            }
        }
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
        waiting.sort(Comparator.comparingLong(ScheduledJob::seq).thenComparing(ScheduledJob::id));
        for (ScheduledJob job : waiting) {
            place(job, now, out);
        }
    }

    private void rerouteWaitingJobsOf(String clusterId, Instant now, Decisions out) {
        List<QueueKey> affected = queues.keySet().stream().filter(k -> k.clusterId().equals(clusterId)).toList();
        for (QueueKey key : affected) {
            WaitQueue queue = queues.get(key);
            for (WaitQueue.Entry entry : queue.pickOrder(Integer.MAX_VALUE)) {
                queue.remove(entry);
                place(jobs.get(entry.jobId()), now, out);
            }
        }
    }

    /** Gives the queue's free slot to the next job by the pick rule; true if a job started. */
    private boolean startNext(QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = queue(key);
        if (queue.slotHolder().isPresent() || !clusterActive(key.clusterId())) {
            return false;
        }
        Optional<WaitQueue.Entry> next = queue.pollNext();
        if (next.isEmpty()) {
            return false;
        }
        out.queueChanged(key);
        ScheduledJob job = jobs.get(next.get().jobId());
        ClusterRow cluster = clusters.get(key.clusterId());
        queue.takeSlot(job.id());
        Optional<NodePool> idle = idlePool(key.clusterId(), key.topology());
        if (idle.isPresent()) {
            NodePool pool = idle.get().with(NodePool.State.READY, Optional.of(job.id()));
            storePool(pool, out);
            ScheduledJob dispatching = job.withPhase(Phase.DISPATCHING).withSupplyMode(pool.supplyMode())
                    .withNodePool(pool.name()).withK8sJob(ResourceNames.k8sJob(job.id()), Optional.empty(),
                            Optional.empty());
            out.send(ensureJob(dispatching, cluster, now));
            publish(dispatching, Status.Pending, Optional.of(Reason.Dispatching), Messages.reusedPool(pool.name()), now,
                    out);
        } else {
            SupplyDecision supply = SupplyDecision.decide(job.request().supplyMode(), cluster);
            String poolName = ResourceNames.nodePool(job.id());
            storePool(new NodePool(key.clusterId(), poolName, key.topology(), supply.mode(), NodePool.State.CREATING,
                    Optional.of(job.id())), out);
            ScheduledJob provisioning = job.withPhase(Phase.PROVISIONING).withSupplyMode(supply.mode())
                    .withNodePool(poolName);
            out.send(new ExecutorCommand.EnsureNodePool(meta(now), job.id(), target(cluster), poolName,
                    job.request().tpuType().wireName(), key.topology(), supply.mode(), supply.reservation()));
            publish(provisioning, Status.Pending, Optional.of(Reason.Provisioning), Messages.provisioning(supply.mode()),
                    now, out);
            wake(jobs.get(job.id()), now.plus(settings.provisioningBackstop()), out);
        }
        refreshPositions(key, now, out);
        return true;
    }

    /**
     * Tells each of the first waiting jobs its exact position and who is ahead, when that changed; returns the
     * jobs it covered. Positions change for everyone behind any change, so only the first few are kept current.
     */
    private java.util.Set<String> refreshPositions(QueueKey key, Instant now, Decisions out) {
        WaitQueue queue = queue(key);
        List<WaitQueue.Entry> order = queue.pickOrder(settings.positionUpdates());
        List<WaitQueue.Entry> ahead = new ArrayList<>(order.size() + 1);
        queue.slotHolder().map(jobs::get).ifPresent(holder -> ahead.add(entry(holder)));
        java.util.Set<String> covered = new java.util.HashSet<>();
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
        java.util.OptionalInt position = queue.positionOf(entry(job), bound);
        String message = position.isPresent()
                ? Messages.waitingCount(position.getAsInt() + holder)
                : Messages.waitingBeyond(bound + holder);
        publish(job, Status.Pending, Optional.of(Reason.Waiting), message, now, out);
    }

    // ---- lifecycle ----

    private void onPoolReady(ExecutorEvent.NodePoolReady ready, Instant now, Decisions out) {
        NodePool.PoolKey key = new NodePool.PoolKey(ready.clusterId(), ready.nodePoolName());
        NodePool pool = pools.get(key);
        if (pool == null || pool.state() == NodePool.State.DELETING) {
            return;
        }
        Optional<ScheduledJob> holder = pool.heldBy().map(jobs::get)
                .filter(job -> job.phase() == Phase.PROVISIONING);
        if (holder.isPresent()) {
            storePool(pool.with(NodePool.State.READY, pool.heldBy()), out);
            ScheduledJob job = holder.get().withPhase(Phase.DISPATCHING).withWakeAt(Optional.empty())
                    .withK8sJob(ResourceNames.k8sJob(holder.get().id()), Optional.empty(), Optional.empty());
            out.send(ensureJob(job, clusters.get(ready.clusterId()), now));
            publish(job, Status.Pending, Optional.of(Reason.Dispatching), Messages.dispatching(), now, out);
        } else {
            releasePool(pool.with(NodePool.State.READY, Optional.empty()), now, out);
        }
    }

    /**
     * Seed section 5: a reservation without enough free slices keeps the job Pending/ClusterBusy and asks again
     * later; it never falls back to another supply mode by itself. The job keeps its queue's slot.
     */
    private void onReservationShort(ExecutorEvent.ReservationShort shortage, Instant now, Decisions out) {
        activeJob(shortage.jobId(), Phase.PROVISIONING).ifPresent(job -> {
            NodePool.PoolKey key = new NodePool.PoolKey(shortage.clusterId(), shortage.nodePoolName());
            if (pools.remove(key) != null) {
                out.poolChanged(key); // the executor created nothing
            }
            String message = Messages.clusterBusy(shortage.remainingSlices(), shortage.neededSlices());
            ScheduledJob busy = job;
            if (!message.equals(job.message())) {
                publish(job, Status.Pending, Optional.of(Reason.ClusterBusy), message, now, out);
                busy = jobs.get(job.id());
            }
            wake(busy, now.plus(settings.reservationRetry()), out);
        });
    }

    /**
     * Orphans (seed error table): a falcon-* pool that no job of this scheduler holds or is creating is deleted once
     * it has been seen for the orphan grace, so a freshly created flex-start pool that GKE shows late is not
     * mistaken for one. Pools already being deleted that still exist are asked to be deleted again.
     */
    private void onInventory(ExecutorEvent.NodePoolInventory inventory, Instant now, Decisions out) {
        ClusterRow cluster = clusters.get(inventory.clusterId());
        if (cluster == null) {
            return;
        }
        java.util.Set<NodePool.PoolKey> seen = new java.util.HashSet<>();
        for (ExecutorEvent.ObservedPool observed : inventory.pools()) {
            if (!ResourceNames.isFalconNodePool(observed.name())) {
                continue;
            }
            NodePool.PoolKey key = new NodePool.PoolKey(inventory.clusterId(), observed.name());
            seen.add(key);
            NodePool known = pools.get(key);
            if (known != null) {
                orphanCandidates.remove(key);
                if (known.state() == NodePool.State.DELETING) {
                    out.send(new ExecutorCommand.EnsureNodePoolDeleted(meta(now), observed.falconJob(),
                            target(cluster), observed.name()));
                }
                continue;
            }
            Instant firstSeen = orphanCandidates.computeIfAbsent(key,
                    k -> observed.createdAt().filter(created -> created.isBefore(now)).orElse(now));
            if (!firstSeen.plus(settings.orphanGrace()).isAfter(now)) {
                orphanCandidates.remove(key);
                storePool(new NodePool(inventory.clusterId(), observed.name(), observed.topology(),
                        io.falcon.events.executor.SupplyMode.ON_DEMAND, NodePool.State.DELETING, Optional.empty()), out);
                out.send(new ExecutorCommand.EnsureNodePoolDeleted(meta(now), observed.falconJob(), target(cluster),
                        observed.name()));
            }
        }
        orphanCandidates.keySet().removeIf(key -> key.clusterId().equals(inventory.clusterId()) && !seen.contains(key));
        List<NodePool.PoolKey> gone = pools.values().stream()
                .filter(p -> p.clusterId().equals(inventory.clusterId()) && p.state() == NodePool.State.DELETING)
                .map(NodePool::key).filter(key -> !seen.contains(key)).toList();
        for (NodePool.PoolKey key : gone) {
            pools.remove(key);
            out.poolChanged(key);
        }
    }

    private void onPoolFailed(ExecutorEvent.NodePoolCreateFailed failed, Instant now, Decisions out) {
        activeJob(failed.jobId(), Phase.PROVISIONING).ifPresent(job -> {
            Reason reason = failed.timedOut() ? Reason.NodePoolTimeout : Reason.NodePoolFailed;
            String message = failed.timedOut() ? Messages.nodePoolTimeout(failed.message())
                    : Messages.nodePoolFailed(failed.message());
            end(job, Status.Failed, Optional.of(reason), message, now, out);
        });
    }

    private void onJobRunning(ExecutorEvent.JobRunning running, Instant now, Decisions out) {
        ScheduledJob job = jobs.get(running.jobId());
        if (job == null || (job.phase() != Phase.DISPATCHING && job.phase() != Phase.RUNNING)) {
            return;
        }
        String message = Messages.running(running.active(), running.expected());
        if (job.phase() == Phase.RUNNING && message.equals(job.message())) {
            return;
        }
        ScheduledJob runningJob = job.withPhase(Phase.RUNNING)
                .withK8sJob(running.k8sJobName(), job.jobUid(), Optional.of(job.dispatchedAt().orElse(now)));
        publish(runningJob, Status.Running, Optional.empty(), message, now, out);
        if (job.phase() == Phase.DISPATCHING) {
            out.started(jobs.get(job.id()));
            QueueKey key = job.queue().orElseThrow();
            queue(key).releaseSlot(job.id());
            startNext(key, now, out);
        }
    }

    /**
     * Ends a job in any active phase through the one deprovisioning path (seed section 8): delete its Kubernetes
     * Job, offer its node pool to the next waiting job of the same queue, else delete the pool.
     */
    private void end(ScheduledJob job, Status status, Optional<Reason> reason, String message, Instant now,
            Decisions out) {
        boolean heldSlot = job.phase().holdsSlot();
        if (job.phase() != Phase.ABORTING) { // an aborting job's deletion is already confirmed
            job.k8sJobName().ifPresent(name -> out.send(new ExecutorCommand.EnsureJobDeleted(meta(now), job.id(),
                    target(clusters.get(job.clusterId().orElseThrow())), name)));
        }
        ScheduledJob done = job.withPhase(Phase.DONE);
        store(done, out);
        publishEnd(done, status, reason, message, now, out);
        Optional<NodePool> pool = job.nodePoolName()
                .flatMap(name -> job.clusterId().map(c -> new NodePool.PoolKey(c, name)))
                .map(pools::get)
                .filter(p -> p.heldBy().filter(job.id()::equals).isPresent());
        job.queue().ifPresent(key -> {
            if (heldSlot) {
                queue(key).releaseSlot(job.id());
            }
        });
        if (pool.filter(p -> p.state() == NodePool.State.READY).isPresent()) {
            releasePool(pool.get().with(NodePool.State.READY, Optional.empty()), now, out);
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
     * is deleted.
     */
    private void releasePool(NodePool idle, Instant now, Decisions out) {
        storePool(idle, out);
        QueueKey key = new QueueKey(idle.clusterId(), idle.topology());
        Optional<ScheduledJob> provisioning = queue(key).slotHolder().map(jobs::get)
                .filter(job -> job.phase() == Phase.PROVISIONING);
        if (provisioning.isPresent()) {
            ScheduledJob job = provisioning.get();
            job.nodePoolName().map(name -> pools.get(new NodePool.PoolKey(key.clusterId(), name)))
                    .ifPresent(own -> deletePool(own, now, out));
            storePool(idle.with(NodePool.State.READY, Optional.of(job.id())), out);
            ScheduledJob dispatching = job.withPhase(Phase.DISPATCHING).withSupplyMode(idle.supplyMode())
                    .withNodePool(idle.name()).withWakeAt(Optional.empty())
                    .withK8sJob(ResourceNames.k8sJob(job.id()), Optional.empty(), Optional.empty());
            out.send(ensureJob(dispatching, clusters.get(key.clusterId()), now));
            publish(dispatching, Status.Pending, Optional.of(Reason.Dispatching), Messages.reusedPool(idle.name()),
                    now, out);
            return;
        }
        startNext(key, now, out);
        NodePool after = pools.get(idle.key());
        if (after != null && after.heldBy().isEmpty()) {
            deletePool(after, now, out);
        }
    }

    private void deletePool(NodePool pool, Instant now, Decisions out) {
        storePool(pool.with(NodePool.State.DELETING, Optional.empty()), out);
        ClusterRow cluster = clusters.get(pool.clusterId());
        if (cluster != null) {
            out.send(new ExecutorCommand.EnsureNodePoolDeleted(meta(now), pool.heldBy().orElse(""), target(cluster),
                    pool.name()));
        }
    }

    // ---- timers ----

    private void scheduleTimers(ScheduledJob job) {
        if (job.phase() == Phase.DONE) {
            return;
        }
        job.executionDeadline().ifPresent(at -> timers.add(new Timer(at, job.id())));
        job.wakeAt().ifPresent(at -> timers.add(new Timer(at, job.id())));
    }

    private void onTimer(ScheduledJob job, Instant now, Decisions out) {
        boolean executing = job.phase() == Phase.RUNNING || job.phase() == Phase.DISPATCHING;
        if (executing && job.executionDeadline().filter(at -> !at.isAfter(now)).isPresent()) {
            end(job, Status.Failed, Optional.of(Reason.Timeout),
                    Messages.timeout(job.request().timeoutSeconds().orElse(0L)), now, out);
            return;
        }
        if (job.wakeAt().filter(at -> !at.isAfter(now)).isEmpty()) {
            return;
        }
        ScheduledJob awake = job.withWakeAt(Optional.empty());
        store(awake, out);
        if (awake.phase() == Phase.ABORTING) {
            awake.k8sJobName().ifPresent(name -> out.send(new ExecutorCommand.EnsureJobDeleted(meta(now), job.id(),
                    target(clusters.get(job.clusterId().orElseThrow())), name)));
            wake(awake, now.plus(settings.abortRetry()), out);
        } else if (awake.phase() == Phase.PROVISIONING && awake.reason().filter(Reason.ClusterBusy::equals).isPresent()) {
            askForPoolAgain(awake, now, out);
        } else if (awake.phase() == Phase.PROVISIONING && awake.reason().filter(Reason.Provisioning::equals).isPresent()) {
            end(awake, Status.Failed, Optional.of(Reason.NodePoolTimeout), Messages.nodePoolTimeout(
                    "no answer from the executor within " + Messages.duration(settings.provisioningBackstop())),
                    now, out);
        }
    }

    private void wake(ScheduledJob job, Instant at, Decisions out) {
        ScheduledJob updated = job.withWakeAt(Optional.of(at));
        store(updated, out);
        timers.add(new Timer(at, job.id()));
    }

    /** Retries a pool creation that was short of reservation capacity; the status stays ClusterBusy meanwhile. */
    private void askForPoolAgain(ScheduledJob job, Instant now, Decisions out) {
        ClusterRow cluster = clusters.get(job.clusterId().orElseThrow());
        QueueKey key = job.queue().orElseThrow();
        SupplyDecision supply = SupplyDecision.decide(job.request().supplyMode(), cluster);
        String poolName = job.nodePoolName().orElseThrow();
        storePool(new NodePool(key.clusterId(), poolName, key.topology(), supply.mode(), NodePool.State.CREATING,
                Optional.of(job.id())), out);
        out.send(new ExecutorCommand.EnsureNodePool(meta(now), job.id(), target(cluster), poolName,
                job.request().tpuType().wireName(), key.topology(), supply.mode(), supply.reservation()));
        wake(job, now.plus(settings.reservationRetry()), out);
    }

    // ---- helpers ----

    private Optional<NodePool> idlePool(String clusterId, String topology) {
        return pools.values().stream()
                .filter(p -> p.clusterId().equals(clusterId) && p.topology().equals(topology))
                .filter(p -> p.state() == NodePool.State.READY && p.heldBy().isEmpty())
                .min(Comparator.comparing(NodePool::name));
    }

    private boolean clusterActive(String clusterId) {
        ClusterRow cluster = clusters.get(clusterId);
        return cluster != null && cluster.isActive();
    }

    private Optional<ScheduledJob> activeJob(String jobId, Phase phase) {
        return Optional.ofNullable(jobs.get(jobId)).filter(job -> job.phase() == phase);
    }

    private Optional<ScheduledJob> runningOrDispatching(String jobId) {
        return Optional.ofNullable(jobs.get(jobId))
                .filter(job -> job.phase() == Phase.RUNNING || job.phase() == Phase.DISPATCHING);
    }

    private WaitQueue queue(QueueKey key) {
        return queues.computeIfAbsent(key, k -> new WaitQueue());
    }

    private static WaitQueue.Entry entry(ScheduledJob job) {
        return new WaitQueue.Entry(job.seq(), job.id(), job.actor(), job.request().name());
    }

    private ExecutorCommand.EnsureJob ensureJob(ScheduledJob job, ClusterRow cluster, Instant now) {
        return new ExecutorCommand.EnsureJob(meta(now), job.id(), target(cluster), job.nodePoolName().orElseThrow(),
                ResourceNames.k8sJob(job.id()), job.request().tpuType().wireName(), job.request().topology().text(),
                job.request().spec());
    }

    private static ClusterTarget target(ClusterRow cluster) {
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
