package io.falcon.executor.k8s;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.falcon.executor.FalconLabels;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What a Job and its pods say about the task (pure: no I/O). */
public sealed interface JobObservation {

    record Pending(String detail) implements JobObservation {
    }

    record Running(int active, int expected) implements JobObservation {
    }

    record Succeeded() implements JobObservation {
    }

    record Failed(String message) implements JobObservation {
    }

    Set<String> IMAGE_PULL_ERRORS = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
            "ErrImageNeverPull");

    static int expectedPods(Job job) {
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        if (annotations != null && annotations.containsKey(FalconLabels.ANNOTATION_EXPECTED_PODS)) {
            try {
                return Integer.parseInt(annotations.get(FalconLabels.ANNOTATION_EXPECTED_PODS));
            } catch (NumberFormatException ignored) {
                // fall through to the spec
            }
        }
        Integer parallelism = job.getSpec() == null ? null : job.getSpec().getParallelism();
        return parallelism == null ? 1 : parallelism;
    }

    /**
     * Complete condition -> Succeeded; Failed condition or a failed pod (backoffLimit is 0) -> Failed with the pod's
     * termination reason; an image that cannot be pulled for longer than the grace -> Failed; all expected pods
     * Running -> Running; otherwise Pending.
     */
    static JobObservation observe(Job job, List<Pod> pods, Instant now, Duration imagePullGrace) {
        List<Pod> sorted = pods.stream().sorted(Comparator.comparing(p -> p.getMetadata().getName())).toList();
        List<JobCondition> conditions = job.getStatus() == null || job.getStatus().getConditions() == null
                ? List.of() : job.getStatus().getConditions();
        Optional<JobCondition> failed = conditions.stream()
                .filter(c -> "Failed".equals(c.getType()) && "True".equals(c.getStatus())).findFirst();
        Optional<String> podFailure = sorted.stream().map(JobObservation::terminationFailure)
                .flatMap(Optional::stream).findFirst();
        if (failed.isPresent() || sorted.stream().anyMatch(p -> "Failed".equals(phase(p)))) {
            return new Failed(podFailure.orElseGet(() -> failed
                    .map(c -> "Job failed: " + nullToEmpty(c.getReason())
                            + (c.getMessage() == null ? "" : " (" + c.getMessage() + ")"))
                    .orElse("Pod failed")));
        }
        boolean complete = conditions.stream()
                .anyMatch(c -> "Complete".equals(c.getType()) && "True".equals(c.getStatus()));
        if (complete) {
            return new Succeeded();
        }
        for (Pod pod : sorted) {
            Optional<String> pull = imagePullFailure(pod, now, imagePullGrace);
            if (pull.isPresent()) {
                return new Failed(pull.get());
            }
        }
        int expected = expectedPods(job);
        int running = (int) sorted.stream()
                .filter(p -> "Running".equals(phase(p)) && p.getMetadata().getDeletionTimestamp() == null).count();
        if (running >= expected && expected > 0) {
            return new Running(running, expected);
        }
        return new Pending(running + "/" + expected + " pod(s) running");
    }

    /** "Pod terminated: OOMKilled (exit code 137)" for a container that ended with a non-zero exit code. */
    static Optional<String> terminationFailure(Pod pod) {
        for (ContainerStatus cs : containerStatuses(pod)) {
            var terminated = cs.getState() == null ? null : cs.getState().getTerminated();
            if (terminated == null && cs.getLastState() != null) {
                terminated = cs.getLastState().getTerminated();
            }
            if (terminated != null && terminated.getExitCode() != null && terminated.getExitCode() != 0) {
                String reason = terminated.getReason() == null || terminated.getReason().isEmpty()
                        ? "Error" : terminated.getReason();
                return Optional.of("Pod terminated: " + reason + " (exit code " + terminated.getExitCode() + ")");
            }
        }
        if ("Failed".equals(phase(pod)) && pod.getStatus().getReason() != null) {
            return Optional.of("Pod failed: " + pod.getStatus().getReason()
                    + (pod.getStatus().getMessage() == null ? "" : " (" + pod.getStatus().getMessage() + ")"));
        }
        return Optional.empty();
    }

    /** An image pull error on a pod older than the grace: "Pod image pull failed: ImagePullBackOff (...)". */
    static Optional<String> imagePullFailure(Pod pod, Instant now, Duration grace) {
        for (ContainerStatus cs : containerStatuses(pod)) {
            var waiting = cs.getState() == null ? null : cs.getState().getWaiting();
            if (waiting != null && IMAGE_PULL_ERRORS.contains(waiting.getReason())) {
                Instant since = created(pod).orElse(now);
                if (Duration.between(since, now).compareTo(grace) >= 0) {
                    return Optional.of("Pod image pull failed: " + waiting.getReason()
                            + (waiting.getMessage() == null ? "" : " (" + waiting.getMessage() + ")"));
                }
            }
        }
        return Optional.empty();
    }

    private static List<ContainerStatus> containerStatuses(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return List.of();
        }
        return pod.getStatus().getContainerStatuses();
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }

    private static Optional<Instant> created(Pod pod) {
        String ts = pod.getMetadata().getCreationTimestamp();
        if (ts == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(OffsetDateTime.parse(ts).toInstant());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
