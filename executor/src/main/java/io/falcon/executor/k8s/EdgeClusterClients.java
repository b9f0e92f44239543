package io.falcon.executor.k8s;

import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.Cluster;
import com.google.container.v1.GetClusterRequest;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.OAuthTokenProvider;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.ExecutorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cached fabric8 client per edge cluster, built from GKE getCluster (endpoint + cluster CA). An endpoint that
 * already has a scheme (the simulator's http://127.0.0.1:PORT) is used as is; a bare host/IP becomes https://host
 * with the cluster CA. Authentication: a Google access token from application default credentials (Workload
 * Identity), refreshed before it expires, or none for the simulator.
 */
public final class EdgeClusterClients implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EdgeClusterClients.class);
    private static final String CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

    private final ClusterManagerClient gke;
    private final Supplier<GoogleCredentials> credentials;
    private final String namespace;
    private final Map<String, KubernetesClient> clients = new ConcurrentHashMap<>();
    private volatile OAuthTokenProvider tokenProvider;

    /** Google application default credentials (Workload Identity) for google-adc, none for the simulator. */
    public EdgeClusterClients(ClusterManagerClient gke, ExecutorConfig.Credentials credentials, String namespace) {
        this(
                gke,
                credentials == ExecutorConfig.Credentials.GOOGLE_ADC ? EdgeClusterClients::applicationDefault : null,
                namespace);
    }

    /** @param credentials where bearer tokens come from, or null for no authentication */
    public EdgeClusterClients(ClusterManagerClient gke, Supplier<GoogleCredentials> credentials, String namespace) {
        this.gke = gke;
        this.credentials = credentials;
        this.namespace = namespace;
    }

    /**
     * The client of the GKE cluster the target names (projects/P/locations/L/clusters/N), created on first use. Per
     * GKE cluster, not per clusters row: after a row moves, commands still go to the old location (the cleanup of
     * what was created there) and to the new one, each to its own API server.
     */
    public KubernetesClient client(ClusterTarget cluster) {
        return clients.computeIfAbsent(cluster.resourceName(), id -> create(cluster));
    }

    private KubernetesClient create(ClusterTarget cluster) {
        Cluster gkeCluster = gke.getCluster(
                GetClusterRequest.newBuilder().setName(cluster.resourceName()).build());
        String endpoint = gkeCluster.getEndpoint();
        if (endpoint.isEmpty()) {
            throw new IllegalStateException("GKE cluster " + cluster.resourceName() + " has no endpoint yet");
        }
        log.info("edge cluster {} ({}) at {}", cluster.clusterId(), cluster.resourceName(), endpoint);
        return build(
                endpoint,
                gkeCluster.getMasterAuth().getClusterCaCertificate(),
                credentials == null ? null : tokenProvider(),
                namespace);
    }

    /**
     * A fabric8 client on the JDK http client for an API server endpoint and its base64 PEM CA. With a token
     * provider, fabric8 asks it for the bearer token of every request, so a refreshing provider keeps long-lived
     * informers authenticated past token expiry; there are no static credentials.
     */
    static KubernetesClient build(String endpoint, String caBase64, OAuthTokenProvider tokens, String namespace) {
        ConfigBuilder config = new ConfigBuilder(Config.empty())
                .withNamespace(namespace)
                .withConnectionTimeout(10_000)
                .withRequestTimeout(30_000)
                .withWatchReconnectInterval(1_000)
                .withWatchReconnectLimit(-1);
        String masterUrl = masterUrl(endpoint);
        config.withMasterUrl(masterUrl);
        // A CA only means something for TLS; plain http (the simulator) ignores it.
        if (caBase64 != null && !caBase64.isEmpty() && masterUrl.startsWith("https://")) {
            config.withCaCertData(caBase64);
        }
        if (tokens != null) {
            config.withOauthTokenProvider(tokens);
        }
        return new KubernetesClientBuilder()
                .withHttpClientFactory(new JdkHttpClientFactory())
                .withConfig(config.build())
                .build();
    }

    /** GKE returns a bare IP (https implied); the simulator returns a full http:// URL. */
    static String masterUrl(String endpoint) {
        return endpoint.contains("://") ? endpoint : "https://" + endpoint;
    }

    private OAuthTokenProvider tokenProvider() {
        if (tokenProvider == null) {
            synchronized (this) {
                if (tokenProvider == null) {
                    tokenProvider = tokenProvider(credentials.get());
                }
            }
        }
        return tokenProvider;
    }

    static GoogleCredentials applicationDefault() {
        try {
            return GoogleCredentials.getApplicationDefault().createScoped(List.of(CLOUD_PLATFORM));
        } catch (IOException e) {
            throw new UncheckedIOException("no Google application default credentials: " + e.getMessage(), e);
        }
    }

    /** The current access token of the credentials, refreshed when it is about to expire. */
    static OAuthTokenProvider tokenProvider(GoogleCredentials creds) {
        return () -> {
            synchronized (creds) {
                try {
                    creds.refreshIfExpired();
                    return creds.getAccessToken().getTokenValue();
                } catch (IOException e) {
                    throw new UncheckedIOException("refreshing the Google access token failed: " + e.getMessage(), e);
                }
            }
        };
    }

    @Override
    public void close() {
        clients.values().forEach(KubernetesClient::close);
        clients.clear();
    }
}
