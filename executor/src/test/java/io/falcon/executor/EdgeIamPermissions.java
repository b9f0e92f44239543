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
 *   <li>Kubernetes: GKE's IAM authorization of the Kubernetes API would need {@code container.<resource>.<verb>},
 *       granted in every namespace of every cluster of the project. The role holds none of these: the edge clusters'
 *       objects are granted per namespace by Kubernetes RBAC ({@code k8s/edge/executor-rbac.yaml}, checked by {@link
 *       EdgeRbac}). {@link #isKubernetesObjectPermission} tells such permissions apart, so the test can refuse them.
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

    /**
     * The nouns of GKE's IAM permissions for Kubernetes objects ({@code container.<noun>.<verb>}); the GKE API's own
     * nouns (clusters, operations) are not among them.
     */
    private static final Set<String> KUBERNETES_NOUNS = Set.of(
            "jobs",
            "pods",
            "services",
            "nodes",
            "configMaps",
            "secrets",
            "deployments",
            "namespaces",
            "roles",
            "roleBindings",
            "clusterRoles",
            "clusterRoleBindings",
            "serviceAccounts",
            "events",
            "cronJobs");

    /** Whether the permission is GKE's IAM authorization of a Kubernetes object, which the role must not hold. */
    static boolean isKubernetesObjectPermission(String permission) {
        String[] parts = permission.split("\\.");
        return parts.length == 3 && parts[0].equals("container") && KUBERNETES_NOUNS.contains(parts[1]);
    }

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
            "the executor reads no Secrets",
            "container.jobs.create",
            "Kubernetes objects are granted per namespace by k8s/edge/executor-rbac.yaml, not project-wide by IAM");

    /**
     * The IAM permission a GKE or Compute call needs, or empty if the table does not know the call (the test then
     * fails naming it). Kubernetes calls are authorized by RBAC: see {@link EdgeRbac}.
     */
    static Optional<String> permissionFor(ApiCalls.Call call) {
        return switch (call.api()) {
            case GKE -> Optional.ofNullable(GKE_METHODS.get(call.method()));
            case COMPUTE -> Optional.ofNullable(COMPUTE_CALLS.get(call.method() + " " + call.resource()));
            case KUBERNETES -> Optional.empty();
        };
    }
}
