package io.falcon.fleetsim;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * Every kind of call fleet-sim served, per caller: the GKE gRPC method, the Compute REST method and path template, the
 * Kubernetes verb and resource. It exists so that a test can derive the IAM permissions a client needs from what the
 * client really asked for (the executor's custom role, {@code k8s/iam/edge-executor-role.yaml}), instead of from a
 * list kept by hand next to the code.
 *
 * <p>Only distinct calls are kept, each with a count, so a long demo run does not grow it. The caller is the request's
 * {@code User-Agent}; fleet-sim's own Kubernetes client (the Job/Pod simulator, node registration, tests seeding the
 * cluster through {@link FleetSim#kubernetesClient}) sends {@link #SIM_USER_AGENT}, so its calls can be told apart.
 */
public final class ApiCalls {

    /** The User-Agent of fleet-sim's own Kubernetes clients. */
    public static final String SIM_USER_AGENT = "fleet-sim";

    /** Which of the sim's servers answered. */
    public enum Api {
        /** GKE ClusterManager gRPC; method = full gRPC method name, resource = "". */
        GKE,
        /** Compute REST; method = HTTP method, resource = path template such as projects/{project}/zones/{zone}/... */
        COMPUTE,
        /** A cluster's Kubernetes API; method = Kubernetes verb, resource = [group/]resource[/subresource]. */
        KUBERNETES
    }

    /**
     * One kind of call.
     *
     * @param caller the User-Agent, "" when the request had none
     */
    public record Call(Api api, String method, String resource, String caller) {
        /** The call without its caller: what an IAM permission is granted for. */
        public String operation() {
            return resource.isEmpty() ? api + " " + method : api + " " + method + " " + resource;
        }

        @Override
        public String toString() {
            return operation() + " (by " + caller + ")";
        }
    }

    /**
     * A Kubernetes API request as RBAC authorizes it.
     *
     * @param verb get, list, watch, create, update, patch, delete, deletecollection
     * @param resource {@code [group/]plural[/subresource]}, or {@code nonResourceURL:<path>}
     * @param namespace the request's namespace, "" for a cluster-scoped resource or all namespaces
     * @param name the object named by the path, or by a {@code metadata.name} field selector of a list or watch (RBAC's
     *     resourceNames apply to both); "" when none is named (a create, a collection)
     * @param caller the User-Agent, "" when the request had none
     */
    public record KubernetesRequest(String verb, String resource, String namespace, String name, String caller) {
        /** The API group of the resource ("" for the core group). */
        public String group() {
            int slash = resource.indexOf('/');
            return slash < 0 || resource.startsWith("nonResourceURL:") ? "" : resource.substring(0, slash);
        }

        /** The resource without its group, as an RBAC rule names it ({@code jobs}, {@code pods/log}). */
        public String plural() {
            String withoutGroup = group().isEmpty() ? resource : resource.substring(group().length() + 1);
            return withoutGroup;
        }
    }

    private final Map<Call, LongAdder> calls = new ConcurrentHashMap<>();
    private final Set<KubernetesRequest> kubernetes = ConcurrentHashMap.newKeySet();

    public void add(Api api, String method, String resource, String caller) {
        calls.computeIfAbsent(new Call(api, method, resource, caller == null ? "" : caller), c -> new LongAdder())
                .increment();
    }

    /** A Kubernetes API server request: noted as a {@link Call} and as a {@link KubernetesRequest}. */
    public void addKubernetes(String httpMethod, String pathAndQuery, String caller) {
        KubernetesRequest request = kubernetesRequest(httpMethod, pathAndQuery, caller == null ? "" : caller);
        add(Api.KUBERNETES, request.verb(), request.resource(), request.caller());
        kubernetes.add(request);
    }

    /** The distinct Kubernetes requests of the callers whose User-Agent matches. */
    public List<KubernetesRequest> kubernetesRequests(Predicate<String> caller) {
        return kubernetes.stream().filter(r -> caller.test(r.caller())).toList();
    }

    /** The distinct calls served so far. */
    public List<Call> distinct() {
        return List.copyOf(calls.keySet());
    }

    /** The distinct calls of the callers whose User-Agent matches. */
    public List<Call> by(Predicate<String> caller) {
        return calls.keySet().stream().filter(c -> caller.test(c.caller())).toList();
    }

    /** How often a call was served (0 if never). */
    public long count(Call call) {
        LongAdder n = calls.get(call);
        return n == null ? 0 : n.sum();
    }

    /** Forgets everything (a test that wants to look at one phase only). */
    public void clear() {
        calls.clear();
        kubernetes.clear();
    }

    /**
     * The Kubernetes verb and resource of an API server request, as RBAC and GKE's IAM see it: {@code GET} of a named
     * object is get, of a collection list (watch with {@code watch=true}/{@code watch=1}, or under the old {@code
     * /watch/} prefix), {@code POST} create, {@code PUT} update, {@code PATCH} patch, {@code DELETE} delete (of a
     * collection deletecollection). The resource is {@code [group/]plural[/subresource]}, e.g. {@code batch/jobs},
     * {@code configmaps}, {@code pods/log}. Anything else (discovery, {@code /version}) is {@code nonResourceURL} with
     * the path as resource.
     */
    public static String[] kubernetesVerbAndResource(String httpMethod, String pathAndQuery) {
        KubernetesRequest request = kubernetesRequest(httpMethod, pathAndQuery, "");
        return new String[] {request.verb(), request.resource()};
    }

    /** The request as RBAC sees it; see {@link #kubernetesVerbAndResource} for verb and resource. */
    public static KubernetesRequest kubernetesRequest(String httpMethod, String pathAndQuery, String caller) {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        String query = q < 0 ? "" : pathAndQuery.substring(q + 1);
        String[] all = java.util.Arrays.stream(path.split("/"))
                .filter(s -> !s.isEmpty())
                .toArray(String[]::new);
        int start;
        String group;
        if (all.length >= 2 && all[0].equals("api")) {
            group = "";
            start = 2;
        } else if (all.length >= 3 && all[0].equals("apis")) {
            group = all[1];
            start = 3;
        } else {
            return nonResource(httpMethod, path, caller);
        }
        List<String> rest = new java.util.ArrayList<>(List.of(all).subList(start, all.length));
        boolean watchPrefix = !rest.isEmpty() && rest.get(0).equals("watch");
        if (watchPrefix) {
            rest.remove(0);
        }
        String namespace = "";
        if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
            namespace = rest.get(1);
            rest = rest.subList(2, rest.size()); // the namespace of a namespaced object
        }
        if (rest.isEmpty()) {
            return nonResource(httpMethod, path, caller);
        }
        String resource =
                (group.isEmpty() ? "" : group + "/") + rest.get(0) + (rest.size() >= 3 ? "/" + rest.get(2) : "");
        boolean named = rest.size() >= 2;
        List<String> parameters = List.of(query.split("&"));
        boolean watch = watchPrefix || parameters.contains("watch=true") || parameters.contains("watch=1");
        String verb = switch (httpMethod.toUpperCase(java.util.Locale.ROOT)) {
            case "GET" -> watch ? "watch" : named ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> httpMethod.toLowerCase(java.util.Locale.ROOT);
        };
        String name = named ? rest.get(1) : "";
        if (!named && (verb.equals("list") || verb.equals("watch"))) {
            name = nameSelected(parameters);
        }
        return new KubernetesRequest(verb, resource, namespace, name, caller);
    }

    private static KubernetesRequest nonResource(String httpMethod, String path, String caller) {
        return new KubernetesRequest(
                httpMethod.toLowerCase(java.util.Locale.ROOT), "nonResourceURL:" + path, "", "", caller);
    }

    /** The object a {@code fieldSelector=metadata.name=X} names (alone), or "". */
    private static String nameSelected(List<String> parameters) {
        for (String parameter : parameters) {
            if (parameter.startsWith("fieldSelector=")) {
                String selector = java.net.URLDecoder.decode(
                        parameter.substring("fieldSelector=".length()), java.nio.charset.StandardCharsets.UTF_8);
                if (selector.startsWith("metadata.name=") && !selector.contains(",")) {
                    return selector.substring("metadata.name=".length());
                }
            }
        }
        return "";
    }

    /**
     * The path template of a Compute REST request: the values after {@code projects}, {@code zones}, {@code regions}
     * and of the object after its collection become placeholders, a custom method after it stays, e.g.
     * {@code /compute/v1/projects/p/zones/z/reservations/r} is {@code
     * projects/{project}/zones/{zone}/reservations/{resource}} and {@code /compute/v1/projects/p/aggregated/reservations}
     * is {@code projects/{project}/aggregated/reservations}.
     */
    public static String computeTemplate(String path) {
        String prefix = "/compute/v1/";
        if (!path.startsWith(prefix)) {
            return path;
        }
        String[] parts = path.substring(prefix.length()).split("/");
        StringBuilder out = new StringBuilder();
        int i = 0;
        boolean collectionSeen = false;
        while (i < parts.length) {
            String part = parts[i];
            if (out.length() > 0) {
                out.append('/');
            }
            out.append(part);
            switch (part) {
                case "projects", "zones", "regions" -> {
                    if (i + 1 < parts.length) {
                        out.append("/{").append(part, 0, part.length() - 1).append('}');
                    }
                    i += 2;
                }
                case "aggregated", "global" -> i++;
                default -> {
                    if (!collectionSeen && i + 1 < parts.length) {
                        out.append("/{resource}");
                        i += 2;
                    } else {
                        i++;
                    }
                    collectionSeen = true;
                }
            }
        }
        return out.toString();
    }
}
