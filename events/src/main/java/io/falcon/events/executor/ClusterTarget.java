package io.falcon.events.executor;

/** Everything the executor needs to reach an edge cluster, copied from its clusters row. */
public record ClusterTarget(
        String clusterId, String name, String project, String location, String tpuType, String gcsBucket) {

    /** The GKE resource name of the cluster. */
    public String resourceName() {
        return "projects/" + project + "/locations/" + location + "/clusters/" + name;
    }
}
