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
    private final Map<String, Resolved> clients = new ConcurrentHashMap<>();
    private volatile OAuthTokenProvider tokenProvider;
    /** Per GKE cluster, when getCluster was last asked again: at most once per refresh interval. */
    private final Map<String, java.time.Instant> refreshed = new ConcurrentHashMap<>();

    private final java.time.Duration refreshInterval;
    private final java.time.Clock clock;
    private final List<java.util.function.BiConsumer<ClusterTarget, Refresh>> listeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    /** A client and what it was built from. */
    private record Resolved(KubernetesClient client, String endpoint, String ca, String gkeId) {}

    /** What asking GKE again found. */
    public enum Refresh {
        /** The same endpoint, CA and cluster (or nothing learnt: asked too recently, or no answer). */
        UNCHANGED,
        /** The same cluster at another endpoint or with another CA: a new client. */
        MOVED,
        /** A cluster of that name with another id: it was deleted and created again; a new client. */
        RECREATED,
        /** getCluster answers NOT_FOUND: the cluster is deleted; its client is closed. */
        GONE
    }

    /** Default interval between two getCluster calls for the same cluster when its API server does not answer. */
    public static final java.time.Duration REFRESH_INTERVAL = java.time.Duration.ofSeconds(10);

    /** Google application default credentials (Workload Identity) for google-adc, none for the simulator. */
    public EdgeClusterClients(ClusterManagerClient gke, ExecutorConfig.Credentials credentials, String namespace) {
        this(
                gke,
                credentials == ExecutorConfig.Credentials.GOOGLE_ADC ? EdgeClusterClients::applicationDefault : null,
                namespace);
    }

    /** @param credentials where bearer tokens come from, or null for no authentication */
    public EdgeClusterClients(ClusterManagerClient gke, Supplier<GoogleCredentials> credentials, String namespace) {
        this(gke, credentials, namespace, REFRESH_INTERVAL, java.time.Clock.systemUTC());
    }

    /** @param refreshInterval at most one getCluster per cluster this often when its API server does not answer */
    public EdgeClusterClients(
            ClusterManagerClient gke,
            Supplier<GoogleCredentials> credentials,
            String namespace,
            java.time.Duration refreshInterval,
            java.time.Clock clock) {
        this.gke = gke;
        this.credentials = credentials;
        this.namespace = namespace;
        this.refreshInterval = refreshInterval;
        this.clock = clock;
    }

    /** Told of every refresh that changed something (MOVED, RECREATED, GONE), after the new client is in place. */
    public void onChange(java.util.function.BiConsumer<ClusterTarget, Refresh> listener) {
        listeners.add(listener);
    }

    /**
     * The client of the GKE cluster the target names (projects/P/locations/L/clusters/N), created on first use. Per
     * GKE cluster, not per clusters row: after a row moves, commands still go to the old location (the cleanup of
     * what was created there) and to the new one, each to its own API server.
     */
    public KubernetesClient client(ClusterTarget cluster) {
        return clients.computeIfAbsent(cluster.resourceName(), id -> create(cluster, getCluster(cluster)))
                .client();
    }

    /**
     * The cluster's API server did not answer, or refused the credentials: asks GKE where it is now (at most once
     * per refresh interval per cluster). A control plane that moved or rotated its CA gets a new client; a cluster
     * deleted (NOT_FOUND) loses its client, so that the next use asks GKE again and a cluster created again under
     * the name is found; a cluster with another id was deleted and created again. Listeners hear of each change
     * after it is made. Any other answer of GKE changes nothing.
     */
    public Refresh refresh(ClusterTarget cluster) {
        String key = cluster.resourceName();
        Refresh outcome = Refresh.UNCHANGED;
        KubernetesClient retired = null;
        synchronized (lockOf(key)) {
            java.time.Instant now = clock.instant();
            java.time.Instant last = refreshed.get(key);
            if (last != null && now.isBefore(last.plus(refreshInterval))) {
                return Refresh.UNCHANGED;
            }
            refreshed.put(key, now);
            Cluster found;
            try {
                found = getCluster(cluster);
            } catch (RuntimeException e) {
                if (!io.falcon.executor.gke.GkeErrors.is(e, com.google.api.gax.rpc.StatusCode.Code.NOT_FOUND)) {
                    log.warn("edge cluster {}: asking GKE where it is failed: {}", key, e.getMessage());
                    return Refresh.UNCHANGED;
                }
                Resolved gone = clients.remove(key);
                retired = gone == null ? null : gone.client();
                log.warn("edge cluster {} ({}) is gone: GKE answers NOT_FOUND", cluster.clusterId(), key);
                outcome = Refresh.GONE;
                found = null;
            }
            if (found != null) {
                Resolved current = clients.get(key);
                if (current == null) {
                    clients.put(key, create(cluster, found));
                    return Refresh.UNCHANGED;
                }
                String ca = found.getMasterAuth().getClusterCaCertificate();
                boolean recreated = !found.getId().isEmpty()
                        && !current.gkeId().isEmpty()
                        && !found.getId().equals(current.gkeId());
                if (!recreated && found.getEndpoint().equals(current.endpoint()) && ca.equals(current.ca())) {
                    return Refresh.UNCHANGED;
                }
                clients.put(key, create(cluster, found));
                retired = current.client();
                outcome = recreated ? Refresh.RECREATED : Refresh.MOVED;
                log.warn(
                        "edge cluster {} ({}) {}: now at {}",
                        cluster.clusterId(),
                        key,
                        recreated ? "was deleted and created again" : "moved or rotated its CA",
                        found.getEndpoint());
            }
        }
        for (var listener : listeners) {
            try {
                listener.accept(cluster, outcome);
            } catch (RuntimeException e) {
                log.error("edge cluster {}: a listener of its {} failed", key, outcome, e);
            }
        }
        if (retired != null) {
            retired.close();
        }
        return outcome;
    }

    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    private Object lockOf(String key) {
        return locks.computeIfAbsent(key, k -> new Object());
    }

    private Cluster getCluster(ClusterTarget cluster) {
        return gke.getCluster(
                GetClusterRequest.newBuilder().setName(cluster.resourceName()).build());
    }

    private Resolved create(ClusterTarget cluster, Cluster gkeCluster) {
        String endpoint = gkeCluster.getEndpoint();
        if (endpoint.isEmpty()) {
            throw new IllegalStateException("GKE cluster " + cluster.resourceName() + " has no endpoint yet");
        }
        log.info("edge cluster {} ({}) at {}", cluster.clusterId(), cluster.resourceName(), endpoint);
        String ca = gkeCluster.getMasterAuth().getClusterCaCertificate();
        return new Resolved(
                build(endpoint, ca, credentials == null ? null : tokenProvider(), namespace),
                endpoint,
                ca,
                gkeCluster.getId());
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
                .withWatchReconnectLimit(-1)
                // a few quick retries of a request (an API server briefly overloaded); not fabric8's default ten,
                // whose backoff held a command for minutes against an endpoint that had moved or gone, before
                // GKE could be asked where the cluster is now
                .withRequestRetryBackoffLimit(3)
                .withRequestRetryBackoffInterval(100);
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
        clients.values().forEach(r -> r.client().close());
        clients.clear();
    }
}
