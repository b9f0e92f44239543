package io.falcon.executor.isolation;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;
import java.util.Set;

/** The Kubernetes client of an edge cluster by cluster id; empty while the cluster is unknown. */
@FunctionalInterface
public interface IsolationClusters {
    Optional<KubernetesClient> client(String clusterId);

    /**
     * The cluster ids known now, whose ConfigMaps are watched even before Falcon isolates anything there (what others
     * listed counts in fault-streams' isolation budget). None by default: watched from their first isolation.
     */
    default Set<String> known() {
        return Set.of();
    }
}
