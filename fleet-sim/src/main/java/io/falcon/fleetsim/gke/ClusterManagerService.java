package io.falcon.fleetsim.gke;

import com.google.container.v1.CancelOperationRequest;
import com.google.container.v1.Cluster;
import com.google.container.v1.ClusterManagerGrpc;
import com.google.container.v1.CreateNodePoolRequest;
import com.google.container.v1.DeleteNodePoolRequest;
import com.google.container.v1.GetClusterRequest;
import com.google.container.v1.GetNodePoolRequest;
import com.google.container.v1.GetOperationRequest;
import com.google.container.v1.ListClustersRequest;
import com.google.container.v1.ListClustersResponse;
import com.google.container.v1.ListNodePoolsRequest;
import com.google.container.v1.ListNodePoolsResponse;
import com.google.container.v1.ListOperationsRequest;
import com.google.container.v1.ListOperationsResponse;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import com.google.protobuf.Empty;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** gRPC face of {@link GkeFleet}; every other ClusterManager method answers UNIMPLEMENTED. */
final class ClusterManagerService extends ClusterManagerGrpc.ClusterManagerImplBase {

    private static final Logger log = LoggerFactory.getLogger(ClusterManagerService.class);

    private final GkeFleet fleet;

    ClusterManagerService(GkeFleet fleet) {
        this.fleet = fleet;
    }

    @Override
    public void listClusters(ListClustersRequest request, StreamObserver<ListClustersResponse> out) {
        answer("listClusters", out, () -> {
            String[] loc = GkeNames.location(request.getParent(), request.getProjectId(), request.getZone());
            return ListClustersResponse.newBuilder()
                    .addAllClusters(fleet.listClusters(loc[0], loc[1]))
                    .build();
        });
    }

    @Override
    public void getCluster(GetClusterRequest request, StreamObserver<Cluster> out) {
        answer(
                "getCluster",
                out,
                () -> fleet.getCluster(GkeNames.cluster(
                        request.getName(), request.getProjectId(), request.getZone(), request.getClusterId())));
    }

    @Override
    public void listNodePools(ListNodePoolsRequest request, StreamObserver<ListNodePoolsResponse> out) {
        answer(
                "listNodePools",
                out,
                () -> ListNodePoolsResponse.newBuilder()
                        .addAllNodePools(fleet.listNodePools(GkeNames.cluster(
                                request.getParent(),
                                request.getProjectId(),
                                request.getZone(),
                                request.getClusterId())))
                        .build());
    }

    @Override
    public void getNodePool(GetNodePoolRequest request, StreamObserver<NodePool> out) {
        answer("getNodePool", out, () -> {
            GkeNames.PoolName name = GkeNames.pool(
                    request.getName(),
                    request.getProjectId(),
                    request.getZone(),
                    request.getClusterId(),
                    request.getNodePoolId());
            return fleet.getNodePool(name.cluster(), name.pool());
        });
    }

    @Override
    public void createNodePool(CreateNodePoolRequest request, StreamObserver<Operation> out) {
        answer(
                "createNodePool",
                out,
                () -> fleet.createNodePool(
                        GkeNames.cluster(
                                request.getParent(), request.getProjectId(), request.getZone(), request.getClusterId()),
                        request.getNodePool()));
    }

    @Override
    public void deleteNodePool(DeleteNodePoolRequest request, StreamObserver<Operation> out) {
        answer("deleteNodePool", out, () -> {
            GkeNames.PoolName name = GkeNames.pool(
                    request.getName(),
                    request.getProjectId(),
                    request.getZone(),
                    request.getClusterId(),
                    request.getNodePoolId());
            return fleet.deleteNodePool(name.cluster(), name.pool());
        });
    }

    @Override
    public void getOperation(GetOperationRequest request, StreamObserver<Operation> out) {
        answer(
                "getOperation",
                out,
                () -> fleet.getOperation(GkeNames.operation(
                        request.getName(), request.getProjectId(), request.getZone(), request.getOperationId())));
    }

    @Override
    public void listOperations(ListOperationsRequest request, StreamObserver<ListOperationsResponse> out) {
        answer("listOperations", out, () -> {
            String[] loc = GkeNames.location(request.getParent(), request.getProjectId(), request.getZone());
            return ListOperationsResponse.newBuilder()
                    .addAllOperations(fleet.listOperations(loc[0], loc[1]))
                    .build();
        });
    }

    @Override
    public void cancelOperation(CancelOperationRequest request, StreamObserver<Empty> out) {
        answer("cancelOperation", out, () -> {
            fleet.cancelOperation(GkeNames.operation(
                    request.getName(), request.getProjectId(), request.getZone(), request.getOperationId()));
            return Empty.getDefaultInstance();
        });
    }

    private static <T> void answer(String method, StreamObserver<T> out, Supplier<T> call) {
        T result;
        try {
            result = call.get();
        } catch (StatusRuntimeException e) {
            log.debug("GKE sim {} -> {}", method, e.getStatus());
            out.onError(e);
            return;
        } catch (RuntimeException e) {
            log.error("GKE sim {} failed", method, e);
            out.onError(Status.INTERNAL
                    .withDescription("fleet-sim: " + e)
                    .withCause(e)
                    .asRuntimeException());
            return;
        }
        out.onNext(result);
        out.onCompleted();
    }
}
