package io.falcon.executor.gke;

import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.CreateNodePoolRequest;
import com.google.container.v1.DeleteNodePoolRequest;
import com.google.container.v1.GetNodePoolRequest;
import com.google.container.v1.GetOperationRequest;
import com.google.container.v1.ListOperationsRequest;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import io.falcon.events.TpuSlice;
import io.falcon.events.TpuTopology;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.core.ApiException;
import io.falcon.executor.core.GkeApi;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@link GkeApi} over google-cloud-container's ClusterManagerClient and the Compute reservation lookup. */
public final class GkeClusterApi implements GkeApi {
    private final ClusterManagerClient gke;
    private final ReservationLookup reservations;
    private final WorkloadPolicies workloadPolicies;
    private final NodePoolSpec.ScaleDown scaleDown;

    private final io.falcon.executor.core.Ownership ownership;

    public GkeClusterApi(
            ClusterManagerClient gke,
            ReservationLookup reservations,
            WorkloadPolicies workloadPolicies,
            NodePoolSpec.ScaleDown scaleDown,
            io.falcon.executor.core.Ownership ownership) {
        this.ownership = ownership;
        this.gke = gke;
        this.reservations = reservations;
        this.workloadPolicies = workloadPolicies;
        this.scaleDown = scaleDown;
    }

    public static String poolResourceName(ClusterTarget cluster, String pool) {
        return cluster.resourceName() + "/nodePools/" + pool;
    }

    @Override
    public Optional<PoolInfo> getPool(ClusterTarget cluster, String pool) {
        try {
            return Optional.of(info(gke.getNodePool(GetNodePoolRequest.newBuilder()
                    .setName(poolResourceName(cluster, pool))
                    .build())));
        } catch (RuntimeException e) {
            if (GkeErrors.is(e, StatusCode.Code.NOT_FOUND)) {
                return Optional.empty();
            }
            throw classify(e);
        }
    }

    @Override
    public String createPool(ClusterTarget cluster, EnsureNodePool command, Instant createdAt) {
        NodePool spec;
        try {
            spec = NodePoolSpec.render(command, scaleDown, ownership);
        } catch (NodePoolSpec.InvalidNodePoolException e) {
            throw new ApiException(ApiException.Kind.INVALID, e.getMessage(), e);
        }
        try {
            TpuSlice slice = NodePoolSpec.slice(command);
            if (slice.placement() == TpuSlice.Placement.WORKLOAD_POLICY) {
                // GKE refuses a pool whose placement policy it cannot find: make sure it exists first
                workloadPolicies.ensure(cluster, slice, command.nodePoolName());
            }
            Operation op = gke.createNodePool(CreateNodePoolRequest.newBuilder()
                    .setParent(cluster.resourceName())
                    .setNodePool(NodePoolSpec.withCreatedAt(spec, createdAt))
                    .build());
            return operationName(cluster, op);
        } catch (RuntimeException e) {
            throw classify(e);
        }
    }

    @Override
    public String deletePool(ClusterTarget cluster, String pool) {
        try {
            Operation op = gke.deleteNodePool(DeleteNodePoolRequest.newBuilder()
                    .setName(poolResourceName(cluster, pool))
                    .build());
            return operationName(cluster, op);
        } catch (RuntimeException e) {
            throw classify(e);
        }
    }

    @Override
    public OperationInfo operation(ClusterTarget cluster, String operation) {
        try {
            Operation op = gke.getOperation(
                    GetOperationRequest.newBuilder().setName(operation).build());
            boolean done = op.getStatus() == Operation.Status.DONE;
            return new OperationInfo(
                    done,
                    done ? operationError(op) : Optional.empty(),
                    "operation " + op.getStatus() + (op.getDetail().isEmpty() ? "" : ": " + op.getDetail()));
        } catch (RuntimeException e) {
            throw classify(e);
        }
    }

    @Override
    public PoolOperations operations(ClusterTarget cluster, String pool) {
        String parent = "projects/" + cluster.project() + "/locations/" + cluster.location();
        String target = poolResourceName(cluster, pool);
        try {
            List<Operation> all = gke.listOperations(
                            ListOperationsRequest.newBuilder().setParent(parent).build())
                    .getOperationsList();
            List<Operation> ops = all.stream()
                    .filter(op -> op.getTargetLink().endsWith(target))
                    .toList();
            // the cluster's deletion deleted its pools with it: a pool created before it is gone, not invisible
            List<Operation> clusterDeleted = all.stream()
                    .filter(op -> op.getTargetLink().endsWith(cluster.resourceName()))
                    .toList();
            Optional<Instant> deleted = latest(ops, Operation.Type.DELETE_NODE_POOL)
                    .or(() -> Optional.<Instant>empty())
                    .map(d -> latest(clusterDeleted, Operation.Type.DELETE_CLUSTER)
                            .filter(c -> c.isAfter(d))
                            .orElse(d))
                    .or(() -> latest(clusterDeleted, Operation.Type.DELETE_CLUSTER));
            return new PoolOperations(latest(ops, Operation.Type.CREATE_NODE_POOL), deleted);
        } catch (RuntimeException e) {
            throw classify(e);
        }
    }

    private static Optional<Instant> latest(List<Operation> ops, Operation.Type type) {
        return ops.stream()
                .filter(op -> op.getOperationType() == type)
                .map(op -> parseTime(op.getStartTime()))
                .flatMap(Optional::stream)
                .max(Instant::compareTo);
    }

    private static Optional<Instant> parseTime(String rfc3339) {
        try {
            return rfc3339.isEmpty() ? Optional.empty() : Optional.of(Instant.parse(rfc3339));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<PoolInfo> listPools(ClusterTarget cluster) {
        try {
            return gke.listNodePools(cluster.resourceName()).getNodePoolsList().stream()
                    .map(GkeClusterApi::info)
                    .toList();
        } catch (RuntimeException e) {
            throw classify(e);
        }
    }

    @Override
    public Capacity reservation(ClusterTarget cluster, String reservation) {
        try {
            return reservations.capacity(cluster, reservation);
        } catch (ReservationLookup.ReservationNotFoundException e) {
            throw new ApiException(ApiException.Kind.NOT_FOUND, e.getMessage(), e);
        } catch (RuntimeException e) {
            throw classify(e);
        }
    }

    /** GKE's view of a pool in plain Java (pure). */
    // public: bench/executor-throughput's in-memory GKE reads its pools exactly as this client reads GKE's answers
    public static PoolInfo info(NodePool pool) {
        Map<String, String> labels = pool.getConfig().getResourceLabelsMap();
        Optional<Instant> createdAt = Optional.ofNullable(labels.get(FalconLabels.CREATED_AT))
                .filter(v -> v.matches("\\d{1,12}"))
                .map(v -> Instant.ofEpochSecond(Long.parseLong(v)));
        PoolStatus status = switch (pool.getStatus()) {
            case PROVISIONING -> PoolStatus.PROVISIONING;
            case RUNNING -> PoolStatus.RUNNING;
            case RUNNING_WITH_ERROR -> PoolStatus.RUNNING_WITH_ERROR;
            case RECONCILING -> PoolStatus.RECONCILING;
            case STOPPING -> PoolStatus.STOPPING;
            case ERROR -> PoolStatus.ERROR;
            default -> PoolStatus.UNKNOWN;
        };
        Optional<String> creator = Optional.ofNullable(
                        pool.getConfig().getMetadataMap().get(FalconLabels.METADATA_JOB_ID))
                .filter(id -> !id.isEmpty());
        return new PoolInfo(
                pool.getName(), status, pool.getStatusMessage(), labels, createdAt, expectedHosts(pool), creator);
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

    static Optional<String> operationError(Operation op) {
        if (op.hasError()
                && (op.getError().getCode() != 0 || !op.getError().getMessage().isEmpty())) {
            return Optional.of(
                    op.getError().getMessage().isEmpty()
                            ? "operation failed with code " + op.getError().getCode()
                            : op.getError().getMessage());
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

    /** A GKE / Compute error as the decision code sees it. */
    static ApiException classify(RuntimeException e) {
        if (e instanceof ApiException classified) {
            return classified; // already said what to do (a workload policy still being created)
        }
        String message = GkeErrors.describe(e);
        StatusCode.Code code = GkeErrors.code(e);
        ApiException.Kind kind;
        if (GkeErrors.is(e, StatusCode.Code.NOT_FOUND)) {
            kind = ApiException.Kind.NOT_FOUND;
        } else if (GkeErrors.is(e, StatusCode.Code.ALREADY_EXISTS)) {
            kind = ApiException.Kind.ALREADY_EXISTS;
        } else if (code == StatusCode.Code.FAILED_PRECONDITION && GkeErrors.isTransient(e)) {
            kind = ApiException.Kind.FAILED_PRECONDITION;
        } else if (GkeErrors.isTransient(e)) {
            kind = ApiException.Kind.TRANSIENT;
        } else {
            kind = ApiException.Kind.PERMANENT;
        }
        return new ApiException(kind, message, e);
    }
}
