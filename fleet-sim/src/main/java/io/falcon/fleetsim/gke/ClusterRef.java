package io.falcon.fleetsim.gke;

/** A GKE cluster by its v1 resource name {@code projects/{project}/locations/{location}/clusters/{name}}. */
public record ClusterRef(String project, String location, String name) {

    public String path() {
        return "projects/" + project + "/locations/" + location + "/clusters/" + name;
    }

    public String nodePoolPath(String pool) {
        return path() + "/nodePools/" + pool;
    }

    @Override
    public String toString() {
        return path();
    }
}
