package io.falcon.executor.k8s;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.ExecutorCommand.EnsureJobDeleted;
import io.falcon.executor.Backoff;
import io.falcon.executor.EventSink;
import io.falcon.executor.Events;
import io.falcon.executor.Mdc;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits and deletes the Kubernetes Jobs of tasks on their edge cluster. "Already exists" on create and "not found"
 * on delete are success. An API refusal (4xx) is reported as JobSubmitFailed with the API's message; an outage
 * (no answer, 5xx, 429) is retried a few times in the background before it is reported.
 */
public final class JobSubmitter {
    private static final Logger log = LoggerFactory.getLogger(JobSubmitter.class);
    private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

    private final EdgeClusterClients clusters;
    private final JobRenderer renderer;
    private final EventSink sink;
    private final Events events;
    private final ScheduledExecutorService scheduler;
    private final int retries;
    private final Backoff backoff;
    private final String namespace;
    private final Consumer<ClusterTarget> onClusterUsed;

    public JobSubmitter(EdgeClusterClients clusters, JobRenderer renderer, String namespace, EventSink sink,
            Events events, ScheduledExecutorService scheduler, int retries, Duration retryDelay,
            Consumer<ClusterTarget> onClusterUsed) {
        this.clusters = clusters;
        this.renderer = renderer;
        this.namespace = namespace;
        this.sink = sink;
        this.events = events;
        this.scheduler = scheduler;
        this.retries = retries;
        this.backoff = new Backoff(retryDelay, MAX_BACKOFF.compareTo(retryDelay) < 0 ? retryDelay : MAX_BACKOFF);
        this.onClusterUsed = onClusterUsed;
    }

    public void ensure(EnsureJob command) {
        submit(command, 0);
    }

    private void submit(EnsureJob command, int attempt) {
        ClusterTarget cluster = command.cluster();
        try (var ignored = Mdc.of("job", command.jobId(), "cluster", cluster.clusterId() + "/" + cluster.name(),
                "nodePool", command.nodePoolName(), "k8sJob", command.k8sJobName())) {
            Job job;
            try {
                job = renderer.render(command);
            } catch (InvalidJobException e) {
                log.warn("job refused: {}", e.getMessage());
                sink.emit(events.jobSubmitFailed(command.jobId(), cluster, command.k8sJobName(),
                        "invalid job: " + e.getMessage(), false));
                return;
            }
            try {
                KubernetesClient client = clusters.client(cluster);
                onClusterUsed.accept(cluster);
                Job created;
                try {
                    created = client.batch().v1().jobs().inNamespace(namespace).resource(job).create();
                    log.info("job created uid={}", created.getMetadata().getUid());
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 409) {
                        throw e;
                    }
                    created = client.batch().v1().jobs().inNamespace(namespace).withName(command.k8sJobName()).get();
                    if (created == null) {
                        throw e;
                    }
                    log.info("job already exists uid={}", created.getMetadata().getUid());
                }
                sink.emit(events.jobSubmitted(command.jobId(), cluster, command.k8sJobName(),
                        created.getMetadata().getUid()));
            } catch (RuntimeException e) {
                String message = describe(e);
                if (KubeErrors.isTransient(e) && attempt < retries) {
                    long delay = backoff.delay(attempt + 1, ThreadLocalRandom.current()::nextDouble).toMillis();
                    log.warn("job submit failed (attempt {}), retrying in {}ms: {}", attempt + 1, delay, message);
                    scheduler.schedule(() -> submit(command, attempt + 1), delay, TimeUnit.MILLISECONDS);
                    return;
                }
                log.warn("job submit failed: {}", message, e);
                sink.emit(events.jobSubmitFailed(command.jobId(), cluster, command.k8sJobName(), message,
                        KubeErrors.isTransient(e)));
            }
        }
    }

    public void ensureDeleted(EnsureJobDeleted command) {
        deleteJob(command, 0);
    }

    private void deleteJob(EnsureJobDeleted command, int attempt) {
        ClusterTarget cluster = command.cluster();
        try (var ignored = Mdc.of("job", command.jobId(), "cluster", cluster.clusterId() + "/" + cluster.name(),
                "k8sJob", command.k8sJobName())) {
            try {
                KubernetesClient client = clusters.client(cluster);
                var deleted = client.batch().v1().jobs().inNamespace(namespace).withName(command.k8sJobName())
                        .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
                log.info(deleted.isEmpty() ? "job already gone" : "job deleted");
                sink.emit(events.jobDeleted(command.jobId(), cluster, command.k8sJobName()));
            } catch (RuntimeException e) {
                if (e instanceof KubernetesClientException k && k.getCode() == 404) {
                    sink.emit(events.jobDeleted(command.jobId(), cluster, command.k8sJobName()));
                    return;
                }
                // There is no "delete failed" event: keep trying with a capped backoff until it goes through.
                long delay = backoff.delay(attempt + 1, ThreadLocalRandom.current()::nextDouble).toMillis();
                log.warn("job delete failed (attempt {}), retrying in {}ms: {}", attempt + 1, delay, describe(e));
                scheduler.schedule(() -> deleteJob(command, attempt + 1), delay, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** The API server's message (Status.message) when there is one. */
    static String describe(Throwable e) {
        if (e instanceof KubernetesClientException k) {
            if (k.getStatus() != null && k.getStatus().getMessage() != null) {
                return k.getStatus().getMessage();
            }
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
