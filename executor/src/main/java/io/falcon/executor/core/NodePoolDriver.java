package io.falcon.executor.core;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.EventSink;
import io.falcon.executor.Events;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.Mdc;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out EnsureNodePool and EnsureNodePoolDeleted over {@link GkeApi} and {@link EdgeApi}: the imperative
 * shell around {@link PoolReconciler}. A command starts (or joins) a task and takes its first step at once; {@link
 * #tick} steps every task that is due. Tasks live only in memory: after a restart the scheduler re-sends what it
 * still wants, and the reconciler carries each pool on from what GKE shows. Thread-safe: each task is stepped
 * under its own lock, so a slow RPC for one pool does not hold up the others or the command loop.
 */
public final class NodePoolDriver {
    private static final Logger log = LoggerFactory.getLogger(NodePoolDriver.class);

    private final GkeApi gke;
    private final EdgeApi edges;
    private final PoolReconciler reconciler;
    private final EventSink sink;
    private final Events events;
    private final Map<String, Slot> tasks = new ConcurrentHashMap<>();

    /** Holds a task's current value; a slot removed from the map is dead and a new one takes its key. */
    private static final class Slot {
        /** Written under the slot's lock; read without it only to skip a task that is not due. */
        volatile PoolTask task;

        boolean dead;
        /** A step of this task waits on, or runs on, the stepping threads: the next tick does not queue another. */
        final java.util.concurrent.atomic.AtomicBoolean queued = new java.util.concurrent.atomic.AtomicBoolean();

        Slot(PoolTask task) {
            this.task = task;
        }
    }

    public NodePoolDriver(GkeApi gke, EdgeApi edges, PoolReconciler reconciler, EventSink sink, Events events) {
        this.gke = gke;
        this.edges = edges;
        this.reconciler = reconciler;
        this.sink = sink;
        this.events = events;
    }

    /** Where a command's first step runs, and the time it reads; empty: on the caller's thread, at once. */
    private Optional<java.util.concurrent.Executor> firstSteps = Optional.empty();

    private java.util.function.Supplier<Instant> clock = Instant::now;

    /**
     * A command's first step (a pool's look-up and create: several GKE calls, about a second at real latencies) runs
     * on {@code steps} instead of the command's own thread, so that the command loop takes its next command at once.
     * The task is in memory before the command returns, so a deletion that follows supersedes it as before; its
     * step, like every later one, is work in memory the scheduler re-drives if this process goes.
     */
    public NodePoolDriver stepsOn(java.util.concurrent.Executor steps, java.util.function.Supplier<Instant> clock) {
        this.firstSteps = Optional.of(steps);
        this.clock = clock;
        return this;
    }

    /** Pools being created, waited for or deleted. */
    public int inFlight() {
        return tasks.size();
    }

    /**
     * A creation the scheduler wants. A creation already in flight for the pool continues (a re-sent command does
     * not hurry it past its backoff); a deletion in flight is superseded, since commands for one cluster arrive in
     * the order the scheduler sent them.
     */
    public void ensure(EnsureNodePool command, Instant now) {
        start(PoolTask.create(command), now);
    }

    public void ensureDeleted(EnsureNodePoolDeleted command, Instant now) {
        start(PoolTask.delete(command.jobId(), command.cluster(), command.nodePoolName()), now);
    }

    private void start(PoolTask wanted, Instant now) {
        while (true) {
            Slot fresh = new Slot(wanted);
            Slot slot = tasks.putIfAbsent(wanted.key(), fresh);
            if (slot == null) {
                firstStep(fresh, now);
                return;
            }
            synchronized (slot) {
                if (slot.dead) {
                    continue;
                }
                if (slot.task.kind() == wanted.kind()) {
                    slot.task = slot.task.with(b -> {
                        if (!b.jobId.equals(wanted.jobId())) {
                            // another job took the pool over (its creator was aborted): what was reported went to
                            // the other job, so the node count and GKE's word are reported again, for this one
                            b.lastNodes = Optional.empty();
                            b.lastWord = Optional.empty();
                        }
                        b.jobId = wanted.jobId();
                        b.create = wanted.create().or(() -> b.create);
                    });
                    return;
                }
                try (var ignored = mdc(wanted)) {
                    log.info(
                            "node pool {}: {} supersedes the {} in flight",
                            wanted.pool(),
                            wanted.kind(),
                            slot.task.kind());
                }
                // Keep what was learnt about the pool's visibility; the rest starts anew.
                Optional<Instant> accepted = slot.task.createAcceptedAt();
                slot.task = wanted.with(b -> b.createAcceptedAt = accepted);
            }
            firstStep(slot, now);
            return;
        }
    }

    /**
     * Something the task waits for may have happened (a node of the pool turned Ready): a creation in flight takes
     * its next step now instead of at its next attempt. A deletion, or a pool without a task, is left alone.
     */
    public void nudge(ClusterTarget cluster, String pool, Instant now) {
        Slot slot = tasks.get(PoolTask.key(cluster, pool));
        if (slot == null) {
            return;
        }
        synchronized (slot) {
            if (slot.dead
                    || slot.task.kind() != PoolTask.Kind.CREATE
                    || !slot.task.nextAttempt().isAfter(now)) {
                return;
            }
            slot.task = slot.task.with(b -> b.nextAttempt = now);
        }
        step(slot, now);
    }

    /**
     * The commands of these clusters are no longer this process's (their partition went to another executor): their
     * tasks stop and are forgotten, so that no creation stepped on here re-creates a pool the new owner deleted, and no
     * retry of a deletion races it. A step under way finishes first. Nothing is lost: the new owner starts from the
     * last committed command, and the scheduler re-sends every command it still wants.
     *
     * @return how many tasks were forgotten
     */
    public int forgetClusters(java.util.Set<String> clusterIds) {
        int forgotten = 0;
        for (Slot slot : List.copyOf(tasks.values())) {
            synchronized (slot) {
                if (slot.dead || !clusterIds.contains(slot.task.cluster().clusterId())) {
                    continue;
                }
                slot.dead = true;
                tasks.remove(slot.task.key(), slot);
                forgotten++;
                try (var ignored = mdc(slot.task)) {
                    log.info(
                            "node pool {}: {} forgotten, its command partition went to another executor",
                            slot.task.pool(),
                            slot.task.kind());
                }
            }
        }
        return forgotten;
    }

    /** Steps every task that is due, one after another on this thread. */
    public void tick(Instant now) {
        for (Slot slot : List.copyOf(tasks.values())) {
            step(slot, now);
        }
    }

    /**
     * Steps every task that is due, each on {@code steps}, so that one pool's slow GKE calls never hold up another's
     * step: at real latencies a step costs a few hundred milliseconds per call, and stepped one after another a tick
     * of many pools in flight would take longer than their creations. A task whose step is still queued or running
     * is not queued again; each step reads the time when it runs.
     */
    public void tick(java.util.function.Supplier<Instant> clock, java.util.concurrent.Executor steps) {
        Instant now = clock.get();
        for (Slot slot : List.copyOf(tasks.values())) {
            if (PoolReconciler.due(slot.task, now)) {
                enqueue(slot, clock, steps);
            }
        }
    }

    /** A command's first step: on the first-step threads if set ({@link #stepsOn}), else here and now. */
    private void firstStep(Slot slot, Instant now) {
        if (firstSteps.isEmpty()) {
            step(slot, now);
            return;
        }
        if (!enqueue(slot, clock, firstSteps.get())) {
            step(slot, now); // a step already queued may have read the task before this command changed it
        }
    }

    /** Queues the slot's step unless one is queued or running; false if it was not queued. */
    private boolean enqueue(
            Slot slot, java.util.function.Supplier<Instant> clock, java.util.concurrent.Executor steps) {
        if (!slot.queued.compareAndSet(false, true)) {
            return false;
        }
        try {
            steps.execute(() -> {
                try {
                    step(slot, clock.get());
                } finally {
                    slot.queued.set(false);
                }
            });
            return true;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            slot.queued.set(false); // shutting down
            return false;
        }
    }

    private void step(Slot slot, Instant now) {
        synchronized (slot) {
            if (slot.dead || !PoolReconciler.due(slot.task, now)) {
                return;
            }
            try (var ignored = mdc(slot.task)) {
                slot.task = run(slot.task, now);
            } catch (RuntimeException e) {
                // A bug, not an API answer (those are facts): log it and look again next time.
                log.error("node pool {} step failed", slot.task.pool(), e);
                slot.task = slot.task.with(
                        b -> b.nextAttempt = now.plus(reconciler.settings().pollInterval()));
            }
            if (slot.task.done()) {
                slot.dead = true;
                tasks.remove(slot.task.key(), slot);
            }
        }
    }

    private PoolTask run(PoolTask task, Instant now) {
        PoolReconciler.Step step = reconciler.decide(task, look(task, now), now);
        PoolTask current = step.task();
        for (PoolReconciler.Effect effect : step.effects()) {
            if (effect instanceof PoolReconciler.Effect.Emit emit) {
                report(emit.event());
            } else if (effect instanceof PoolReconciler.Effect.CreatePool) {
                PoolReconciler.Step after = reconciler.afterCreate(current, create(current, now), now);
                after.effects().forEach(e -> report(((PoolReconciler.Effect.Emit) e).event()));
                current = after.task();
            } else if (effect instanceof PoolReconciler.Effect.DeletePool) {
                PoolReconciler.Step after = reconciler.afterDelete(current, delete(current), now);
                after.effects().forEach(e -> report(((PoolReconciler.Effect.Emit) e).event()));
                current = after.task();
            }
        }
        return current;
    }

    /** The facts the reconciler needs for this task, looked up now. */
    private PoolReconciler.Facts look(PoolTask task, Instant now) {
        PoolReconciler.Lookup<GkeApi.PoolInfo> pool = lookup(() -> gke.getPool(task.cluster(), task.pool()));
        Optional<PoolReconciler.Lookup<GkeApi.OperationInfo>> operation =
                task.operation().map(op -> lookup(() -> Optional.of(gke.operation(task.cluster(), op))));
        Optional<PoolReconciler.Lookup<EdgeApi.NodeCount>> nodes = Optional.empty();
        Optional<PoolReconciler.Lookup<GkeApi.Capacity>> capacity = Optional.empty();
        if (pool instanceof PoolReconciler.Lookup.Found<GkeApi.PoolInfo> found
                && PoolReconciler.wantsNodes(task, found.value())) {
            nodes = Optional.of(lookup(() -> Optional.of(edges.nodes(task.cluster(), task.pool()))));
        } else if (pool instanceof PoolReconciler.Lookup.Missing<GkeApi.PoolInfo>
                && reconciler.wantsCapacity(task, now)) {
            String reservation = task.create().flatMap(c -> c.reservation()).orElse("");
            capacity = Optional.of(lookup(() -> Optional.of(gke.reservation(task.cluster(), reservation))));
        }
        Optional<PoolReconciler.Lookup<GkeApi.PoolOperations>> poolOperations = Optional.empty();
        if (pool instanceof PoolReconciler.Lookup.Missing<GkeApi.PoolInfo> && !task.seen()) {
            poolOperations = Optional.of(lookup(() -> Optional.of(gke.operations(task.cluster(), task.pool()))));
        }
        return new PoolReconciler.Facts(pool, operation, nodes, capacity, poolOperations);
    }

    private PoolReconciler.RpcOutcome create(PoolTask task, Instant now) {
        try {
            String op = gke.createPool(task.cluster(), task.create().orElseThrow(), now);
            log.info(
                    "node pool create requested: operation={} supply={}",
                    op,
                    task.create()
                            .map(c -> PoolReconciler.supplyMode(c).wireName())
                            .orElse(""));
            return new PoolReconciler.RpcOutcome.Accepted(op);
        } catch (ApiException e) {
            log.warn("node pool create not accepted ({}): {}", e.kind(), e.getMessage());
            return new PoolReconciler.RpcOutcome.Refused(e.kind(), e.getMessage());
        }
    }

    private PoolReconciler.RpcOutcome delete(PoolTask task) {
        try {
            String op = gke.deletePool(task.cluster(), task.pool());
            log.info("node pool delete requested: operation={}", op);
            return new PoolReconciler.RpcOutcome.Accepted(op);
        } catch (ApiException e) {
            log.info("node pool delete not accepted ({}): {}", e.kind(), e.getMessage());
            return new PoolReconciler.RpcOutcome.Refused(e.kind(), e.getMessage());
        }
    }

    private void report(ExecutorEvent event) {
        log.info("node pool {}: {}", poolOf(event), event.getClass().getSimpleName());
        sink.emit(event);
    }

    /** Lists the cluster's pools and reports the falcon-* ones (the scheduler decides what is an orphan). */
    public void inventory(ClusterTarget cluster) {
        List<GkeApi.PoolInfo> pools = gke.listPools(cluster);
        sink.emit(events.nodePoolInventory(cluster, observe(pools, reconciler.ownership())));
    }

    /**
     * The pools of this installation as the inventory reports them (pure): by their ownership labels, never by name,
     * so that the scheduler's orphan sweep never sees (and so never deletes) another team's or another Falcon's pool.
     */
    public static List<ExecutorEvent.ObservedPool> observe(List<GkeApi.PoolInfo> pools, Ownership ownership) {
        List<ExecutorEvent.ObservedPool> observed = new ArrayList<>();
        for (GkeApi.PoolInfo pool : pools) {
            if (ownership.ownsPool(pool)) {
                observed.add(new ExecutorEvent.ObservedPool(
                        pool.name(),
                        pool.status().name(),
                        pool.labels().getOrDefault(FalconLabels.JOB, ""),
                        pool.labels().getOrDefault(FalconLabels.TOPOLOGY, ""),
                        pool.createdAt()));
            }
        }
        return observed;
    }

    private interface Call<T> {
        Optional<T> get();
    }

    private static <T> PoolReconciler.Lookup<T> lookup(Call<T> call) {
        try {
            return call.get()
                    .<PoolReconciler.Lookup<T>>map(PoolReconciler.Lookup.Found::new)
                    .orElseGet(PoolReconciler.Lookup.Missing::new);
        } catch (ApiException e) {
            if (e.is(ApiException.Kind.NOT_FOUND)) {
                return new PoolReconciler.Lookup.Missing<>();
            }
            return new PoolReconciler.Lookup.Failed<>(e.getMessage());
        }
    }

    private static String poolOf(ExecutorEvent event) {
        if (event instanceof ExecutorEvent.NodePoolReady e) {
            return e.nodePoolName();
        } else if (event instanceof ExecutorEvent.NodePoolCreateFailed e) {
            return e.nodePoolName() + " (" + e.message() + ")";
        } else if (event instanceof ExecutorEvent.NodePoolDeleteFailing e) {
            return e.nodePoolName() + " (" + e.failures() + " failed deletions: " + e.message() + ")";
        } else if (event instanceof ExecutorEvent.NodePoolCreating e) {
            return e.nodePoolName() + " (create accepted)";
        } else if (event instanceof ExecutorEvent.NodePoolDeleted e) {
            return e.nodePoolName();
        } else if (event instanceof ExecutorEvent.NodePoolWaitingForNodes e) {
            return e.nodePoolName() + " " + e.ready() + "/" + e.expected() + " Ready";
        } else if (event instanceof ExecutorEvent.ReservationShort e) {
            return e.nodePoolName() + " (reservation " + e.reservation() + " has " + e.remainingSlices()
                    + " free TPU VM(s))";
        } else if (event instanceof ExecutorEvent.ReservationSeen e) {
            return "(reservation " + e.reservation() + " read: count " + e.count() + ", in use " + e.inUse() + ")";
        }
        return "";
    }

    private static Mdc mdc(PoolTask task) {
        return Mdc.of(
                "job",
                task.jobId(),
                "cluster",
                task.cluster().clusterId() + "/" + task.cluster().name(),
                "nodePool",
                task.pool());
    }
}
