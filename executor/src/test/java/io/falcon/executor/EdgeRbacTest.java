package io.falcon.executor;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.fleetsim.ApiCalls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RBAC evaluation EdgeIamRoleIT relies on: namespaces, resourceNames and bindings as the API server has them. */
class EdgeRbacTest {
    private static final String USER = "exec@p.iam.gserviceaccount.com";
    private static final String MANIFEST = """
            apiVersion: rbac.authorization.k8s.io/v1
            kind: Role
            metadata: {name: r, namespace: jobs}
            rules:
              - apiGroups: ["batch"]
                resources: ["jobs"]
                verbs: ["get"]
              - apiGroups: [""]
                resources: ["configmaps"]
                resourceNames: ["cm"]
                verbs: ["get", "watch"]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: RoleBinding
            metadata: {name: r, namespace: jobs}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
            subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "%s"}]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRole
            metadata: {name: nodes}
            rules:
              - apiGroups: [""]
                resources: ["nodes"]
                verbs: ["list"]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRoleBinding
            metadata: {name: nodes}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: nodes}
            subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: someone-else}]
            """.formatted(USER);

    private static boolean allowed(List<EdgeRbac.Grant> grants, String method, String path) {
        return EdgeRbac.allowing(grants, ApiCalls.kubernetesRequest(method, path, "x"))
                .isPresent();
    }

    @Test
    void aRoleAllowsInItsBindingsNamespaceOnlyAndResourceNamesNeedANamedObject(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("rbac.yaml");
        Files.writeString(file, MANIFEST);
        List<EdgeRbac.Grant> grants = EdgeRbac.grantsOf(file, USER);

        assertThat(allowed(grants, "GET", "/apis/batch/v1/namespaces/jobs/jobs/j1"))
                .isTrue();
        assertThat(allowed(grants, "GET", "/apis/batch/v1/namespaces/kube-system/jobs/j1"))
                .as("another namespace")
                .isFalse();
        assertThat(allowed(grants, "DELETE", "/apis/batch/v1/namespaces/jobs/jobs/j1"))
                .as("a verb not granted")
                .isFalse();
        assertThat(allowed(grants, "GET", "/api/v1/namespaces/jobs/configmaps/cm"))
                .isTrue();
        assertThat(allowed(grants, "GET", "/api/v1/namespaces/jobs/configmaps/other"))
                .as("an object not named")
                .isFalse();
        assertThat(allowed(grants, "GET", "/api/v1/namespaces/jobs/configmaps?watch=true"))
                .as("a watch of every ConfigMap of the namespace")
                .isFalse();
        assertThat(allowed(
                        grants,
                        "GET",
                        "/api/v1/namespaces/jobs/configmaps?fieldSelector=metadata.name%3Dcm&watch=true"))
                .as("a watch of the named one")
                .isTrue();
        assertThat(allowed(grants, "GET", "/api/v1/nodes"))
                .as("a ClusterRole bound to another user")
                .isFalse();
    }
}
