package io.falcon.executor.k8s;

import com.google.api.gax.rpc.StatusCode;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.core.ApiException;
import io.falcon.executor.core.EdgeApi;
import io.falcon.executor.gke.GkeErrors;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link EdgeApi} over the cached fabric8 client of each edge cluster. */
public final class KubernetesEdgeApi implements EdgeApi {
    private static final Logger log = LoggerFactory.getLogger(KubernetesEdgeApi.class);
    public static final String NODE_POOL_LABEL = "cloud.google.com/gke-nodepool";

    private final EdgeClusterClients clusters;
    private final JobRenderer renderer;
    private final String namespace;
    private final Consumer<ClusterTarget> onJobCreated;

    /** onJobCreated: told of every cluster a Job was created in (to start its informers). */
    public KubernetesEdgeApi(
            EdgeClusterClients clusters, JobRenderer renderer, String namespace, Consumer<ClusterTarget> onJobCreated) {
        this.clusters = clusters;
        this.renderer = renderer;
        this.namespace = namespace;
        this.onJobCreated = onJobCreated;
    }

    @Override
    public NodeCount nodes(ClusterTarget cluster, String pool) {
        return call(
                cluster,
                client -> count(
                        client.nodes().withLabel(NODE_POOL_LABEL, pool).list().getItems()));
    }

    /**
     * One request to the cluster's API server. When the server does not answer at all or refuses the credentials
     * (its control plane moved, rotated its CA, or the cluster was deleted), GKE is asked where the cluster is now
     * ({@link EdgeClusterClients#refresh}): a new client is tried once; a cluster GKE no longer knows is NOT_FOUND.
     * Any other answer is classified as it is.
     */
    private <T> T call(ClusterTarget cluster, java.util.function.Function<KubernetesClient, T> request) {
        KubernetesClient used = client(cluster);
        try {
            return request.apply(used);
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            if (replaced(cluster, used)) {
                return again(cluster, request); // refreshed meanwhile by another thread (its old client closed)
            }
            if (!unreachable(e)) {
                throw classify(e);
            }
            EdgeClusterClients.Refresh refresh = clusters.refresh(cluster);
            if (refresh == EdgeClusterClients.Refresh.GONE) {
                throw new ApiException(
                        ApiException.Kind.NOT_FOUND,
                        "GKE cluster " + cluster.resourceName() + " not found (deleted): " + describe(e),
                        e);
            }
            if (refresh == EdgeClusterClients.Refresh.UNCHANGED) {
                throw classify(e);
            }
            return again(cluster, request);
        }
    }

    private <T> T again(ClusterTarget cluster, java.util.function.Function<KubernetesClient, T> request) {
        try {
            return request.apply(client(cluster));
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            throw classify(e);
        }
    }

    /** The cluster's client is no longer the one used (a refresh replaced or dropped it). */
    private boolean replaced(ClusterTarget cluster, KubernetesClient used) {
        try {
            return clusters.client(cluster) != used;
        } catch (RuntimeException e) {
            return true;
        }
    }

    /**
     * No answer from the API server (connection refused or reset, a timeout, a TLS handshake against a rotated CA),
     * or 401 (credentials it no longer takes): worth asking GKE where the cluster is now.
     */
    static boolean unreachable(RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof KubernetesClientException k && k.getCode() > 0) {
                return k.getCode() == 401; // an answer: only a refusal of the credentials is worth it
            }
        }
        return true;
    }

    /** Registered = listed; ready = condition Ready=True (pure). */
    static NodeCount count(List<Node> nodes) {
        int ready = 0;
        for (Node node : nodes) {
            if (isReady(node)) {
                ready++;
            }
        }
        return new NodeCount(nodes.size(), ready);
    }

    /** Not being deleted and condition Ready=True (pure). */
    static boolean isReady(Node node) {
        if (node.getMetadata() == null
                || node.getMetadata().getDeletionTimestamp() != null
                || node.getStatus() == null
                || node.getStatus().getConditions() == null) {
            return false;
        }
        for (NodeCondition c : node.getStatus().getConditions()) {
            if ("Ready".equals(c.getType()) && "True".equals(c.getStatus())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Creates the Job suspended (no pod exists yet), then its NetworkPolicy and, for a multi-host Job, its headless
     * Service, both owned by the Job, and only then resumes it: a pod that no policy selects accepts every connection,
     * so none of the job's pods runs before its policy exists. A redelivery that finds the Job (409) completes the
     * same steps for this job's own Job; a failure in between leaves a suspended Job, which runs nothing and which the
     * scheduler's next EnsureJob completes or its deletion removes (the policy and Service go with it).
     */
    @Override
    public String createJob(ClusterTarget cluster, EnsureJob command) {
        Job job;
        NetworkPolicy policy;
        try {
            job = renderer.render(command);
            policy = renderer.renderNetworkPolicy(command);
        } catch (InvalidJobException e) {
            throw new ApiException(ApiException.Kind.INVALID, e.getMessage(), e);
        }
        Optional<Service> service = renderer.renderService(command);
        try {
            Job created = call(
                    cluster,
                    client -> client.batch()
                            .v1()
                            .jobs()
                            .inNamespace(namespace)
                            .resource(job)
                            .create());
            onJobCreated.accept(cluster);
            complete(cluster, created, policy, service, command.jobId());
            return created.getMetadata().getUid();
        } catch (ApiException e) {
            if (e.is(ApiException.Kind.ALREADY_EXISTS)) {
                // A redelivered EnsureJob after a restart between the Job and its resumption: complete it, for this
                // job's own Job only (another owner's Job under the name gets nothing of this job's).
                Optional.ofNullable(call(
                                cluster,
                                client -> client.batch()
                                        .v1()
                                        .jobs()
                                        .inNamespace(namespace)
                                        .withName(job.getMetadata().getName())
                                        .get()))
                        .filter(existing -> renderer.ownership().ownsJob(found(existing), command.jobId()))
                        .ifPresent(existing -> complete(cluster, existing, policy, service, command.jobId()));
            }
            throw e;
        }
    }

    /** The created (suspended) Job's NetworkPolicy and Service, then the Job resumed. */
    private void complete(
            ClusterTarget cluster, Job owner, NetworkPolicy policy, Optional<Service> service, String jobId) {
        ensureNetworkPolicy(cluster, policy, owner, jobId);
        service.ifPresent(s -> ensureService(cluster, s, owner, jobId));
        if (Boolean.TRUE.equals(owner.getSpec().getSuspend())) {
            call(
                    cluster,
                    client -> client.batch()
                            .v1()
                            .jobs()
                            .inNamespace(namespace)
                            .withName(owner.getMetadata().getName())
                            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"suspend\":false}}"));
        }
    }

    private static io.fabric8.kubernetes.api.model.OwnerReference ownerReference(Job owner) {
        return new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                .withApiVersion("batch/v1")
                .withKind("Job")
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withBlockOwnerDeletion(false)
                .build();
    }

    /**
     * Creates the job's NetworkPolicy, owned by its Job so that Kubernetes' garbage collector deletes it with the Job
     * (also when the Job goes by its TTL). "Already exists" is success only for this installation's policy of this job
     * (labels and job-id annotation); another owner's policy under the name is left alone and the job refused
     * (PERMANENT): its pods would run without a policy of their own.
     */
    private void ensureNetworkPolicy(ClusterTarget cluster, NetworkPolicy rendered, Job owner, String jobId) {
        NetworkPolicy policy = new io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder(rendered)
                .editMetadata()
                .withOwnerReferences(ownerReference(owner))
                .endMetadata()
                .build();
        String name = policy.getMetadata().getName();
        try {
            call(
                    cluster,
                    client -> client.network()
                            .v1()
                            .networkPolicies()
                            .inNamespace(namespace)
                            .resource(policy)
                            .create());
        } catch (ApiException e) {
            if (!e.is(ApiException.Kind.ALREADY_EXISTS)) {
                throw e;
            }
            NetworkPolicy existing = call(
                    cluster,
                    client -> client.network()
                            .v1()
                            .networkPolicies()
                            .inNamespace(namespace)
                            .withName(name)
                            .get());
            if (existing == null) {
                throw new ApiException(
                        ApiException.Kind.TRANSIENT,
                        "the NetworkPolicy " + name + " was there and is gone: asked again",
                        e);
            }
            if (!owns(existing, jobId)) {
                throw new ApiException(
                        ApiException.Kind.PERMANENT,
                        "a NetworkPolicy named " + name + " already exists in namespace " + namespace + " on cluster "
                                + cluster.clusterId() + " and is not this job's ("
                                + io.falcon.executor.core.Ownership.ownerOf(labels(existing), annotatedJobId(existing))
                                + "): Falcon leaves it alone and does not run the job without its own",
                        e);
            }
        }
    }

    private boolean owns(NetworkPolicy policy, String jobId) {
        return renderer.ownership().ownsJobObject(labels(policy), annotatedJobId(policy), jobId);
    }

    private static java.util.Map<String, String> labels(io.fabric8.kubernetes.api.model.HasMetadata object) {
        return Optional.ofNullable(object.getMetadata().getLabels()).orElse(java.util.Map.of());
    }

    private static Optional<String> annotatedJobId(io.fabric8.kubernetes.api.model.HasMetadata object) {
        return Optional.ofNullable(object.getMetadata().getAnnotations())
                .map(a -> a.get(FalconLabels.ANNOTATION_JOB_ID));
    }

    /**
     * Creates the multi-host Job's headless Service, owned by the Job so that it is deleted with it (also by the
     * Job's TTL). "Already exists" is success only for this installation's Service of this job (labels and job-id
     * annotation); another owner's Service under the name is left alone and the job refused (PERMANENT): its pods
     * would find each other through someone else's Service.
     */
    private void ensureService(ClusterTarget cluster, Service service, Job owner, String jobId) {
        service.getMetadata().setOwnerReferences(List.of(ownerReference(owner)));
        String name = service.getMetadata().getName();
        try {
            call(
                    cluster,
                    client -> client.services()
                            .inNamespace(namespace)
                            .resource(service)
                            .create());
        } catch (ApiException e) {
            if (!e.is(ApiException.Kind.ALREADY_EXISTS)) {
                throw e;
            }
            Service existing = call(
                    cluster,
                    client -> client.services()
                            .inNamespace(namespace)
                            .withName(name)
                            .get());
            if (existing == null) {
                throw new ApiException(
                        ApiException.Kind.TRANSIENT, "the Service " + name + " was there and is gone: asked again", e);
            }
            if (!renderer.ownership().ownsJobObject(labels(existing), annotatedJobId(existing), jobId)) {
                throw new ApiException(
                        ApiException.Kind.PERMANENT,
                        "a Service named " + name + " already exists in namespace " + namespace + " on cluster "
                                + cluster.clusterId() + " and is not this job's ("
                                + io.falcon.executor.core.Ownership.ownerOf(labels(existing), annotatedJobId(existing))
                                + "): Falcon leaves it alone and does not run the job without its own",
                        e);
            }
        }
    }

    @Override
    public Optional<FoundJob> findJob(ClusterTarget cluster, String name) {
        Job job = call(
                cluster,
                client -> client.batch()
                        .v1()
                        .jobs()
                        .inNamespace(namespace)
                        .withName(name)
                        .get());
        onJobCreated.accept(cluster);
        return Optional.ofNullable(job).map(KubernetesEdgeApi::found);
    }

    private static FoundJob found(Job job) {
        boolean completed = job.getStatus() != null
                && job.getStatus().getConditions() != null
                && job.getStatus().getConditions().stream()
                        .anyMatch(c -> "Complete".equals(c.getType()) && "True".equals(c.getStatus()));
        return new FoundJob(
                job.getMetadata().getName(), job.getMetadata().getUid(), labels(job), annotatedJobId(job), completed);
    }

    /**
     * Deletes the Job, and its headless Service (if it has one) and NetworkPolicy if this installation's labels are on
     * them (Kubernetes' garbage collector deletes both with the Job on a real cluster; deleted here too so that no API
     * server without a garbage collector keeps them). A deleted Job's pods terminate for up to their grace period: the
     * policy goes with the Job, as the garbage collector would do.
     */
    @Override
    public boolean deleteJob(ClusterTarget cluster, String name) {
        return call(cluster, client -> {
            boolean existed = !client.batch()
                    .v1()
                    .jobs()
                    .inNamespace(namespace)
                    .withName(name)
                    .withPropagationPolicy(DeletionPropagation.BACKGROUND)
                    .delete()
                    .isEmpty();
            // the headless Service too only when this installation's labels are on it: a Service of another owner
            // under the name is left alone, as its Job would be
            var services = client.services().inNamespace(namespace);
            io.fabric8.kubernetes.api.model.Service service =
                    services.withName(name).get();
            if (service != null
                    && FalconLabels.ownedBy(
                            labels(service), renderer.ownership().installation())) {
                existed |= !services.withName(name).delete().isEmpty();
            }
            var policies = client.network().v1().networkPolicies().inNamespace(namespace);
            NetworkPolicy policy = policies.withName(name).get();
            if (policy != null
                    && FalconLabels.ownedBy(labels(policy), renderer.ownership().installation())
                    && annotatedJobId(policy).isPresent()) {
                policies.withName(name).delete();
            }
            return existed;
        });
    }

    @Override
    public int unfinishedPods(ClusterTarget cluster, String name) {
        return call(cluster, client -> (int)
                client.pods().inNamespace(namespace).withLabel(FalconLabels.K8S_JOB, name).list().getItems().stream()
                        .filter(KubernetesEdgeApi::unfinished)
                        .count());
    }

    /** Not Succeeded or Failed: it may hold its node's chips (also while it terminates) (pure). */
    static boolean unfinished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    /** The cluster's client; a GKE cluster that does not exist (any more) is NOT_FOUND. */
    private KubernetesClient client(ClusterTarget cluster) {
        try {
            return clusters.client(cluster);
        } catch (RuntimeException e) {
            if (GkeErrors.is(e, StatusCode.Code.NOT_FOUND)) {
                throw new ApiException(
                        ApiException.Kind.NOT_FOUND,
                        "GKE cluster " + cluster.resourceName() + " not found: " + GkeErrors.describe(e),
                        e);
            }
            throw new ApiException(
                    GkeErrors.isTransient(e) ? ApiException.Kind.TRANSIENT : ApiException.Kind.PERMANENT,
                    "cannot reach cluster " + cluster.resourceName() + ": " + GkeErrors.describe(e),
                    e);
        }
    }

    /** A Kubernetes API error as the decision code sees it. */
    static ApiException classify(RuntimeException e) {
        String message = describe(e);
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof KubernetesClientException k) {
                ApiException.Kind kind = switch (k.getCode()) {
                    case 404 -> ApiException.Kind.NOT_FOUND;
                    case 409 -> ApiException.Kind.ALREADY_EXISTS;
                    default ->
                        KubeErrors.isTransient(k.getCode()) ? ApiException.Kind.TRANSIENT : ApiException.Kind.PERMANENT;
                };
                return new ApiException(kind, message, e);
            }
        }
        return new ApiException(ApiException.Kind.TRANSIENT, message, e); // no answer
    }

    /** The API server's message (Status.message) when there is one. */
    static String describe(Throwable e) {
        if (e instanceof KubernetesClientException k
                && k.getStatus() != null
                && k.getStatus().getMessage() != null) {
            return k.getStatus().getMessage();
        }
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (b.indexOf(m) < 0) {
                b.append(b.length() == 0 ? "" : ": ").append(m);
            }
        }
        return b.toString();
    }
}
