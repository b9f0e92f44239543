package io.falcon.executor.k8s;

import com.google.api.gax.rpc.StatusCode;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.core.ApiException;
import io.falcon.executor.core.EdgeApi;
import io.falcon.executor.gke.GkeErrors;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/** {@link EdgeApi} over the cached fabric8 client of each edge cluster. */
public final class KubernetesEdgeApi implements EdgeApi {
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

    @Override
    public String createJob(ClusterTarget cluster, EnsureJob command) {
        Job job;
        try {
            job = renderer.render(command);
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
            service.ifPresent(s -> ensureService(cluster, s, created));
            return created.getMetadata().getUid();
        } catch (ApiException e) {
            if (e.is(ApiException.Kind.ALREADY_EXISTS) && service.isPresent()) {
                // A redelivered EnsureJob after a restart between the Job and its Service: complete the pair.
                Optional.ofNullable(call(
                                cluster,
                                client -> client.batch()
                                        .v1()
                                        .jobs()
                                        .inNamespace(namespace)
                                        .withName(job.getMetadata().getName())
                                        .get()))
                        .ifPresent(existing -> ensureService(cluster, service.get(), existing));
            }
            throw e;
        }
    }

    /**
     * Creates the multi-host Job's headless Service, owned by the Job so that it is deleted with it (also by the
     * Job's TTL); "already exists" is success.
     */
    private void ensureService(ClusterTarget cluster, Service service, Job owner) {
        service.getMetadata()
                .setOwnerReferences(List.of(new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                        .withApiVersion("batch/v1")
                        .withKind("Job")
                        .withName(owner.getMetadata().getName())
                        .withUid(owner.getMetadata().getUid())
                        .withBlockOwnerDeletion(false)
                        .build()));
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
        return Optional.ofNullable(job)
                .map(j -> new FoundJob(
                        j.getMetadata().getName(),
                        j.getMetadata().getUid(),
                        Optional.ofNullable(j.getMetadata().getLabels()).orElse(java.util.Map.of()),
                        Optional.ofNullable(j.getMetadata().getAnnotations())
                                .map(a -> a.get(FalconLabels.ANNOTATION_JOB_ID))));
    }

    /**
     * Deletes the Job and its headless Service, if it has one (garbage-collected with the Job on a real cluster,
     * deleted here too so that no API server without a garbage collector, or a Service created before its owner
     * reference, keeps it).
     */
    @Override
    public boolean deleteJob(ClusterTarget cluster, String name) {
        return call(
                cluster,
                client -> !client.batch()
                                .v1()
                                .jobs()
                                .inNamespace(namespace)
                                .withName(name)
                                .withPropagationPolicy(DeletionPropagation.BACKGROUND)
                                .delete()
                                .isEmpty()
                        | !client.services()
                                .inNamespace(namespace)
                                .withName(name)
                                .delete()
                                .isEmpty());
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
