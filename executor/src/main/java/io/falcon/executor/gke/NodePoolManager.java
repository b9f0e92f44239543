package io.falcon.executor.gke;

import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.CreateNodePoolRequest;
import com.google.container.v1.DeleteNodePoolRequest;
import com.google.container.v1.GetNodePoolRequest;
import com.google.container.v1.GetOperationRequest;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import io.falcon.events.ResourceNames;
import io.falcon.events.TpuTopology;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.Backoff;
import io.falcon.executor.EventSink;
import io.falcon.executor.Events;
import io.falcon.executor.ExecutorConfig;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.Mdc;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and deletes GKE node pools and tracks the long operations asynchronously.
 *
 * <p>The command handlers ({@link #ensure}, {@link #ensureDeleted}) make a few short RPCs on the caller's thread
 * (for reservation pools: does the pool exist, how much of the reservation is free; then create), so the effect is
 * recorded in GKE before the command's offset is committed, and then hand the pool to the tracker. The tracker runs
 * on a scheduled thread: every poll interval it asks GKE for the operation / node pool of each tracked pool and, once
 * the control plane is RUNNING, the edge cluster for the pool's nodes. It reports NodePoolReady (all expected nodes
 * Ready), NodePoolWaitingForNodes (on each change while fewer), NodePoolCreateFailed or NodePoolDeleted.
 *
 * <p>A second scheduled task lists the node pools of every known cluster and reports a NodePoolInventory of the
 * falcon-* pools; the scheduler decides which are orphans.
 */
public final class NodePoolManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodePoolManager.class);

    /** Timers of the manager; see ExecutorConfig for the keys. */
    public record Settings(Duration createTimeout, Duration pollInterval, Duration visibilityGrace,
            Duration inventoryInterval, Duration maxBackoff, NodePoolSpec.ScaleDown scaleDown) {
        public Settings {
            Objects.requireNonNull(createTimeout, "createTimeout");
            Objects.requireNonNull(pollInterval, "pollInterval");
            Objects.requireNonNull(visibilityGrace, "visibilityGrace");
            Objects.requireNonNull(inventoryInterval, "inventoryInterval");
            Objects.requireNonNull(maxBackoff, "maxBackoff");
            Objects.requireNonNull(scaleDown, "scaleDown");
        }

        public static Settings of(ExecutorConfig config) {
            return new Settings(config.nodePoolCreateTimeout(), config.pollInterval(), config.visibilityGrace(),
                    config.inventoryInterval(), config.maxBackoff(), config.scaleDown());
        }
    }

    private final ClusterManagerClient gke;
    private final ReservationLookup reservations;
    private final EdgeView edges;
    private final EventSink sink;
    private final Events events;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final Settings settings;
    private final Backoff backoff;
    private final DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
    /** Keyed by the node pool's resource name. Mutated only on the scheduler thread and under adopt's lock. */
    private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();
    /** Clusters seen (commands, registry), by id, for the inventory. */
    private final Map<String, ClusterTarget> clusters = new ConcurrentHashMap<>();
    /** When this process's create RPC for a pool was accepted, for the create-visibility grace. */
    private final Map<String, Instant> createAccepted = new ConcurrentHashMap<>();
    private ScheduledFuture<?> poller;
    private ScheduledFuture<?> inventory;

    private enum Kind { CREATE, DELETE }

    private enum Step { NEED_RPC, OPERATION, WATCH_POOL, WAIT_NODES }

    private static final class Tracked {
        final Kind kind;
        final ClusterTarget cluster;
        final String pool;
        volatile String jobId;
        volatile boolean cancelled;
        Instant started;
        NodePool spec;
        SupplyMode mode;
        Optional<String> reservation = Optional.empty();
        String commandId = "";
        int expectedHosts;
        Step step;
        String operation;
        String lastSeen = "no answer from GKE yet";
        int attempts;
        Instant nextAttempt = Instant.MIN;
        EdgeView.NodeCount lastCount;

        Tracked(Kind kind, String jobId, ClusterTarget cluster, String pool, Instant started) {
            this.kind = kind;
            this.jobId = jobId;
            this.cluster = cluster;
            this.pool = pool;
            this.started = started;
        }
    }

    public NodePoolManager(ClusterManagerClient gke, ReservationLookup reservations, EdgeView edges, EventSink sink,
            Events events, ScheduledExecutorService scheduler, Clock clock, Settings settings) {
        this.gke = gke;
        this.reservations = reservations;
        this.edges = edges;
        this.sink = sink;
        this.events = events;
        this.scheduler = scheduler;
        this.clock = clock;
        this.settings = settings;
        Duration max = settings.maxBackoff().compareTo(settings.pollInterval()) < 0 ? settings.pollInterval()
                : settings.maxBackoff();
        this.backoff = new Backoff(settings.pollInterval(), max);
    }

    public synchronized void start() {
        if (poller == null) {
            long ms = settings.pollInterval().toMillis();
            poller = scheduler.scheduleWithFixedDelay(this::pollSafely, ms, ms, TimeUnit.MILLISECONDS);
            long inv = settings.inventoryInterval().toMillis();
            inventory = scheduler.scheduleWithFixedDelay(this::inventoryAll, inv, inv, TimeUnit.MILLISECONDS);
        }
    }

    public static String poolResourceName(ClusterTarget cluster, String pool) {
        return cluster.resourceName() + "/nodePools/" + pool;
    }

    /** Number of pools being created, waited for or deleted (for tests and health). */
    public int inFlight() {
        return tracked.size();
    }

    // ---- command handlers (consumer thread) ----

    public void ensure(EnsureNodePool command) {
        ClusterTarget cluster = command.cluster();
        known(cluster);
        String key = poolResourceName(cluster, command.nodePoolName());
        try (var ignored = mdc(command.jobId(), cluster, command.nodePoolName())) {
            NodePool spec;
            int hosts;
            try {
                spec = NodePoolSpec.render(command, settings.scaleDown());
                hosts = NodePoolSpec.hosts(command);
            } catch (NodePoolSpec.InvalidNodePoolException e) {
                log.warn("refusing node pool: {}", e.getMessage());
                sink.emit(events.nodePoolCreateFailed(command.jobId(), cluster, command.nodePoolName(), false,
                        e.getMessage()));
                return;
            }
            if (joinTracking(key, Kind.CREATE, command.jobId())) {
                log.info("node pool already being created or waited for, tracking continues");
                return;
            }
            Tracked t = new Tracked(Kind.CREATE, command.jobId(), cluster, command.nodePoolName(), clock.instant());
            t.spec = spec;
            t.mode = NodePoolSpec.supplyMode(command);
            t.reservation = command.reservation().filter(r -> !r.isBlank());
            t.commandId = command.meta().eventId();
            t.expectedHosts = hosts;
            synchronized (t) {
                createRpc(t);
            }
            adopt(key, t);
        }
    }

    public void ensureDeleted(EnsureNodePoolDeleted command) {
        ClusterTarget cluster = command.cluster();
        known(cluster);
        String key = poolResourceName(cluster, command.nodePoolName());
        try (var ignored = mdc(command.jobId(), cluster, command.nodePoolName())) {
            if (joinTracking(key, Kind.DELETE, command.jobId())) {
                log.info("node pool already being deleted, tracking continues");
                return;
            }
            Tracked t = new Tracked(Kind.DELETE, command.jobId(), cluster, command.nodePoolName(), clock.instant());
            synchronized (t) {
                deleteRpc(t);
            }
            adopt(key, t);
        }
    }

    /**
     * After a restart (first sight of a cluster): adopt the falcon node pools found by label in GKE itself, so their
     * outcome is reported even though the command that started them was committed. Pools PROVISIONING are tracked
     * to RUNNING, pools STOPPING until gone, pools in ERROR reported failed, and RUNNING pools whose job has no
     * Kubernetes Job yet are reported ready again (their NodePoolReady may have been lost with the process). The job
     * id comes from the pool's falcon-job-id node metadata, else its falcon-job label.
     */
    public void recover(ClusterTarget cluster) {
        known(cluster);
        List<NodePool> pools;
        try {
            pools = gke.listNodePools(cluster.resourceName()).getNodePoolsList();
        } catch (RuntimeException e) {
            log.warn("cannot list node pools of cluster {} for recovery: {}", cluster.clusterId(),
                    GkeErrors.describe(e));
            return;
        }
        for (NodePool pool : pools) {
            Map<String, String> labels = pool.getConfig().getResourceLabelsMap();
            if (!FalconLabels.MANAGED_BY_VALUE.equals(labels.get(FalconLabels.MANAGED_BY))) {
                continue;
            }
            String key = poolResourceName(cluster, pool.getName());
            if (tracked.containsKey(key)) {
                continue;
            }
            String label = labels.getOrDefault(FalconLabels.JOB, pool.getName());
            Kind kind = switch (pool.getStatus()) {
                case PROVISIONING, RECONCILING, ERROR -> Kind.CREATE;
                case STOPPING -> Kind.DELETE;
                case RUNNING, RUNNING_WITH_ERROR -> jobExists(cluster, label) ? null : Kind.CREATE;
                default -> null;
            };
            if (kind == null) {
                continue;
            }
            String jobId = pool.getConfig().getMetadataMap().getOrDefault(FalconLabels.METADATA_JOB_ID, label);
            // The creation timeout counts from when the pool was asked for, not from this restart.
            Instant started = observe(List.of(pool)).stream().findFirst()
                    .flatMap(ExecutorEvent.ObservedPool::createdAt).orElse(clock.instant());
            Tracked t = new Tracked(kind, jobId, cluster, pool.getName(), started);
            t.step = Step.WATCH_POOL;
            t.expectedHosts = expectedHosts(pool);
            t.lastSeen = "node pool " + pool.getStatus();
            try (var ignored = mdc(jobId, cluster, pool.getName())) {
                log.info("recovered node pool {} ({}), tracking until {}", pool.getName(), pool.getStatus(),
                        kind == Kind.CREATE ? "its nodes are Ready" : "it is gone");
            }
            adopt(key, t);
        }
    }

    private boolean jobExists(ClusterTarget cluster, String falconJobLabel) {
        try {
            return edges.hasJob(cluster, falconJobLabel);
        } catch (RuntimeException e) {
            // Cannot tell: report the pool ready again; the scheduler treats a repeated NodePoolReady as a no-op.
            log.warn("cannot list jobs of cluster {}: {}", cluster.clusterId(), e.getMessage());
            return false;
        }
    }

    private void known(ClusterTarget cluster) {
        clusters.put(cluster.clusterId(), cluster);
    }

    /** Forgets a cluster (removed from the registry): no more inventories of it. */
    public void forget(String clusterId) {
        clusters.remove(clusterId);
    }

    // ---- tracker ----

    /**
     * True when a tracking of the same kind is still unfinished: it will report (with this job id). Checked under the
     * tracking's lock, which the poller holds while it steps, so a tracking cannot finish in between.
     */
    private boolean joinTracking(String key, Kind kind, String jobId) {
        Tracked existing = tracked.get(key);
        if (existing == null || existing.kind != kind) {
            return false;
        }
        synchronized (existing) {
            if (existing.step == null || existing.cancelled) {
                return false;
            }
            existing.jobId = jobId;
            return true;
        }
    }

    /** Serialized (command thread and recovery); the poller only removes finished entries. */
    private synchronized void adopt(String key, Tracked t) {
        Tracked previous = tracked.get(key);
        if (previous != null && previous.kind == t.kind && t.step == Step.WATCH_POOL
                && joinTracking(key, t.kind, t.jobId)) {
            return;
        }
        if (previous != null) {
            previous.cancelled = true;
            log.info("node pool {}: {} supersedes the {} being tracked", t.pool, t.kind, previous.kind);
        }
        if (t.step == null) {
            tracked.remove(key); // finished synchronously (reported already)
        } else {
            tracked.put(key, t);
        }
    }

    private void pollSafely() {
        Instant now = clock.instant();
        createAccepted.values().removeIf(at -> !now.isBefore(at.plus(settings.visibilityGrace())));
        for (Map.Entry<String, Tracked> e : tracked.entrySet()) {
            Tracked t = e.getValue();
            try (var ignored = mdc(t.jobId, t.cluster, t.pool)) {
                synchronized (t) {
                    if (!t.cancelled) {
                        step(t);
                    }
                }
            } catch (RuntimeException ex) {
                log.warn("polling node pool {} failed: {}", t.pool, GkeErrors.describe(ex));
                t.lastSeen = GkeErrors.describe(ex);
            }
            if (t.step == null || t.cancelled) {
                tracked.remove(e.getKey(), t);
            }
        }
    }

    private void step(Tracked t) {
        Instant now = clock.instant();
        // No timeout once the control plane is RUNNING: GKE keeps retrying the nodes (seed: WaitingForNode).
        if (t.kind == Kind.CREATE && t.step != Step.WAIT_NODES
                && Duration.between(t.started, now).compareTo(settings.createTimeout()) >= 0) {
            String detail = "node pool " + t.pool + " not RUNNING after "
                    + ExecutorConfig.formatDuration(settings.createTimeout()) + " (" + t.lastSeen + ")";
            log.warn("node pool creation timed out: {}", detail);
            sink.emit(events.nodePoolCreateFailed(t.jobId, t.cluster, t.pool, true, detail));
            t.step = null;
            return;
        }
        if (now.isBefore(t.nextAttempt)) {
            return;
        }
        switch (t.step) {
            case NEED_RPC -> {
                if (t.kind == Kind.CREATE) {
                    createRpc(t);
                } else {
                    deleteRpc(t);
                }
            }
            case OPERATION -> pollOperation(t);
            case WATCH_POOL -> watchPool(t);
            case WAIT_NODES -> waitForNodes(t);
        }
    }

    private void createRpc(Tracked t) {
        try {
            if (t.mode == SupplyMode.RESERVATION && !reservationAllows(t)) {
                return;
            }
            Instant now = clock.instant();
            Operation op = gke.createNodePool(CreateNodePoolRequest.newBuilder()
                    .setParent(t.cluster.resourceName())
                    .setNodePool(NodePoolSpec.withCreatedAt(t.spec, now))
                    .build());
            createAccepted.put(poolResourceName(t.cluster, t.pool), now);
            t.operation = operationName(t.cluster, op);
            t.step = Step.OPERATION;
            t.lastSeen = "operation " + op.getStatus();
            log.info("node pool create requested: operation={} machineType={} nodes={} supply={}", t.operation,
                    t.spec.getConfig().getMachineType(), t.spec.getInitialNodeCount(), t.mode.wireName());
        } catch (ReservationLookup.ReservationNotFoundException e) {
            log.warn("node pool not created: {}", e.getMessage());
            sink.emit(events.nodePoolCreateFailed(t.jobId, t.cluster, t.pool, false, e.getMessage()));
            t.step = null;
        } catch (RuntimeException e) {
            if (GkeErrors.is(e, StatusCode.Code.ALREADY_EXISTS)) {
                log.info("node pool already exists, watching it");
                t.step = Step.WATCH_POOL;
            } else if (GkeErrors.isTransient(e)) {
                retryLater(t, e);
            } else {
                String message = GkeErrors.describe(e);
                log.warn("node pool create rejected: {}", message);
                sink.emit(events.nodePoolCreateFailed(t.jobId, t.cluster, t.pool, false, message));
                t.step = null;
            }
        }
    }

    /**
     * Seed section 5: a reservation pool is created only when the reservation has a free slice (count - inUseCount
     * hosts, divided by the hosts of the job's topology); otherwise ReservationShort is reported and nothing is
     * created. A pool that already exists holds its share already, so it is watched without a capacity check.
     * Returns true when the create RPC may be sent; otherwise the tracking has been settled.
     */
    private boolean reservationAllows(Tracked t) {
        Optional<NodePool> existing = findPool(t);
        if (existing.isPresent()) {
            log.info("node pool already exists ({}), watching it", existing.get().getStatus());
            t.step = Step.WATCH_POOL;
            return false;
        }
        String reservation = t.reservation.orElseThrow();
        ReservationLookup.Capacity capacity = reservations.capacity(t.cluster, reservation);
        int free = capacity.freeSlices(t.expectedHosts);
        if (free >= 1) {
            log.info("reservation {} has {} free slice(s) of {} host(s) (count {} in use {})", capacity.path(), free,
                    t.expectedHosts, capacity.count(), capacity.inUse());
            return true;
        }
        log.info("reservation {} short: {} free slice(s) of {} host(s) (count {} in use {}); not creating",
                capacity.path(), free, t.expectedHosts, capacity.count(), capacity.inUse());
        sink.emit(events.reservationShort(t.jobId, t.cluster, t.pool, reservation, free, 1, t.commandId));
        t.step = null;
        return false;
    }

    private Optional<NodePool> findPool(Tracked t) {
        try {
            String key = poolResourceName(t.cluster, t.pool);
            NodePool pool = gke.getNodePool(GetNodePoolRequest.newBuilder().setName(key).build());
            createAccepted.remove(key);
            return Optional.of(pool);
        } catch (RuntimeException e) {
            if (GkeErrors.is(e, StatusCode.Code.NOT_FOUND)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private void deleteRpc(Tracked t) {
        String key = poolResourceName(t.cluster, t.pool);
        try {
            Operation op = gke.deleteNodePool(DeleteNodePoolRequest.newBuilder().setName(key).build());
            createAccepted.remove(key);
            t.operation = operationName(t.cluster, op);
            t.step = Step.OPERATION;
            log.info("node pool delete requested: operation={}", t.operation);
        } catch (RuntimeException e) {
            if (GkeErrors.is(e, StatusCode.Code.NOT_FOUND)) {
                if (withinVisibilityGrace(key)) {
                    // Created moments ago and not visible yet (flex-start): ask again until it shows up.
                    log.info("node pool not visible yet; deleting it once it is");
                    t.step = Step.NEED_RPC;
                    t.nextAttempt = clock.instant().plus(settings.pollInterval());
                    return;
                }
                // Gone, or already being deleted: confirm with getNodePool before reporting.
                log.info("node pool not found on delete; confirming it is gone");
                t.step = Step.WATCH_POOL;
            } else if (GkeErrors.is(e, StatusCode.Code.FAILED_PRECONDITION)) {
                // Already being deleted (or another operation runs on it): watch it, delete again if it stays.
                log.info("node pool delete not accepted now: {}", GkeErrors.describe(e));
                t.lastSeen = GkeErrors.describe(e);
                t.step = Step.WATCH_POOL;
                t.attempts++;
                t.nextAttempt = clock.instant().plus(settings.pollInterval());
            } else {
                // An outage or a refusal: a pool must not be leaked, so keep trying with backoff.
                retryLater(t, e);
            }
        }
    }

    private boolean withinVisibilityGrace(String key) {
        Instant at = createAccepted.get(key);
        return at != null && clock.instant().isBefore(at.plus(settings.visibilityGrace()));
    }

    private void retryLater(Tracked t, RuntimeException e) {
        t.attempts++;
        Duration delay = backoff.delay(t.attempts, random);
        t.nextAttempt = clock.instant().plus(delay);
        t.step = Step.NEED_RPC;
        t.lastSeen = GkeErrors.describe(e);
        log.warn("node pool {} {} failed (attempt {}), retrying in {}: {}", t.pool,
                t.kind == Kind.CREATE ? "create" : "delete", t.attempts, ExecutorConfig.formatDuration(delay),
                t.lastSeen);
    }

    private void pollOperation(Tracked t) {
        Operation op = gke.getOperation(GetOperationRequest.newBuilder().setName(t.operation).build());
        if (op.getStatus() != Operation.Status.DONE) {
            t.lastSeen = "operation " + op.getStatus()
                    + (op.getDetail().isEmpty() ? "" : ": " + op.getDetail());
            return;
        }
        Optional<String> error = operationError(op);
        if (error.isPresent()) {
            if (t.kind == Kind.CREATE) {
                log.warn("node pool create failed: {}", error.get());
                sink.emit(events.nodePoolCreateFailed(t.jobId, t.cluster, t.pool, false, error.get()));
                t.step = null;
            } else {
                retryLater(t, new IllegalStateException("delete operation failed: " + error.get()));
            }
            return;
        }
        t.step = Step.WATCH_POOL;
        watchPool(t);
    }

    private void watchPool(Tracked t) {
        String key = poolResourceName(t.cluster, t.pool);
        NodePool pool;
        try {
            pool = gke.getNodePool(GetNodePoolRequest.newBuilder().setName(key).build());
        } catch (RuntimeException e) {
            if (!GkeErrors.is(e, StatusCode.Code.NOT_FOUND)) {
                throw e;
            }
            if (t.kind == Kind.DELETE) {
                if (t.operation == null && withinVisibilityGrace(key)) {
                    t.step = Step.NEED_RPC; // not visible yet: the delete has not happened
                    return;
                }
                log.info("node pool deleted");
                sink.emit(events.nodePoolDeleted(t.jobId, t.cluster, t.pool));
                t.step = null;
            } else if (withinVisibilityGrace(key)) {
                // Seed section 5: a flex-start pool may be invisible for a while after the create RPC returned.
                t.lastSeen = "node pool not visible yet after create";
            } else {
                // Gone while we expected it (deleted under us): create it (again).
                t.lastSeen = "node pool not found";
                t.step = Step.NEED_RPC;
            }
            return;
        }
        createAccepted.remove(key); // visible now: a later NOT_FOUND means gone
        t.lastSeen = "node pool " + pool.getStatus()
                + (pool.getStatusMessage().isEmpty() ? "" : ": " + pool.getStatusMessage());
        if (t.kind == Kind.DELETE) {
            if (pool.getStatus() != NodePool.Status.STOPPING) {
                // Not being deleted (an earlier delete failed or was refused): delete again, with backoff.
                t.attempts++;
                t.step = Step.NEED_RPC;
                t.operation = null;
                t.nextAttempt = clock.instant().plus(backoff.delay(t.attempts, random));
            }
            return;
        }
        switch (pool.getStatus()) {
            case RUNNING, RUNNING_WITH_ERROR -> {
                if (t.expectedHosts <= 0) {
                    t.expectedHosts = expectedHosts(pool);
                }
                log.info("node pool control plane {}; waiting for {} node(s)", pool.getStatus(), t.expectedHosts);
                t.step = Step.WAIT_NODES;
                countNodes(t);
            }
            case ERROR -> {
                String message = pool.getStatusMessage().isEmpty() ? "node pool in ERROR" : pool.getStatusMessage();
                log.warn("node pool in ERROR: {}", message);
                sink.emit(events.nodePoolCreateFailed(t.jobId, t.cluster, t.pool, false, message));
                t.step = null;
            }
            default -> {
                // PROVISIONING, RECONCILING, STOPPING (being deleted by someone else): keep watching until timeout
            }
        }
    }

    /** Control plane RUNNING: re-check the pool, then count its nodes in the edge cluster. */
    private void waitForNodes(Tracked t) {
        Optional<NodePool> pool = findPool(t);
        if (pool.isEmpty()) {
            t.lastSeen = "node pool disappeared";
            t.step = Step.NEED_RPC;
            t.started = clock.instant();
            return;
        }
        switch (pool.get().getStatus()) {
            case ERROR -> {
                String message = pool.get().getStatusMessage().isEmpty() ? "node pool in ERROR"
                        : pool.get().getStatusMessage();
                sink.emit(events.nodePoolCreateFailed(t.jobId, t.cluster, t.pool, false, message));
                t.step = null;
            }
            case STOPPING, PROVISIONING -> {
                t.step = Step.WATCH_POOL;
                t.started = clock.instant();
            }
            default -> countNodes(t);
        }
    }

    private void countNodes(Tracked t) {
        EdgeView.NodeCount count = edges.nodes(t.cluster, t.pool);
        t.lastSeen = "control plane RUNNING, " + count.registered() + "/" + t.expectedHosts + " node(s) registered, "
                + count.ready() + " Ready";
        if (count.ready() >= t.expectedHosts) {
            log.info("node pool ready: {} of {} node(s) Ready", count.ready(), t.expectedHosts);
            sink.emit(events.nodePoolReady(t.jobId, t.cluster, t.pool));
            t.step = null;
            return;
        }
        if (!count.equals(t.lastCount)) {
            log.info("node pool waiting for nodes: {}", t.lastSeen);
            sink.emit(events.nodePoolWaitingForNodes(t.jobId, t.cluster, t.pool, count.registered(), count.ready(),
                    t.expectedHosts));
            t.lastCount = count;
        }
    }

    /** Hosts a pool should have: its initial node count, else one per 4 chips of its topology, else 1 (pure). */
    static int expectedHosts(NodePool pool) {
        if (pool.getInitialNodeCount() > 0) {
            return pool.getInitialNodeCount();
        }
        String topology = pool.getPlacementPolicy().getTpuTopology();
        if (topology.isEmpty()) {
            topology = pool.getConfig().getResourceLabelsMap().getOrDefault(FalconLabels.TOPOLOGY, "");
        }
        return TpuTopology.parse(topology).map(TpuTopology::hosts).orElse(1);
    }

    // ---- inventory ----

    private void inventoryAll() {
        for (ClusterTarget cluster : clusters.values()) {
            try (var ignored = Mdc.of("cluster", cluster.clusterId() + "/" + cluster.name())) {
                inventory(cluster);
            } catch (RuntimeException e) {
                log.warn("node pool inventory of cluster {} failed: {}", cluster.clusterId(), GkeErrors.describe(e));
            }
        }
    }

    /** Lists the cluster's pools and reports the falcon-* ones. */
    public void inventory(ClusterTarget cluster) {
        List<NodePool> pools = gke.listNodePools(cluster.resourceName()).getNodePoolsList();
        List<ExecutorEvent.ObservedPool> observed = observe(pools);
        log.debug("inventory: {} falcon node pool(s)", observed.size());
        sink.emit(events.nodePoolInventory(cluster, observed));
    }

    /** The falcon-* pools as the inventory reports them (pure). */
    static List<ExecutorEvent.ObservedPool> observe(List<NodePool> pools) {
        List<ExecutorEvent.ObservedPool> observed = new ArrayList<>();
        for (NodePool pool : pools) {
            if (!ResourceNames.isFalconNodePool(pool.getName())) {
                continue;
            }
            Map<String, String> labels = pool.getConfig().getResourceLabelsMap();
            Optional<Instant> createdAt = Optional.ofNullable(labels.get(FalconLabels.CREATED_AT))
                    .filter(v -> v.matches("\\d{1,12}")).map(v -> Instant.ofEpochSecond(Long.parseLong(v)));
            observed.add(new ExecutorEvent.ObservedPool(pool.getName(), pool.getStatus().name(),
                    labels.getOrDefault(FalconLabels.JOB, ""), labels.getOrDefault(FalconLabels.TOPOLOGY, ""),
                    createdAt));
        }
        return observed;
    }

    // ---- helpers ----

    static Optional<String> operationError(Operation op) {
        if (op.hasError() && (op.getError().getCode() != 0 || !op.getError().getMessage().isEmpty())) {
            return Optional.of(op.getError().getMessage().isEmpty()
                    ? "operation failed with code " + op.getError().getCode() : op.getError().getMessage());
        }
        if (!op.getStatusMessage().isEmpty()) {
            return Optional.of(op.getStatusMessage());
        }
        return Optional.empty();
    }

    static String operationName(ClusterTarget cluster, Operation op) {
        String name = op.getName();
        if (name.startsWith("projects/")) {
            return name;
        }
        return "projects/" + cluster.project() + "/locations/" + cluster.location() + "/operations/" + name;
    }

    static Mdc mdc(String jobId, ClusterTarget cluster, String pool) {
        return Mdc.of("job", jobId, "cluster", cluster.clusterId() + "/" + cluster.name(), "nodePool", pool);
    }

    @Override
    public synchronized void close() {
        if (poller != null) {
            poller.cancel(false);
            inventory.cancel(false);
            poller = null;
            inventory = null;
        }
    }
}
