package io.falcon.executor;

import io.falcon.fleetsim.ApiCalls;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The IAM permission each GKE, Compute and Kubernetes call of the executor needs in an edge project, as Google
 * documents it; {@link EdgeIamRoleIT} checks {@code k8s/iam/edge-executor-role.yaml} against it.
 *
 * <ul>
 *   <li>GKE: https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions and each method's reference
 *       page ("Authorization requires the following IAM permission"). Node pools have no permissions of their own:
 *       creating or deleting one needs {@code container.clusters.update} on the cluster, reading or listing them
 *       {@code container.clusters.get}.
 *   <li>Compute: https://cloud.google.com/compute/docs/reference/rest/v1/ (reservations, resourcePolicies): get needs
 *       {@code .get}, list and aggregatedList {@code .list}, insert {@code .create}.
 *   <li>Kubernetes: with GKE's IAM authorization of the Kubernetes API, a verb on a resource needs {@code
 *       container.<resource>.<verb>} (patch is authorized as update); the resources the executor touches are named
 *       below. A subresource (status, log, exec) has permissions of its own and is not in the table: a call to one
 *       fails the test until it is added here and to the role.
 * </ul>
 */
final class EdgeIamPermissions {
    private EdgeIamPermissions() {}

    private static final String GKE = "google.container.v1.ClusterManager/";

    private static final Map<String, String> GKE_METHODS = Map.of(
            GKE + "GetCluster", "container.clusters.get",
            GKE + "GetNodePool", "container.clusters.get",
            GKE + "ListNodePools", "container.clusters.get",
            GKE + "CreateNodePool", "container.clusters.update",
            GKE + "DeleteNodePool", "container.clusters.update",
            GKE + "GetOperation", "container.operations.get",
            GKE + "ListOperations", "container.operations.list");

    /** HTTP method and path template (as fleet-sim's ApiCalls writes it) to permission. */
    private static final Map<String, String> COMPUTE_CALLS = Map.of(
            "GET projects/{project}/zones/{zone}/reservations/{resource}", "compute.reservations.get",
            "GET projects/{project}/zones/{zone}/reservations", "compute.reservations.list",
            "GET projects/{project}/aggregated/reservations", "compute.reservations.list",
            "GET projects/{project}/regions/{region}/resourcePolicies/{resource}", "compute.resourcePolicies.get",
            "POST projects/{project}/regions/{region}/resourcePolicies", "compute.resourcePolicies.create",
            // the insert's pending operation, polled until DONE
            "GET projects/{project}/regions/{region}/operations/{resource}", "compute.regionOperations.get");

    /** Kubernetes [group/]resource to the noun of its GKE IAM permissions. */
    private static final Map<String, String> KUBERNETES_RESOURCES = Map.of(
            "batch/jobs", "jobs",
            "pods", "pods",
            "services", "services",
            "nodes", "nodes",
            "configmaps", "configMaps");

    private static final Set<String> KUBERNETES_VERBS = Set.of("get", "list", "watch", "create", "update", "delete");

    /**
     * Permissions the role holds for calls this test cannot make yet, each with the reason. Ironwood (TPU7x)
     * multi-host pools get a Compute workload policy: the executor reads it (resourcePolicies.get), creates it when
     * missing (resourcePolicies.insert, regional) and names it in the node pool's placement policy, which needs
     * resourcePolicies.use on it when GKE creates the pool.
     */
    static final Map<String, String> NEEDED_NOT_EXERCISED = Map.of(
            "compute.resourcePolicies.use",
            "Ironwood workload policy: named by the TPU7x multi-host node pool (placementPolicy.policyName)");

    /**
     * Permissions deliberately not in the role, with the reason; the test fails if one appears there. {@code
     * iam.serviceAccounts.actAs} is needed only to set a service account on the nodes (GKE's node pool docs: the
     * caller must be a Service Account User of it); NodePoolSpec sets none (the nodes run as the cluster's default
     * node service account), which EdgeIamRoleIT checks on the pool spec of every supply mode and shape.
     */
    static final Map<String, String> NOT_NEEDED = Map.of(
            "iam.serviceAccounts.actAs",
            "node pools set no config.serviceAccount",
            "container.clusters.getCredentials",
            "the executor reads the endpoint and CA certificate (clusters.get) and signs in with its own Google token",
            "container.secrets.get",
            "the executor reads no Secrets");

    /** The permission a call needs, or empty if the table does not know the call (the test then fails naming it). */
    static Optional<String> permissionFor(ApiCalls.Call call) {
        return switch (call.api()) {
            case GKE -> Optional.ofNullable(GKE_METHODS.get(call.method()));
            case COMPUTE -> Optional.ofNullable(COMPUTE_CALLS.get(call.method() + " " + call.resource()));
            case KUBERNETES -> {
                String noun = KUBERNETES_RESOURCES.get(call.resource());
                String verb = call.method().equals("patch") ? "update" : call.method();
                yield noun == null || !KUBERNETES_VERBS.contains(verb)
                        ? Optional.empty()
                        : Optional.of("container." + noun + "." + verb);
            }
        };
    }
}
