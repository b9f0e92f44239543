package io.falcon.executor.isolation;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.k8s.EdgeClusterClients;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Resolves cluster ids (all falcon.isolation carries) to clients through {@link EdgeClusterClients}. Feed it the
 * cluster registry: it is a {@code Consumer<ClusterTarget>} like ExecutorApp::watchCluster.
 */
public final class KnownClusters implements IsolationClusters, Consumer<ClusterTarget> {
    private final EdgeClusterClients clients;
    private final Map<String, ClusterTarget> targets = new ConcurrentHashMap<>();

    public KnownClusters(EdgeClusterClients clients) {
        this.clients = clients;
    }

    @Override
    public void accept(ClusterTarget target) {
        targets.put(target.clusterId(), target);
    }

    @Override
    public Set<String> known() {
        return Set.copyOf(targets.keySet());
    }

    @Override
    public Optional<KubernetesClient> client(String clusterId) {
        return Optional.ofNullable(targets.get(clusterId)).map(clients::client);
    }
}
