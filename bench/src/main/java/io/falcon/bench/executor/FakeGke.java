package io.falcon.bench.executor;

import com.google.container.v1.NodePool;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.executor.core.ApiException;
import io.falcon.executor.core.GkeApi;
import io.falcon.executor.core.Ownership;
import io.falcon.executor.gke.GkeClusterApi;
import io.falcon.executor.gke.NodePoolSpec;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * GKE and Compute in memory, as the executor's {@link GkeApi} sees them, with nothing of a simulated cluster's work: a
 * pool is RUNNING, at full size, the moment it is created (as fleet-sim's instant pools of bench/e2e stage t), its
 * create operation done, and every reservation has room. Each call first waits out the GKE latency.
 *
 * <p>A created pool is what the real client would read back from GKE: the executor's own {@link NodePoolSpec} renders
 * it (ownership labels, falcon-created-at, the creator's job id in the node metadata, the initial node count) and
 * {@link GkeClusterApi#info} reads it, so the reconciler's ownership and node-count checks see what they see in
 * production.
 */
final class FakeGke implements GkeApi {
    /** Hosts every reservation holds: far more than any run asks for, so that no creation waits on capacity. */
    static final long RESERVATION_HOSTS = 1_000_000;

    private final CloudLatency latency;
    private final NodePoolSpec.ScaleDown scaleDown;
    private final Ownership ownership;
    private final ApiCalls calls;
    private final ConcurrentHashMap<String, PoolInfo> pools = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, PoolOperations> poolOperations = new ConcurrentHashMap<>();
    private final Set<String> operations = ConcurrentHashMap.newKeySet();
    private final AtomicLong operationNumbers = new AtomicLong();

    FakeGke(CloudLatency latency, NodePoolSpec.ScaleDown scaleDown, Ownership ownership, ApiCalls calls) {
        this.latency = latency;
        this.scaleDown = scaleDown;
        this.ownership = ownership;
        this.calls = calls;
    }

    /** The pool as it is now, without a call's latency: what the fake Kubernetes API counts nodes of. */
    Optional<PoolInfo> poolNow(ClusterTarget cluster, String pool) {
        return Optional.ofNullable(pools.get(GkeClusterApi.poolResourceName(cluster, pool)));
    }

    @Override
    public Optional<PoolInfo> getPool(ClusterTarget cluster, String pool) {
        call("gke.getNodePool");
        return poolNow(cluster, pool);
    }

    @Override
    public String createPool(ClusterTarget cluster, EnsureNodePool command, Instant createdAt) {
        call("gke.createNodePool");
        NodePool spec;
        try {
            spec = NodePoolSpec.withCreatedAt(NodePoolSpec.render(command, scaleDown, ownership), createdAt);
        } catch (NodePoolSpec.InvalidNodePoolException e) {
            throw new ApiException(ApiException.Kind.INVALID, e.getMessage(), e);
        }
        PoolInfo running = GkeClusterApi.info(
                spec.toBuilder().setStatus(NodePool.Status.RUNNING).build());
        String key = GkeClusterApi.poolResourceName(cluster, command.nodePoolName());
        if (pools.putIfAbsent(key, running) != null) {
            throw new ApiException(
                    ApiException.Kind.ALREADY_EXISTS,
                    "ALREADY_EXISTS: node pool " + command.nodePoolName() + " already exists");
        }
        poolOperations.merge(
                key,
                new PoolOperations(Optional.of(createdAt), Optional.empty()),
                (before, created) -> new PoolOperations(created.lastCreate(), before.lastDelete()));
        return newOperation(cluster);
    }

    @Override
    public String deletePool(ClusterTarget cluster, String pool) {
        call("gke.deleteNodePool");
        String key = GkeClusterApi.poolResourceName(cluster, pool);
        if (pools.remove(key) == null) {
            throw new ApiException(ApiException.Kind.NOT_FOUND, "NOT_FOUND: node pool " + pool);
        }
        poolOperations.merge(
                key,
                new PoolOperations(Optional.empty(), Optional.of(Instant.now())),
                (before, deleted) -> new PoolOperations(before.lastCreate(), deleted.lastDelete()));
        return newOperation(cluster);
    }

    @Override
    public OperationInfo operation(ClusterTarget cluster, String operation) {
        call("gke.getOperation");
        if (!operations.contains(operation)) {
            throw new ApiException(ApiException.Kind.NOT_FOUND, "NOT_FOUND: operation " + operation);
        }
        return new OperationInfo(true, Optional.empty(), "operation DONE");
    }

    @Override
    public PoolOperations operations(ClusterTarget cluster, String pool) {
        call("gke.listOperations");
        return poolOperations.getOrDefault(
                GkeClusterApi.poolResourceName(cluster, pool), new PoolOperations(Optional.empty(), Optional.empty()));
    }

    @Override
    public List<PoolInfo> listPools(ClusterTarget cluster) {
        call("gke.listNodePools");
        String prefix = cluster.resourceName() + "/nodePools/";
        return pools.entrySet().stream()
                .filter(pool -> pool.getKey().startsWith(prefix))
                .map(java.util.Map.Entry::getValue)
                .toList();
    }

    @Override
    public Capacity reservation(ClusterTarget cluster, String reservation) {
        call("compute.getReservation");
        return new Capacity(
                "projects/" + cluster.project() + "/zones/" + cluster.location() + "/reservations/" + reservation,
                RESERVATION_HOSTS,
                0);
    }

    private void call(String name) {
        calls.count(name);
        latency.awaitGkeCall();
    }

    private String newOperation(ClusterTarget cluster) {
        String name = "projects/" + cluster.project() + "/locations/" + cluster.location() + "/operations/operation-"
                + operationNumbers.incrementAndGet();
        operations.add(name);
        return name;
    }
}
