package io.falcon.executor.gke;

import io.falcon.events.executor.ClusterTarget;

/** What the node-pool manager needs to know from an edge cluster's Kubernetes API. */
public interface EdgeView {
    /** Nodes of a pool that have registered with the cluster, and how many of them are Ready. */
    record NodeCount(int registered, int ready) {
    }

    /** Counts the nodes labelled cloud.google.com/gke-nodepool=pool. */
    NodeCount nodes(ClusterTarget cluster, String pool);

    /** Whether a Falcon Job (managed-by=falcon) with this falcon-job label exists in the cluster. */
    boolean hasJob(ClusterTarget cluster, String falconJobLabel);
}
