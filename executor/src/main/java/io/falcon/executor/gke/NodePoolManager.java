package io.falcon.executor.gke;

import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.CreateNodePoolRequest;
import com.google.container.v1.DeleteNodePoolRequest;
import com.google.container.v1.GetNodePoolRequest;
import com.google.container.v1.GetOperationRequest;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted;
import io.falcon.executor.EventSink;
import io.falcon.executor.Events;
import io.falcon.executor.ExecutorConfig;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.Mdc;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and deletes GKE node pools and tracks the long operations asynchronously.
 *
 * <p>The command handlers ({@link #ensure}, {@link #ensureDeleted}) make one short RPC on the caller's thread, so the
 * effect is recorded in GKE before the command's offset is committed, and then hand the pool to the tracker. The
 * tracker runs on one scheduled thread: every poll interval it asks GKE for the operation / node pool of each tracked
 * pool and reports NodePoolReady, NodePoolCreateFailed or NodePoolDeleted exactly once per tracking.
 */
public final class NodePoolManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodePoolManager.class);
    private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

    private final ClusterManagerClient gke;
    private final EventSink sink;
    private final Events events;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final Duration createTimeout;
    private final Duration pollInterval;
    /** Keyed by the node pool's resource name. Mutated only on the scheduler thread. */
    private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();
    private ScheduledFuture<?> poller;

    private enum Kind { CREATE, DELETE }

    private enum Step { NEED_RPC, OPERATION, WATCH_POOL }

    private static final class Tracked {
        final Kind kind;
        final ClusterTarget cluster;
        final String pool;
        final Instant started;
        volatile String jobId;
        volatile boolean cancelled;
        NodePool spec;
        Step step;
        String operation;
        String lastSeen = "no answer from GKE yet";
        int attempts;
        Instant nextAttempt = Instant.MIN;

        Tracked(Kind kind, String jobId, ClusterTarget cluster, String pool, Instant started) {
            this.kind = kind;
            this.jobId = jobId;
            this.cluster = cluster;
            this.pool = pool;
            this.started = started;
        }
    }

    public NodePoolManager(ClusterManagerClient gke, EventSink sink, Events events,
            ScheduledExecutorService scheduler, Clock clock, Duration createTimeout, Duration pollInterval) {
        this.gke = gke;
        this.sink = sink;
        this.events = events;
        this.scheduler = scheduler;
        this.clock = clock;
        this.createTimeout = createTimeout;
        this.pollInterval = pollInterval;
    }

    public synchronized void start() {
        if (poller == null) {
            long ms = pollInterval.toMillis();
            poller = scheduler.scheduleWithFixedDelay(this::pollSafely, ms, ms, TimeUnit.MILLISECONDS);
        }
    }

    public static String poolResourceName(ClusterTarget cluster, String pool) {
        return cluster.resourceName() + "/nodePools/" + pool;
    }

    /** Number of pools being created or deleted (for tests and health). */
    public int inFlight() {
        return tracked.size();
    }

    // ---- command handlers (consumer thread) ----

    public void ensure(EnsureNodePool command) {
        ClusterTarget cluster = command.cluster();
        String key = poolResourceName(cluster, command.nodePoolName());
        try (var ignored = mdc(command.jobId(), cluster, command.nodePoolName())) {
            NodePool spec;
            try {
                spec = NodePoolSpec.render(command);
            } catch (NodePoolSpec.InvalidNodePoolException e) {
                log.warn("refusing node pool: {}", e.getMessage());
                sink.emit(events.nodePoolCreateFailed(command.jobId(), cluster, command.nodePoolName(), false,
                        e.getMessage()));
                return;
            }
            if (joinTracking(key, Kind.CREATE, command.jobId())) {
                log.info("node pool already being created, tracking continues");
                return;
            }
            Tracked t = new Tracked(Kind.CREATE, command.jobId(), cluster, command.nodePoolName(), clock.instant());
            t.spec = spec;
            synchronized (t) {
                createRpc(t);
            }
            adopt(key, t);
        }
    }

    public void ensureDeleted(EnsureNodePoolDeleted command) {
        ClusterTarget cluster = command.cluster();
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
     * After a restart: adopt the falcon node pools of the cluster that are still being created or deleted, found by
     * label in GKE itself, so their outcome is reported even though the command that started them was committed.
     * The job id comes from the falcon-job label (the sanitized id). Pools already RUNNING are left alone: the
     * scheduler's level-triggered EnsureNodePool gets them reported.
     */
    public void recover(ClusterTarget cluster) {
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
            Kind kind = switch (pool.getStatus()) {
                case PROVISIONING, RECONCILING -> Kind.CREATE;
                case STOPPING -> Kind.DELETE;
                default -> null;
            };
            String key = poolResourceName(cluster, pool.getName());
            if (kind == null || tracked.containsKey(key)) {
                continue;
            }
            String jobId = labels.getOrDefault(FalconLabels.JOB, pool.getName());
            Tracked t = new Tracked(kind, jobId, cluster, pool.getName(), clock.instant());
            t.step = Step.WATCH_POOL;
            t.lastSeen = "node pool " + pool.getStatus();
            try (var ignored = mdc(jobId, cluster, pool.getName())) {
                log.info("recovered in-flight node pool {} ({})", pool.getName(), pool.getStatus());
            }
            adopt(key, t);
        }
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
        if (t.kind == Kind.CREATE && Duration.between(t.started, now).compareTo(createTimeout) >= 0) {
            String detail = "node pool " + t.pool + " not RUNNING after " + ExecutorConfig.formatDuration(createTimeout)
                    + " (" + t.lastSeen + ")";
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
        }
    }

    private void createRpc(Tracked t) {
        try {
            Operation op = gke.createNodePool(CreateNodePoolRequest.newBuilder()
                    .setParent(t.cluster.resourceName())
                    .setNodePool(t.spec)
                    .build());
            t.operation = operationName(t.cluster, op);
            t.step = Step.OPERATION;
            t.lastSeen = "operation " + op.getStatus();
            log.info("node pool create requested: operation={} machineType={} nodes={}", t.operation,
                    t.spec.getConfig().getMachineType(), t.spec.getInitialNodeCount());
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

    private void deleteRpc(Tracked t) {
        try {
            Operation op = gke.deleteNodePool(DeleteNodePoolRequest.newBuilder()
                    .setName(poolResourceName(t.cluster, t.pool)).build());
            t.operation = operationName(t.cluster, op);
            t.step = Step.OPERATION;
            log.info("node pool delete requested: operation={}", t.operation);
        } catch (RuntimeException e) {
            if (GkeErrors.is(e, StatusCode.Code.NOT_FOUND)) {
                // Gone, or already being deleted: confirm with getNodePool before reporting.
                log.info("node pool not found on delete; confirming it is gone");
                t.step = Step.WATCH_POOL;
            } else {
                // Another operation on the pool (e.g. its creation) or an outage: retry until it goes through.
                retryLater(t, e);
            }
        }
    }

    private void retryLater(Tracked t, RuntimeException e) {
        t.attempts++;
        long factor = 1L << Math.min(t.attempts, 10);
        Duration backoff = pollInterval.multipliedBy(factor);
        if (backoff.compareTo(MAX_BACKOFF) > 0) {
            backoff = MAX_BACKOFF;
        }
        t.nextAttempt = clock.instant().plus(backoff);
        t.step = Step.NEED_RPC;
        t.lastSeen = GkeErrors.describe(e);
        log.warn("node pool {} {} failed (attempt {}), retrying in {}: {}", t.pool,
                t.kind == Kind.CREATE ? "create" : "delete", t.attempts, backoff, t.lastSeen);
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
                retryLater(t, new IllegalStateException(error.get()));
            }
            return;
        }
        t.step = Step.WATCH_POOL;
        watchPool(t);
    }

    private void watchPool(Tracked t) {
        NodePool pool;
        try {
            pool = gke.getNodePool(GetNodePoolRequest.newBuilder()
                    .setName(poolResourceName(t.cluster, t.pool)).build());
        } catch (RuntimeException e) {
            if (GkeErrors.is(e, StatusCode.Code.NOT_FOUND)) {
                if (t.kind == Kind.DELETE) {
                    log.info("node pool deleted");
                    sink.emit(events.nodePoolDeleted(t.jobId, t.cluster, t.pool));
                    t.step = null;
                } else {
                    // Gone while we expected it (deleted under us, or not yet visible): create it (again).
                    t.lastSeen = "node pool not found";
                    t.step = Step.NEED_RPC;
                }
                return;
            }
            throw e;
        }
        t.lastSeen = "node pool " + pool.getStatus()
                + (pool.getStatusMessage().isEmpty() ? "" : ": " + pool.getStatusMessage());
        if (t.kind == Kind.DELETE) {
            return; // still there (STOPPING); keep watching
        }
        switch (pool.getStatus()) {
            case RUNNING -> {
                log.info("node pool RUNNING");
                sink.emit(events.nodePoolReady(t.jobId, t.cluster, t.pool));
                t.step = null;
            }
            case ERROR -> {
                String message = pool.getStatusMessage().isEmpty() ? "node pool in ERROR" : pool.getStatusMessage();
                log.warn("node pool in ERROR: {}", message);
                sink.emit(events.nodePoolCreateFailed(t.jobId, t.cluster, t.pool, false, message));
                t.step = null;
            }
            case STOPPING -> {
                // being deleted (by someone else): wait for it to go, then create again
            }
            default -> {
                // PROVISIONING, RECONCILING, RUNNING_WITH_ERROR: keep watching until the timeout
            }
        }
    }

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
            poller = null;
        }
    }
}
