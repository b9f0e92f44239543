package io.falcon.executor.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.gke.EdgeView;
import java.util.List;

/** EdgeView over the cached fabric8 client of each edge cluster. */
public final class KubernetesEdgeView implements EdgeView {
    public static final String NODE_POOL_LABEL = "cloud.google.com/gke-nodepool";

    private final EdgeClusterClients clusters;
    private final String namespace;

    public KubernetesEdgeView(EdgeClusterClients clusters, String namespace) {
        this.clusters = clusters;
        this.namespace = namespace;
    }

    @Override
    public NodeCount nodes(ClusterTarget cluster, String pool) {
        return count(clusters.client(cluster).nodes().withLabel(NODE_POOL_LABEL, pool).list().getItems());
    }

    /** Registered = listed; ready = condition Ready=True (pure). */
    static NodeCount count(List<Node> nodes) {
        int ready = 0;
        for (Node node : nodes) {
            if (node.getMetadata().getDeletionTimestamp() == null && node.getStatus() != null
                    && node.getStatus().getConditions() != null) {
                for (NodeCondition c : node.getStatus().getConditions()) {
                    if ("Ready".equals(c.getType()) && "True".equals(c.getStatus())) {
                        ready++;
                        break;
                    }
                }
            }
        }
        return new NodeCount(nodes.size(), ready);
    }

    @Override
    public boolean hasJob(ClusterTarget cluster, String falconJobLabel) {
        return !clusters.client(cluster).batch().v1().jobs().inNamespace(namespace)
                .withLabel(FalconLabels.MANAGED_BY, FalconLabels.MANAGED_BY_VALUE)
                .withLabel(FalconLabels.JOB, falconJobLabel)
                .list().getItems().isEmpty();
    }
}
