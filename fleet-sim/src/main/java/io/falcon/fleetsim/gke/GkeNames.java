package io.falcon.fleetsim.gke;

import io.grpc.Status;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses v1 resource names. Requests may carry either the {@code name}/{@code parent} field or the deprecated
 * projectId/zone/clusterId/... fields; both are accepted.
 */
final class GkeNames {

    private static final Pattern CLUSTER = Pattern.compile("^projects/([^/]+)/locations/([^/]+)/clusters/([^/]+)$");
    private static final Pattern POOL =
            Pattern.compile("^projects/([^/]+)/locations/([^/]+)/clusters/([^/]+)/nodePools/([^/]+)$");
    private static final Pattern LOCATION = Pattern.compile("^projects/([^/]+)/locations/([^/]+)$");
    private static final Pattern OPERATION = Pattern.compile("^projects/([^/]+)/locations/([^/]+)/operations/([^/]+)$");

    private GkeNames() {}

    record PoolName(ClusterRef cluster, String pool) {}

    record OperationName(String project, String location, String operation) {
        String path() {
            return "projects/" + project + "/locations/" + location + "/operations/" + operation;
        }
    }

    static ClusterRef cluster(String name, String projectId, String zone, String clusterId) {
        if (!name.isEmpty()) {
            Matcher m = match(CLUSTER, name, "cluster");
            return new ClusterRef(m.group(1), m.group(2), m.group(3));
        }
        require(projectId, "projectId");
        require(zone, "zone");
        require(clusterId, "clusterId");
        return new ClusterRef(projectId, zone, clusterId);
    }

    static PoolName pool(String name, String projectId, String zone, String clusterId, String nodePoolId) {
        if (!name.isEmpty()) {
            Matcher m = match(POOL, name, "node pool");
            return new PoolName(new ClusterRef(m.group(1), m.group(2), m.group(3)), m.group(4));
        }
        require(nodePoolId, "nodePoolId");
        return new PoolName(cluster("", projectId, zone, clusterId), nodePoolId);
    }

    /** Returns {project, location} of a {@code projects/p/locations/l} parent ("-" = all locations). */
    static String[] location(String parent, String projectId, String zone) {
        if (!parent.isEmpty()) {
            Matcher m = match(LOCATION, parent, "parent");
            return new String[] {m.group(1), m.group(2)};
        }
        require(projectId, "projectId");
        return new String[] {projectId, zone.isEmpty() ? "-" : zone};
    }

    static OperationName operation(String name, String projectId, String zone, String operationId) {
        if (!name.isEmpty()) {
            Matcher m = match(OPERATION, name, "operation");
            return new OperationName(m.group(1), m.group(2), m.group(3));
        }
        require(projectId, "projectId");
        require(zone, "zone");
        require(operationId, "operationId");
        return new OperationName(projectId, zone, operationId);
    }

    private static Matcher match(Pattern pattern, String value, String what) {
        Matcher m = pattern.matcher(value);
        if (!m.matches()) {
            throw Status.INVALID_ARGUMENT
                    .withDescription("Invalid " + what + " name: \"" + value + "\".")
                    .asRuntimeException();
        }
        return m;
    }

    private static void require(String value, String field) {
        if (value.isEmpty()) {
            throw Status.INVALID_ARGUMENT
                    .withDescription("Required field '" + field + "' is missing.")
                    .asRuntimeException();
        }
    }
}
