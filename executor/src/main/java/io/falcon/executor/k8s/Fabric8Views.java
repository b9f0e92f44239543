package io.falcon.executor.k8s;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.falcon.executor.core.JobView;
import io.falcon.executor.core.PodView;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** fabric8's Job and Pod as the executor's plain {@link JobView} and {@link PodView} (pure). */
public final class Fabric8Views {
    private Fabric8Views() {}

    public static JobView job(Job job) {
        var meta = job.getMetadata();
        List<JobView.Condition> conditions = new ArrayList<>();
        if (job.getStatus() != null && job.getStatus().getConditions() != null) {
            for (JobCondition c : job.getStatus().getConditions()) {
                conditions.add(new JobView.Condition(
                        orEmpty(c.getType()), orEmpty(c.getStatus()), orEmpty(c.getReason()), orEmpty(c.getMessage())));
            }
        }
        Integer parallelism = job.getSpec() == null ? null : job.getSpec().getParallelism();
        Optional<String> nodePool = nodePool(job);
        return new JobView(
                orEmpty(meta.getName()),
                orEmpty(meta.getUid()),
                orEmptyMap(meta.getAnnotations()),
                orEmptyMap(meta.getLabels()),
                time(meta.getCreationTimestamp()),
                meta.getDeletionTimestamp() != null,
                conditions,
                parallelism == null ? 1 : parallelism,
                nodePool);
    }

    /** The node pool the Job's pods select (its pod template's cloud.google.com/gke-nodepool node selector). */
    public static Optional<String> nodePool(Job job) {
        return Optional.ofNullable(job.getSpec())
                .map(spec -> spec.getTemplate())
                .map(template -> template.getSpec())
                .map(podSpec -> podSpec.getNodeSelector())
                .map(selector -> selector.get(KubernetesEdgeApi.NODE_POOL_LABEL))
                .filter(pool -> !pool.isBlank());
    }

    public static PodView pod(Pod pod) {
        var meta = pod.getMetadata();
        Optional<String> ownerUid = Optional.ofNullable(meta.getOwnerReferences()).orElse(List.of()).stream()
                .filter(o -> "Job".equals(o.getKind()))
                .map(OwnerReference::getUid)
                .filter(u -> u != null)
                .findFirst();
        List<PodView.Container> containers = new ArrayList<>();
        String phase = "";
        String reason = "";
        String message = "";
        boolean unschedulable = false;
        Optional<String> disruption = Optional.empty();
        if (pod.getStatus() != null) {
            // Kubernetes marks a pod it is about to delete for the fleet's reasons (preemption, a node's taint or
            // shutdown, an eviction, the pod GC of a node that is gone) with the DisruptionTarget condition
            disruption = Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
                    .filter(c -> "DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus()))
                    .map(c -> orEmpty(c.getReason()))
                    .findFirst();
            unschedulable = Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
                    .anyMatch(c -> "PodScheduled".equals(c.getType())
                            && "False".equals(c.getStatus())
                            && "Unschedulable".equals(c.getReason()));
            phase = orEmpty(pod.getStatus().getPhase());
            reason = orEmpty(pod.getStatus().getReason());
            message = orEmpty(pod.getStatus().getMessage());
            for (ContainerStatus cs :
                    Optional.ofNullable(pod.getStatus().getContainerStatuses()).orElse(List.of())) {
                var state = cs.getState();
                Optional<PodView.Terminated> terminated =
                        Optional.ofNullable(state).map(s -> s.getTerminated()).map(Fabric8Views::terminated);
                Optional<PodView.Terminated> last = Optional.ofNullable(cs.getLastState())
                        .map(s -> s.getTerminated())
                        .map(Fabric8Views::terminated);
                Optional<PodView.Waiting> waiting = Optional.ofNullable(state)
                        .map(s -> s.getWaiting())
                        .map(w -> new PodView.Waiting(orEmpty(w.getReason()), orEmpty(w.getMessage())));
                containers.add(new PodView.Container(terminated, last, waiting));
            }
        }
        return new PodView(
                orEmpty(meta.getName()),
                Optional.ofNullable(JobStatusReconciler.jobNameOf(pod)),
                ownerUid,
                phase,
                meta.getDeletionTimestamp() != null,
                time(meta.getCreationTimestamp()),
                scheduledAt(pod),
                reason,
                message,
                unschedulable,
                containers,
                disruption);
    }

    /** When the pod was bound to its node: its PodScheduled condition's turn to True, else status.startTime. */
    static Optional<Instant> scheduledAt(Pod pod) {
        if (pod.getStatus() == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
                .filter(c -> "PodScheduled".equals(c.getType()) && "True".equals(c.getStatus()))
                .map(c -> time(c.getLastTransitionTime()))
                .flatMap(Optional::stream)
                .findFirst()
                .or(() -> time(pod.getStatus().getStartTime()));
    }

    private static PodView.Terminated terminated(ContainerStateTerminated t) {
        return new PodView.Terminated(t.getExitCode() == null ? 0 : t.getExitCode(), orEmpty(t.getReason()));
    }

    static Optional<Instant> time(String timestamp) {
        if (timestamp == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(OffsetDateTime.parse(timestamp).toInstant());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    private static Map<String, String> orEmptyMap(Map<String, String> m) {
        return m == null ? Map.of() : m;
    }
}
