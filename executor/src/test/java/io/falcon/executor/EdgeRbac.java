package io.falcon.executor;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.falcon.fleetsim.ApiCalls.KubernetesRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Kubernetes RBAC as the API server evaluates it, for the edge executor's manifest ({@code
 * k8s/edge/executor-rbac.yaml}): which rules are bound to a user, and whether one allows a request. A Role's rules
 * apply in its RoleBinding's namespace only; a ClusterRole bound by a ClusterRoleBinding applies everywhere. A rule
 * allows a request when its API groups, resources and verbs name the request's (no wildcards are used or accepted)
 * and its resourceNames, if any, name the request's object: a request that names none (a create, a list without a
 * metadata.name selector) is not allowed by a rule with resourceNames.
 */
final class EdgeRbac {
    private EdgeRbac() {}

    /** One rule bound to the user, with the namespace it applies in ("" = every namespace and cluster scope). */
    record Grant(String role, String namespace, PolicyRule rule) {
        boolean allows(KubernetesRequest request) {
            if (!namespace.isEmpty() && !namespace.equals(request.namespace())) {
                return false;
            }
            return rule.getApiGroups().contains(request.group())
                    && rule.getResources().contains(request.plural())
                    && rule.getVerbs().contains(request.verb())
                    && (rule.getResourceNames().isEmpty()
                            || (!request.name().isEmpty()
                                    && rule.getResourceNames().contains(request.name())));
        }

        @Override
        public String toString() {
            return role + (namespace.isEmpty() ? "" : " in " + namespace) + ": " + rule.getApiGroups() + " "
                    + rule.getResources() + " " + rule.getVerbs()
                    + (rule.getResourceNames().isEmpty() ? "" : " names " + rule.getResourceNames());
        }
    }

    /** The rules of the manifest bound to the user. */
    static List<Grant> grantsOf(Path manifest, String user) throws IOException {
        List<HasMetadata> objects;
        try (KubernetesClient kubernetes = new KubernetesClientBuilder().build();
                InputStream in = Files.newInputStream(manifest)) {
            objects = kubernetes.load(in).items();
        }
        List<Grant> grants = new ArrayList<>();
        for (HasMetadata object : objects) {
            if (object instanceof RoleBinding binding && boundTo(binding.getSubjects(), user)) {
                String namespace = binding.getMetadata().getNamespace();
                rules(objects, binding.getRoleRef(), namespace)
                        .forEach(rule ->
                                grants.add(new Grant(binding.getRoleRef().getName(), namespace, rule)));
            } else if (object instanceof ClusterRoleBinding binding && boundTo(binding.getSubjects(), user)) {
                rules(objects, binding.getRoleRef(), "")
                        .forEach(rule ->
                                grants.add(new Grant(binding.getRoleRef().getName(), "", rule)));
            }
        }
        return grants;
    }

    /** The first grant that allows the request. */
    static Optional<Grant> allowing(List<Grant> grants, KubernetesRequest request) {
        return grants.stream().filter(g -> g.allows(request)).findFirst();
    }

    private static boolean boundTo(List<Subject> subjects, String user) {
        return subjects.stream()
                .anyMatch(s -> s.getKind().equals("User") && s.getName().equals(user));
    }

    /** The rules of the role a binding names (a RoleBinding may name a Role of its namespace or a ClusterRole). */
    private static List<PolicyRule> rules(List<HasMetadata> objects, RoleRef ref, String namespace) {
        for (HasMetadata object : objects) {
            if (ref.getKind().equals("Role")
                    && object instanceof Role role
                    && role.getMetadata().getName().equals(ref.getName())
                    && role.getMetadata().getNamespace().equals(namespace)) {
                return role.getRules();
            }
            if (ref.getKind().equals("ClusterRole")
                    && object instanceof ClusterRole role
                    && role.getMetadata().getName().equals(ref.getName())) {
                return role.getRules();
            }
        }
        throw new AssertionError("binding names " + ref.getKind() + " " + ref.getName() + ", which is not in the file");
    }
}
