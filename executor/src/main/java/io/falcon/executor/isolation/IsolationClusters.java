package io.falcon.executor.isolation;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/** The Kubernetes client of an edge cluster by cluster id; empty while the cluster is unknown. */
@FunctionalInterface
public interface IsolationClusters {
    Optional<KubernetesClient> client(String clusterId);
}
