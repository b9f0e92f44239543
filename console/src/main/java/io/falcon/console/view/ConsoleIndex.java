package io.falcon.console.view;

import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.decision.Decision;
import io.falcon.events.decision.Explanation;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What the console knows from Falcon's topics, in bounded memory, so that a page is a few lookups: per job its last
 * transitions, decisions and fault verdicts (the least recently updated jobs are forgotten first), the node pools
 * the ledger told of (as many as jobs), each cluster's queue history (a ring per cluster) and the isolated devices of
 * the whole fleet (one entry per node with isolated devices: the compacted falcon.isolation). Events may come twice
 * or out of order: a transition is kept once per version and in version order, a decision once per event id.
 * Thread-safe: one reader thread writes, request threads read.
 */
public final class ConsoleIndex {
    /** Samples kept per cluster for its queue-history chart. */
    public static final int SAMPLES_PER_CLUSTER = 512;
    /** Refusals kept per cluster: the scheduler avoids a cluster after three in a row. */
    static final int REFUSALS_PER_CLUSTER = 8;
    /** Reservations whose latest read is kept per cluster (normally one: the cluster's default reservation). */
    static final int RESERVATIONS_PER_CLUSTER = 4;

    static final int CLUSTERS_TRACKED = 1024;
    /** A position the scheduler gives as a lower bound ("队列位置 #1001 之后"): not a place in the pick order. */
    private static final java.util.regex.Pattern BEYOND = java.util.regex.Pattern.compile("#\\d+ 之后");

    private final int jobsTracked;
    private final int eventsPerJob;
    private final Map<String, Tracked> jobs;
    private final Map<String, Pool> pools;
    private final Map<String, NodeIsolation> isolations = new TreeMap<>();
    private final Map<String, Deque<QueueSample>> samples = new TreeMap<>();
    private final Map<String, String> capacityNotes = new TreeMap<>();
    private final PickOrder pickOrder;
    /** Per cluster, bounded like the jobs (a cluster id no row names can come only from a damaged topic). */
    private final Map<String, Health> health;

    private volatile Consumer<Change> listener = change -> {};

    public ConsoleIndex(int jobsTracked, int eventsPerJob) {
        this(jobsTracked, eventsPerJob, Math.toIntExact(SchedulerKeys.POSITION_UPDATES.defaultValue()));
    }

    /**
     * @param pickOrderPerQueue how many waiting jobs per queue are held in pick order (the smallest positions): the
     *     scheduler's falcon.scheduler.position-updates, the positions it keeps exact
     */
    public ConsoleIndex(int jobsTracked, int eventsPerJob, int pickOrderPerQueue) {
        this.pickOrder = new PickOrder(pickOrderPerQueue);
        this.jobsTracked = jobsTracked;
        this.eventsPerJob = eventsPerJob;
        this.jobs = lru(jobsTracked);
        this.pools = lru(jobsTracked);
        this.health = lru(CLUSTERS_TRACKED);
    }

    private static <V> Map<String, V> lru(int cap) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > cap;
            }
        };
    }

    /** Who hears of every change (the live updates); one listener. */
    public void onChange(Consumer<Change> newListener) {
        this.listener = newListener;
    }

    private static final class Tracked {
        final Deque<Transition> transitions = new ArrayDeque<>();
        final Deque<Decision> decisions = new ArrayDeque<>();
        final Deque<FaultVerdict> faults = new ArrayDeque<>();
        Optional<String> topology = Optional.empty();
        Optional<Instant> waitingSince = Optional.empty();
    }

    private static final class Pool {
        final String name;
        final String clusterId;
        String topology;
        String supplyMode;
        final Instant createdAt;
        Optional<Instant> deletedAt = Optional.empty();
        final List<String> holders = new ArrayList<>();

        Pool(String name, String clusterId, String topology, String supplyMode, Instant createdAt) {
            this.name = name;
            this.clusterId = clusterId;
            this.topology = topology;
            this.supplyMode = supplyMode;
            this.createdAt = createdAt;
        }

        PoolSpan span() {
            return new PoolSpan(name, clusterId, topology, supplyMode, createdAt, deletedAt, holders);
        }
    }

    private static final class Health {
        /** The latest read of each reservation, by name, the least recently read first. */
        final LinkedHashMap<String, ClusterFacts.ReservationRead> reads = new LinkedHashMap<>();

        Optional<ClusterFacts.Shortage> shortage = Optional.empty();
        /** The last refusals by event id (a record read twice is one refusal), oldest first. */
        final LinkedHashMap<String, ClusterFacts.Refusal> refusals = new LinkedHashMap<>();

        Optional<Instant> lastSuccess = Optional.empty();
        Optional<ClusterFacts.Weighed> weighed = Optional.empty();

        ClusterFacts facts() {
            List<ClusterFacts.Refusal> since = refusals.values().stream()
                    .filter(r -> lastSuccess.filter(s -> !r.at().isAfter(s)).isEmpty())
                    .sorted(java.util.Comparator.comparing(ClusterFacts.Refusal::at))
                    .toList();
            return new ClusterFacts(List.copyOf(reads.values()), shortage, since, lastSuccess, weighed);
        }
    }

    private Health health(String clusterId) {
        return health.computeIfAbsent(clusterId, c -> new Health());
    }

    /**
     * A falcon.executor.events record: a reservation read or short, work refused (a pool GKE refused or failed, a Job refused
     * for good, the cluster gone) or work through (a pool accepted or ready, a Job submitted or running). Kept by the
     * time it happened, so that order does not matter.
     */
    public void accept(ExecutorEvent event) {
        if (event.clusterId() == null || event.clusterId().isBlank()) {
            return; // heartbeats
        }
        Instant at = event.meta().occurredAt();
        Optional<String> refused = Optional.empty();
        if (event instanceof ExecutorEvent.NodePoolCreateFailed f) {
            refused = Optional.of("node pool " + f.nodePoolName() + " failed: " + f.message());
        } else if (event instanceof ExecutorEvent.JobSubmitFailed f && !f.retryable()) {
            refused = Optional.of("Job " + f.k8sJobName() + " refused: " + f.message());
        } else if (event instanceof ExecutorEvent.ClusterGone g) {
            refused = Optional.of("cluster gone: " + g.message());
        }
        boolean through = event instanceof ExecutorEvent.NodePoolCreating
                || event instanceof ExecutorEvent.NodePoolReady
                || event instanceof ExecutorEvent.JobSubmitted
                || event instanceof ExecutorEvent.JobRunning;
        boolean changed = false;
        synchronized (this) {
            if (event instanceof ExecutorEvent.ReservationSeen r) {
                Health h = health(r.clusterId());
                ClusterFacts.ReservationRead known = h.reads.get(r.reservation());
                if (known == null || known.at().isBefore(at)) {
                    h.reads.remove(r.reservation());
                    h.reads.put(
                            r.reservation(),
                            new ClusterFacts.ReservationRead(r.reservation(), r.count(), r.inUse(), at));
                    while (h.reads.size() > RESERVATIONS_PER_CLUSTER) {
                        h.reads.remove(h.reads.keySet().iterator().next());
                    }
                    changed = true;
                }
            } else if (event instanceof ExecutorEvent.ReservationShort s) {
                Health h = health(s.clusterId());
                if (h.shortage.filter(known -> !known.at().isBefore(at)).isEmpty()) {
                    h.shortage = Optional.of(
                            new ClusterFacts.Shortage(s.reservation(), s.remainingSlices(), s.neededSlices(), at));
                    changed = true;
                }
            } else if (refused.isPresent()) {
                Health h = health(event.clusterId());
                if (h.refusals.putIfAbsent(event.meta().eventId(), new ClusterFacts.Refusal(at, refused.get()))
                        == null) {
                    while (h.refusals.size() > REFUSALS_PER_CLUSTER) {
                        h.refusals.remove(h.refusals.keySet().iterator().next());
                    }
                    changed = true;
                }
            } else if (through) {
                Health h = health(event.clusterId());
                if (h.lastSuccess.filter(known -> !known.isBefore(at)).isEmpty()) {
                    boolean wasRefusing = !h.facts().refusalsSinceLastSuccess().isEmpty();
                    h.lastSuccess = Optional.of(at);
                    changed = wasRefusing;
                }
            }
        }
        if (changed) {
            listener.accept(new Change(Optional.empty(), Optional.of(event.clusterId()), true));
        }
    }

    /** What the topics told of the cluster's reservation and health ({@link ClusterFacts#NONE} if nothing yet). */
    public synchronized ClusterFacts clusterFacts(String clusterId) {
        Health h = health.get(clusterId);
        return h == null ? ClusterFacts.NONE : h.facts();
    }

    private Tracked tracked(String jobId) {
        return jobs.computeIfAbsent(jobId, id -> new Tracked());
    }

    private <T> void capped(Deque<T> deque, T value) {
        deque.addLast(value);
        while (deque.size() > eventsPerJob) {
            deque.removeFirst();
        }
    }

    public void accept(TaskStatus status) {
        Transition t = Transition.of(status);
        Optional<String> cluster;
        synchronized (this) {
            Tracked job = tracked(status.jobId());
            if (job.transitions.stream().anyMatch(known -> known.version() == t.version())) {
                return;
            }
            List<Transition> ordered = new ArrayList<>(job.transitions);
            ordered.add(t);
            ordered.sort(java.util.Comparator.comparingLong(Transition::version));
            job.transitions.clear();
            ordered.forEach(o -> capped(job.transitions, o));
            if (t.waiting() && job.waitingSince.isEmpty()) {
                job.waitingSince = Optional.of(t.at());
            }
            if (t.status().equals("Running")
                    && job.waitingSince.isPresent()
                    && t.clusterId().isPresent()) {
                sample(
                        t.clusterId().get(),
                        new QueueSample(
                                t.at(), job.topology.orElse(""), -1, Duration.between(job.waitingSince.get(), t.at())));
                job.waitingSince = Optional.empty();
            }
            t.nodePoolName()
                    .ifPresent(name -> t.clusterId().ifPresent(c -> {
                        Pool pool = pools.get(c + "/" + name);
                        if (pool != null && !pool.holders.contains(status.jobId())) {
                            pool.holders.add(status.jobId());
                        }
                    }));
            cluster = job.transitions.getLast().clusterId();
            reposition(status.jobId(), job);
        }
        listener.accept(new Change(Optional.of(status.jobId()), cluster, false));
    }

    public void accept(Decision decision) {
        Instant at = decision.meta().occurredAt();
        synchronized (this) {
            Tracked job = tracked(decision.jobId());
            if (job.decisions.stream()
                    .anyMatch(d -> d.meta().eventId().equals(decision.meta().eventId()))) {
                return;
            }
            capped(job.decisions, decision);
            decision.topology().ifPresent(topology -> job.topology = Optional.of(topology));
            reposition(decision.jobId(), job);
            for (Decision.Candidate candidate : decision.candidates()) {
                Health h = health(candidate.clusterId());
                if (h.weighed.filter(known -> known.at().isAfter(at)).isEmpty()) {
                    h.weighed = Optional.of(
                            new ClusterFacts.Weighed(candidate.outcome().name(), candidate.why(), at));
                }
            }
            switch (decision.kind()) {
                case CLUSTER_CHOSEN, REROUTED ->
                    decision.candidates().stream()
                            .filter(c -> c.outcome() == Decision.Outcome.CHOSEN)
                            .findFirst()
                            .ifPresent(c -> sample(
                                    c.clusterId(),
                                    new QueueSample(
                                            at, decision.topology().orElse(""), c.queueDepth(), Duration.ZERO)));
                case POOL_CREATED, POOL_REUSED, POOL_TAKEN_OVER ->
                    decision.nodePoolName()
                            .ifPresent(name -> decision.clusterId().ifPresent(c -> {
                                Pool pool = pools.computeIfAbsent(
                                        c + "/" + name,
                                        k -> new Pool(
                                                name, c, decision.topology().orElse(""), supply(decision), at));
                                if (decision.kind() == Decision.Kind.POOL_CREATED) {
                                    pool.supplyMode = supply(decision);
                                }
                                if (!pool.holders.contains(decision.jobId())) {
                                    pool.holders.add(decision.jobId());
                                }
                            }));
                case POOL_DELETED ->
                    decision.nodePoolName()
                            .ifPresent(name -> decision.clusterId().ifPresent(c -> {
                                Pool pool = pools.get(c + "/" + name);
                                if (pool != null && pool.deletedAt.isEmpty()) {
                                    pool.deletedAt = Optional.of(at);
                                }
                            }));
                case CAPACITY_SHORT ->
                    decision.clusterId().ifPresent(c -> capacityNotes.put(c, at + ": " + decision.summary()));
                default -> {}
            }
        }
        listener.accept(new Change(Optional.of(decision.jobId()), decision.clusterId(), isPoolDecision(decision)));
    }

    /** The job's place in its queue's pick order, from its latest status and its topology (from the ledger). */
    private void reposition(String jobId, Tracked job) {
        if (job.transitions.isEmpty()) {
            return;
        }
        Transition latest = job.transitions.getLast();
        Optional<Integer> position =
                latest.waiting() && !BEYOND.matcher(latest.message()).find()
                        ? Explanation.queuePosition(latest.message())
                        : Optional.empty();
        Optional<PickOrder.Place> place = position.flatMap(p -> latest.clusterId()
                .flatMap(c -> job.topology.map(
                        t -> new PickOrder.Place(jobId, new PickOrder.Queue(c, t), p, latest.version()))));
        pickOrder.update(jobId, latest.version(), place);
    }

    /**
     * The first {@code limit} waiting jobs of the queue in the scheduler's pick order, with the position each was told
     * (job id to position, in order).
     */
    public synchronized Map<String, Integer> pickOrder(String clusterId, String topology, int limit) {
        Map<String, Integer> out = new LinkedHashMap<>();
        pickOrder.first(new PickOrder.Queue(clusterId, topology), limit).forEach(p -> out.put(p.jobId(), p.position()));
        return out;
    }

    private static boolean isPoolDecision(Decision d) {
        return switch (d.kind()) {
            case POOL_CREATED, POOL_REUSED, POOL_TAKEN_OVER, POOL_DELETED, CAPACITY_SHORT -> true;
            default -> false;
        };
    }

    private static String supply(Decision d) {
        return d.supplyMode()
                .map(m -> m.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'))
                .orElse("unknown");
    }

    public void accept(FaultVerdict verdict) {
        if (verdict.jobId().isEmpty()) {
            return;
        }
        synchronized (this) {
            Tracked job = tracked(verdict.jobId().get());
            if (job.faults.stream()
                    .anyMatch(f -> f.meta().eventId().equals(verdict.meta().eventId()))) {
                return;
            }
            capped(job.faults, verdict);
        }
        listener.accept(new Change(verdict.jobId(), Optional.of(verdict.clusterId()), false));
    }

    /** A falcon.isolation record: the node's isolated devices, or none (a tombstone). */
    public void isolation(String clusterSlashNode, Optional<NodeIsolation> isolation) {
        String cluster;
        try {
            cluster = NodeIsolation.splitKey(clusterSlashNode)[0];
        } catch (IllegalArgumentException e) {
            return;
        }
        synchronized (this) {
            if (isolation.isEmpty() || isolation.get().total().isEmpty()) {
                isolations.remove(clusterSlashNode);
            } else {
                isolations.put(clusterSlashNode, isolation.get());
            }
        }
        listener.accept(new Change(Optional.empty(), Optional.of(cluster), true));
    }

    private void sample(String clusterId, QueueSample sample) {
        Deque<QueueSample> ring = samples.computeIfAbsent(clusterId, c -> new ArrayDeque<>());
        ring.addLast(sample);
        while (ring.size() > SAMPLES_PER_CLUSTER) {
            ring.removeFirst();
        }
    }

    /** The job's history, if the console holds it (it may have been forgotten, or never seen). */
    public synchronized Optional<JobHistory> history(String jobId) {
        Tracked job = jobs.get(jobId);
        if (job == null) {
            return Optional.empty();
        }
        return Optional.of(
                new JobHistory(List.copyOf(job.transitions), List.copyOf(job.decisions), List.copyOf(job.faults)));
    }

    /** The histories of the given jobs the console holds (for the queue and timeline pages). */
    public synchronized Map<String, JobHistory> histories(List<String> jobIds) {
        Map<String, JobHistory> out = new LinkedHashMap<>();
        for (String id : jobIds) {
            Tracked job = jobs.get(id);
            if (job != null) {
                out.put(
                        id,
                        new JobHistory(
                                List.copyOf(job.transitions), List.copyOf(job.decisions), List.copyOf(job.faults)));
            }
        }
        return out;
    }

    /** Every node pool of a cluster the console knows, oldest first. */
    public synchronized List<PoolSpan> pools(String clusterId) {
        return pools.values().stream()
                .filter(p -> p.clusterId.equals(clusterId))
                .map(Pool::span)
                .sorted(java.util.Comparator.comparing(PoolSpan::createdAt))
                .toList();
    }

    /** Isolated devices by {@code cluster/node}. */
    public synchronized Map<String, NodeIsolation> isolations() {
        return Map.copyOf(isolations);
    }

    public synchronized List<QueueSample> samples(String clusterId) {
        return List.copyOf(samples.getOrDefault(clusterId, new ArrayDeque<>()));
    }

    /** The ledger's latest word on a cluster's reservation running short, if any. */
    public synchronized Optional<String> capacityNote(String clusterId) {
        return Optional.ofNullable(capacityNotes.get(clusterId));
    }

    public synchronized int jobsHeld() {
        return jobs.size();
    }

    public int jobsTracked() {
        return jobsTracked;
    }
}
