package io.falcon.fleetsim;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.cloud.container.v1.ClusterManagerSettings;
import com.google.container.v1.Operation;
import io.falcon.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/** Real GKE client wiring against the sim, shared by tests. */
final class GkeClients {

    private GkeClients() {}

    static ClusterManagerClient clusterManager(FleetSim sim) {
        try {
            return ClusterManagerClient.create(ClusterManagerSettings.newBuilder()
                    .setCredentialsProvider(NoCredentialsProvider.create())
                    .setTransportChannelProvider(InstantiatingGrpcChannelProvider.newBuilder()
                            .setEndpoint(sim.gkeEndpoint())
                            .setChannelConfigurator(b -> b.usePlaintext())
                            .build())
                    .build());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Operation awaitDone(ClusterManagerClient gke, String project, String location, Operation op) {
        String name = "projects/" + project + "/locations/" + location + "/operations/" + op.getName();
        return Await.valueMatching(
                "operation " + name + " DONE",
                Duration.ofSeconds(5),
                () -> gke.getOperation(name),
                o -> o.getStatus() == Operation.Status.DONE);
    }
}
