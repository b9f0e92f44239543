package io.falcon.scheduler.core;

import io.falcon.events.Meta;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The tables one {@link Scheduler} decides over, and the small reads and writes every step makes on them. Every write
 * of a job, pool or status goes through here, so that each one is also recorded in the step's {@link Decisions} for
 * the shell to persist and publish.
 */
final class SchedulerState {
    final SchedulerSettings settings;
    /** The operator's retry switch last read (falcon.scheduler.controls); it wins over retry.enabled. */
    java.util.Optional<io.falcon.events.control.RetrySwitch> retrySwitch = java.util.Optional.empty();

    final Map<String, ClusterRow> clusters = new HashMap<>();
    /** Whether failed attempts may run again now: the operator's switch, else the setting. */
    boolean retriesOn() {
        return retrySwitch
                .map(io.falcon.events.control.RetrySwitch::enabled)
                .orElse(settings.retries().enabled());
    }

    /** The live jobs: a job that finished moves to {@link #retired} at the end of the step that ended it. */
    final Map<String, ScheduledJob> jobs = new HashMap<>();

    final RetiredJobs retired;
    /** Per cluster, how many jobs are RUNNING: kept as jobs change, so that gauges never scan the jobs. */
    private final Map<String, Integer> running = new HashMap<>();
    /** Live jobs (submitted, not ended) per actor: what the per-actor cap counts. */
    private final Map<String, Integer> liveByActor = new HashMap<>();
    /**
     * Per cluster, the RUNNING jobs' ids, kept with the counts: a holder short of reservation capacity waits for one
     * of them to end, and its estimate reads them without scanning every job.
     */
    private final Map<String, Set<String>> runningJobs = new HashMap<>();

    final Map<QueueKey, WaitQueue> queues = new HashMap<>();
    /** Written only through {@link #putPool} and {@link #removePool}, which keep {@link #poolsByQueue}. */
    final Map<NodePool.PoolKey, NodePool> pools = new HashMap<>();
    /**
     * The pools of each (cluster, topology) that are not being deleted: a job looking for a free pool reads its
     * queue's few, not every pool of the task (those awaiting their deletion's confirmation included), which made
     * each slot grant O(pools).
     */
    private final Map<QueueKey, Set<NodePool.PoolKey>> poolsByQueue = new HashMap<>();

    final Map<JobDeletion.Key, JobDeletion> deletions = new HashMap<>();
    /** What each queue and supply mode did before: the start-time estimates' history (changelogged). */
    final Map<HistoryKey, QueueHistory> histories = new HashMap<>();

    /**
     * When the last jobs entered each queue (placed there, not moved), newest last, at most {@link #ARRIVALS_KEPT}
     * per queue. Kept in memory only: what it decides is how long an idle pool lingers (PoolLifecycle), and after a
     * restart a pool simply lingers no longer than the settings say until the queue has arrivals again.
     */
    private final Map<QueueKey, java.util.ArrayDeque<Instant>> arrivals = new HashMap<>();

    static final int ARRIVALS_KEPT = 16;

    void noteArrival(QueueKey key, Instant at) {
        java.util.ArrayDeque<Instant> kept = arrivals.computeIfAbsent(key, k -> new java.util.ArrayDeque<>());
        kept.addLast(at);
        while (kept.size() > ARRIVALS_KEPT) {
            kept.removeFirst();
        }
    }

    /** The median time between the queue's recent arrivals; empty with fewer than 4 of them. */
    Optional<java.time.Duration> typicalArrivalGap(QueueKey key) {
        java.util.ArrayDeque<Instant> kept = arrivals.get(key);
        if (kept == null || kept.size() < 4) {
            return Optional.empty();
        }
        java.util.List<Long> gaps = new java.util.ArrayList<>();
        Instant previous = null;
        for (Instant at : kept) {
            if (previous != null) {
                gaps.add(Math.max(0, java.time.Duration.between(previous, at).toMillis()));
            }
            previous = at;
        }
        java.util.Collections.sort(gaps);
        return Optional.of(java.time.Duration.ofMillis(gaps.get(gaps.size() / 2)));
    }
    /** Which clusters keep refusing work, from the executor's outcomes: cluster choice avoids them (not persisted). */
    final ClusterHealth health;
    /** How far the executor has reported each cluster: deadlines wait for it (not persisted). */
    final Observations observations = new Observations();
    /** Valid jobs that no active cluster offers their TPU type to yet, in the order they were parked. */
    final Set<String> unplaced = new LinkedHashSet<>();

    SchedulerState(SchedulerSettings settings, RetiredJobs retired) {
        this.settings = settings;
        this.health = new ClusterHealth(settings.messageZone());
        this.retired = retired;
    }

    // ---- reads ----

    /** Live, or finished within the retention: a submission of such an id is a duplicate. */
    boolean known(String jobId, Instant now) {
        return jobs.containsKey(jobId)
                || retired.find(jobId, now, settings.terminalRetention()).isPresent();
    }

    /** A live job, or a finished one still retained. */
    Optional<ScheduledJob> liveOrRetired(String jobId) {
        return Optional.ofNullable(jobs.get(jobId)).or(() -> retired.get(jobId));
    }

    Map<String, Integer> runningPerCluster() {
        return Map.copyOf(running);
    }

    WaitQueue queue(QueueKey key) {
        return queues.computeIfAbsent(key, k -> new WaitQueue());
    }

    /** The job's place in its queue: its rank depends on the aging interval, so queues are built through here. */
    WaitQueue.Entry entry(ScheduledJob job) {
        return WaitQueue.Entry.of(
                job.seq(),
                job.request().commitOrder(),
                job.request().priority(),
                settings.priorityAging().toMillis(),
                job.id(),
                job.actor(),
                job.request().name());
    }

    /** Waiting plus acquiring jobs of the queue: what cluster choice compares. */
    int queueDepth(QueueKey key) {
        WaitQueue queue = queues.get(key);
        return queue == null ? 0 : queue.size() + queue.slotsHeld();
    }

    boolean clusterActive(String clusterId) {
        ClusterRow cluster = clusters.get(clusterId);
        return cluster != null && cluster.isActive();
    }

    /** A READY pool of the cluster (as its row is now) and topology that nobody holds and that suits the job. */
    Optional<NodePool> idlePool(ClusterRow cluster, String topology, ScheduledJob job) {
        return freePool(cluster, topology, job, NodePool.State.READY);
    }

    /** A pool still being created whose creator was aborted, that suits the job. */
    Optional<NodePool> handedOverPool(ClusterRow cluster, QueueKey key, ScheduledJob job) {
        return freePool(cluster, key.topology(), job, NodePool.State.CREATING);
    }

    private Optional<NodePool> freePool(ClusterRow cluster, String topology, ScheduledJob job, NodePool.State state) {
        ClusterTarget here = target(cluster);
        return poolsByQueue.getOrDefault(new QueueKey(cluster.id(), topology), Set.of()).stream()
                .map(pools::get)
                .filter(p -> p.state() == state && p.heldBy().isEmpty())
                .filter(p -> p.target().sameCluster(here))
                .filter(p -> p.suits(job))
                .min(Comparator.comparing(NodePool::name));
    }

    /** A running job's Message, with a note while its cluster is not active. */
    String runningMessage(String running, String clusterId) {
        ClusterRow cluster = clusters.get(clusterId);
        return cluster == null || cluster.isActive()
                ? running
                : Messages.runningOnInactiveCluster(running, cluster.name(), cluster.status());
    }

    /**
     * Where the job's Kubernetes Job is to be created: its cluster as the row is now when the row still names the
     * GKE cluster the job was placed on (an edit of the bucket or service account applies to the jobs dispatched
     * after it), else where it was placed.
     */
    ClusterTarget currentTarget(ScheduledJob job) {
        ClusterTarget placed = job.target().orElseThrow();
        return Optional.ofNullable(clusters.get(placed.clusterId()))
                .map(SchedulerState::target)
                .filter(placed::sameCluster)
                .orElse(placed);
    }

    static ClusterTarget target(ClusterRow cluster) {
        return cluster.target();
    }

    // ---- commands ----

    /** The job's supply mode is reservation and its cluster's row names no default_reservation (any more). */
    boolean reservationGone(ScheduledJob job) {
        return job.supplyMode().filter(SupplyMode.RESERVATION::equals).isPresent()
                && job.target()
                        .map(t -> clusters.get(t.clusterId()))
                        .flatMap(ClusterRow::defaultReservation)
                        .filter(r -> !r.isBlank())
                        .isEmpty();
    }

    ExecutorCommand.EnsureNodePool ensurePool(ScheduledJob job, Instant now) {
        ClusterTarget target = job.target().orElseThrow();
        Optional<String> reservation = job.supplyMode()
                .filter(SupplyMode.RESERVATION::equals)
                .flatMap(m -> Optional.ofNullable(clusters.get(target.clusterId())))
                .flatMap(ClusterRow::defaultReservation)
                .filter(r -> !r.isBlank());
        return new ExecutorCommand.EnsureNodePool(
                meta(now),
                job.id(),
                target,
                job.nodePoolName().orElseThrow(),
                job.request().tpuType().wireName(),
                job.request().topology().text(),
                job.supplyMode().orElse(SupplyMode.FLEX_START),
                reservation);
    }

    ExecutorCommand.EnsureJob ensureJob(ScheduledJob job, Instant now) {
        return new ExecutorCommand.EnsureJob(
                meta(now),
                job.id(),
                job.target().orElseThrow(),
                job.nodePoolName().orElseThrow(),
                job.k8sJobName().orElse(settings.k8sJobName(job)),
                job.request().tpuType().wireName(),
                job.request().topology().text(),
                job.request().spec(),
                // a Job seen created is only looked at: one deleted by someone else is not created again
                job.jobUid(),
                // whose Secrets its spec may reference, and (falcon.executor.job.identity=actor) who its pods are
                java.util.Optional.of(job.request().actor()));
    }

    ExecutorCommand.EnsureJobDeleted ensureJobDeleted(ScheduledJob job, ClusterTarget target, Instant now) {
        return new ExecutorCommand.EnsureJobDeleted(
                meta(now), job.id(), target, job.k8sJobName().orElse(settings.k8sJobName(job)));
    }

    static Meta meta(Instant now) {
        return Meta.of(Scheduler.PRODUCER, now);
    }

    // ---- writes ----

    void store(ScheduledJob job, Decisions out) {
        put(job);
        out.jobChanged(job.id());
    }

    void putPool(NodePool pool) {
        NodePool previous = pools.put(pool.key(), pool);
        if (previous != null) {
            unindex(previous);
        }
        if (pool.state() != NodePool.State.DELETING) {
            poolsByQueue
                    .computeIfAbsent(new QueueKey(pool.clusterId(), pool.topology()), k -> new HashSet<>())
                    .add(pool.key());
        }
    }

    void removePool(NodePool.PoolKey key) {
        NodePool previous = pools.remove(key);
        if (previous != null) {
            unindex(previous);
        }
    }

    private void unindex(NodePool pool) {
        QueueKey queue = new QueueKey(pool.clusterId(), pool.topology());
        Set<NodePool.PoolKey> keys = poolsByQueue.get(queue);
        if (keys != null && keys.remove(pool.key()) && keys.isEmpty()) {
            poolsByQueue.remove(queue);
        }
    }

    /** Every write of a job goes through here, to keep the running counts and the live jobs per actor. */
    void put(ScheduledJob job) {
        ScheduledJob before = jobs.put(job.id(), job);
        count(before, -1);
        count(job, 1);
        if (before == null) {
            liveByActor.merge(job.actor(), 1, Integer::sum);
        }
    }

    /**
     * Why one more live job of this actor is refused (Failed/TooManyJobs), if it is: its actor, or Falcon as a whole,
     * already has as many live jobs as {@link Admission} allows.
     */
    Optional<String> overLiveJobCap(String actor) {
        Admission admission = settings.admission();
        int own = liveByActor.getOrDefault(actor, 0);
        if (own >= admission.maxLiveJobsPerActor()) {
            return Optional.of(Messages.tooManyJobsOfActor(actor, own));
        }
        if (jobs.size() >= admission.maxLiveJobs()) {
            return Optional.of(Messages.tooManyJobs(jobs.size()));
        }
        return Optional.empty();
    }

    private void count(ScheduledJob job, int delta) {
        if (job != null && job.phase() == Phase.RUNNING) {
            job.clusterId().ifPresent(c -> {
                running.merge(c, delta, (a, b) -> a + b == 0 ? null : a + b);
                if (delta > 0) {
                    runningJobs.computeIfAbsent(c, k -> new HashSet<>()).add(job.id());
                } else {
                    Set<String> ids = runningJobs.get(c);
                    if (ids != null && ids.remove(job.id()) && ids.isEmpty()) {
                        runningJobs.remove(c);
                    }
                }
            });
        }
    }

    /** The RUNNING jobs of a cluster. */
    Set<String> runningOn(String clusterId) {
        return runningJobs.getOrDefault(clusterId, Set.of());
    }

    /**
     * The last step of every input: the jobs it finished leave memory for the retired store, and their timers are
     * dropped. Their store entries are deleted by the shell (the job reads as absent from the live table).
     */
    void retireFinished(Timers timers, Decisions out) {
        for (String jobId : out.changedJobs()) {
            ScheduledJob job = jobs.get(jobId);
            if (job != null && job.phase() == Phase.DONE) {
                count(jobs.remove(jobId), -1);
                liveByActor.computeIfPresent(job.actor(), (a, n) -> n <= 1 ? null : n - 1);
                timers.disarm(jobId);
                observations.forget(jobId);
                ScheduledJob kept = job.retiredForm();
                retired.put(kept);
                out.retired(kept);
                out.record(Ledger.ended(job, job.phaseSince().orElse(Instant.EPOCH)));
            }
        }
    }

    /** The job's pods run: how long it held its queue's slot is one more sample of its queue and supply mode. */
    void recordAcquire(ScheduledJob job, Instant now, Decisions out) {
        if (job.slotTakenAt().isPresent()
                && job.clusterId().isPresent()
                && job.supplyMode().isPresent()) {
            long held = java.time.Duration.between(job.slotTakenAt().get(), now).toMillis();
            record(historyKey(job), h -> h.withAcquire(held), out);
        }
    }

    /** The job's Kubernetes Job ended by itself: how long it ran. */
    void recordRun(ScheduledJob job, Instant now, Decisions out) {
        if (job.dispatchedAt().isPresent()
                && job.clusterId().isPresent()
                && job.supplyMode().isPresent()) {
            long ran = java.time.Duration.between(job.dispatchedAt().get(), now).toMillis();
            record(historyKey(job), h -> h.withRun(ran), out);
        }
    }

    private static HistoryKey historyKey(ScheduledJob job) {
        return new HistoryKey(
                job.clusterId().orElseThrow(),
                job.request().topology().text(),
                job.supplyMode().orElseThrow());
    }

    private void record(HistoryKey key, java.util.function.UnaryOperator<QueueHistory> change, Decisions out) {
        histories.put(key, change.apply(histories.getOrDefault(key, QueueHistory.empty())));
        out.historyChanged(key);
    }

    void storePool(NodePool pool, Decisions out) {
        putPool(pool);
        out.poolChanged(pool.key());
    }

    /** Stores the job with its next status and publishes that status. */
    void publish(ScheduledJob job, Status status, Optional<Reason> reason, String message, Instant now, Decisions out) {
        ScheduledJob updated = job.withStatus(status, reason, noted(job, message));
        store(updated, out);
        out.publish(statusOf(updated, now, Optional.empty(), Optional.empty()));
    }

    /** Like {@link #publish}, for the final status: finished_at (and aborted_at) are set. */
    void publishEnd(
            ScheduledJob job, Status status, Optional<Reason> reason, String message, Instant now, Decisions out) {
        ScheduledJob updated = job.withStatus(status, reason, noted(job, message));
        store(updated, out);
        out.publish(statusOf(
                updated, now, Optional.of(now), status == Status.Aborted ? Optional.of(now) : Optional.empty()));
    }

    /**
     * Whether the Kubernetes Job the job last had (a retrying job's ended attempt) is still to be confirmed deleted: at
     * most one attempt's Job lives at a time.
     */
    boolean lastJobDeletionPending(ScheduledJob job) {
        return job.k8sJobName()
                .flatMap(name -> job.target().map(t -> new JobDeletion.Key(t.clusterId(), name)))
                .filter(deletions::containsKey)
                .isPresent();
    }

    /** The Message as published: with the job's notes ({@link ScheduledJob#shown}). */
    private static String noted(ScheduledJob job, String message) {
        return job.shown(message);
    }

    /**
     * A finished job's final status again with its Message amended, a newer version, the same finished_at: the job
     * stays in the retired store (not back in the live table, which would end it a second time: a second ENDED
     * decision and run-time sample).
     */
    void republishEnd(ScheduledJob done, String message, Instant now, Decisions out) {
        ScheduledJob amended = done.withStatus(done.status(), done.reason(), message);
        retired.put(amended);
        out.publish(endStatusOf(amended, now));
    }

    /** The final status of a retired job again (its Message amended), with the time it ended. */
    static TaskStatus endStatusOf(ScheduledJob done, Instant now) {
        Optional<Instant> ended = done.phaseSince();
        return statusOf(done, now, ended, done.status() == Status.Aborted ? ended : Optional.empty());
    }

    private static TaskStatus statusOf(
            ScheduledJob job, Instant now, Optional<Instant> finishedAt, Optional<Instant> abortedAt) {
        return new TaskStatus(
                meta(now),
                job.id(),
                job.version(),
                job.status(),
                job.reason(),
                job.message(),
                job.clusterId(),
                job.nodePoolName(),
                job.k8sJobName(),
                job.jobUid(),
                job.dispatchedAt(),
                finishedAt,
                abortedAt,
                job.phase() == Phase.WAITING ? job.startEstimate() : Optional.empty(),
                job.retries() + 1);
    }
}
