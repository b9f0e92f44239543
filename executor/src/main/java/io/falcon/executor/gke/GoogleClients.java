package io.falcon.executor.gke;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.cloud.compute.v1.ReservationsClient;
import com.google.cloud.compute.v1.ReservationsSettings;
import com.google.cloud.compute.v1.ResourcePoliciesClient;
import com.google.cloud.compute.v1.ResourcePoliciesSettings;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.cloud.container.v1.ClusterManagerSettings;
import io.falcon.executor.ExecutorConfig;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;

/** GKE and Compute clients per the configuration: the real endpoints with ADC, or the simulator's. */
public final class GoogleClients {
    private GoogleClients() {}

    public static ClusterManagerClient clusterManager(ExecutorConfig config) {
        try {
            ClusterManagerSettings.Builder settings =
                    ClusterManagerSettings.newBuilder().setEndpoint(config.gkeEndpoint());
            if (config.gkePlaintext()) {
                settings.setTransportChannelProvider(ClusterManagerSettings.defaultGrpcTransportProviderBuilder()
                        .setEndpoint(config.gkeEndpoint())
                        .setChannelConfigurator(ManagedChannelBuilder::usePlaintext)
                        .build());
            }
            if (config.credentials() == ExecutorConfig.Credentials.NONE) {
                settings.setCredentialsProvider(NoCredentialsProvider.create());
            }
            return ClusterManagerClient.create(settings.build());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the GKE client for " + config.gkeEndpoint(), e);
        }
    }

    public static ResourcePoliciesClient resourcePolicies(ExecutorConfig config) {
        try {
            ResourcePoliciesSettings.Builder settings =
                    ResourcePoliciesSettings.newBuilder().setEndpoint(config.computeEndpoint());
            if (config.credentials() == ExecutorConfig.Credentials.NONE) {
                settings.setCredentialsProvider(NoCredentialsProvider.create());
            }
            return ResourcePoliciesClient.create(settings.build());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the Compute client for " + config.computeEndpoint(), e);
        }
    }

    public static ReservationsClient reservations(ExecutorConfig config) {
        try {
            ReservationsSettings.Builder settings =
                    ReservationsSettings.newBuilder().setEndpoint(config.computeEndpoint());
            if (config.credentials() == ExecutorConfig.Credentials.NONE) {
                settings.setCredentialsProvider(NoCredentialsProvider.create());
            }
            return ReservationsClient.create(settings.build());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the Compute client for " + config.computeEndpoint(), e);
        }
    }
}
