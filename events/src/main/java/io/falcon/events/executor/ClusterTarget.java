package io.falcon.events.executor;

/**
 * Everything the executor needs to reach an edge cluster, copied from its clusters row.
 *
 * @param k8sServiceAccount the Kubernetes service account the cluster's job pods run as, empty for the namespace's
 *     default; records written before it existed read as empty
 */
public record ClusterTarget(
        String clusterId,
        String name,
        String project,
        String location,
        String tpuType,
        String gcsBucket,
        java.util.Optional<String> k8sServiceAccount) {

    public ClusterTarget {
        k8sServiceAccount = k8sServiceAccount == null ? java.util.Optional.empty() : k8sServiceAccount;
    }

    /** A target whose pods run as the namespace's default service account. */
    public ClusterTarget(
            String clusterId, String name, String project, String location, String tpuType, String gcsBucket) {
        this(clusterId, name, project, location, tpuType, gcsBucket, java.util.Optional.empty());
    }

    /** The GKE resource name of the cluster. */
    public String resourceName() {
        return "projects/" + project + "/locations/" + location + "/clusters/" + name;
    }

    /**
     * Whether both name the same clusters row at the same GKE cluster (project, location, name). The other columns
     * (bucket, service account) say how jobs dispatched from now on run, not where the resources already made are:
     * an edit of them moves nothing.
     */
    public boolean sameCluster(ClusterTarget other) {
        return clusterId.equals(other.clusterId) && resourceName().equals(other.resourceName());
    }
}
