package io.falcon.executor.core;

import io.falcon.events.executor.FailureCause;
import io.falcon.executor.FalconLabels;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** What a Job and its pods say about the task (pure). */
public sealed interface JobObservation {

    record Pending(String detail) implements JobObservation {}

    /** boundAt: when the last of the running pods was bound to its node (empty when one does not say). */
    record Running(int active, int expected, Optional<Instant> boundAt) implements JobObservation {}

    record Succeeded() implements JobObservation {}

    /** cause: whose doing the failure was ({@link #cause}). */
    record Failed(String message, FailureCause cause) implements JobObservation {}

    /**
     * Pod status reasons the kubelet or the node lifecycle set on a pod that failed for the node's sake, not the
     * program's: evicted for node pressure, preempted, its node lost or shut down (GKE maintenance, a spot or
     * flex-start VM reclaimed), refused at admission by the node.
     */
    Set<String> INFRASTRUCTURE_POD_REASONS = Set.of(
            "Evicted", "Preempted", "NodeLost", "Shutdown", "NodeShutdown", "Terminated", "UnexpectedAdmissionError");

    Set<String> IMAGE_PULL_ERRORS = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull");

    /**
     * The kubelet cannot make the container's configuration: a Secret (or key) a spec.env reference names does not
     * exist. The kubelet retries, so, like a pull error, it fails the job only once it lasted the grace.
     */
    String CONFIG_ERROR = "CreateContainerConfigError";

    static int expectedPods(JobView job) {
        String annotated = job.annotations().get(FalconLabels.ANNOTATION_EXPECTED_PODS);
        if (annotated != null) {
            try {
                return Integer.parseInt(annotated);
            } catch (NumberFormatException ignored) {
                // fall through to the spec
            }
        }
        return job.parallelism() <= 0 ? 1 : job.parallelism();
    }

    /**
     * Complete condition -> Succeeded; Failed condition or a failed pod (backoffLimit is 0) -> Failed with the pod's
     * termination reason; an image that cannot be pulled for longer than the grace -> Failed; all expected pods
     * Running -> Running; otherwise Pending.
     */
    static JobObservation observe(JobView job, List<PodView> pods, Instant now, Duration imagePullGrace) {
        List<PodView> sorted =
                pods.stream().sorted(Comparator.comparing(PodView::name)).toList();
        Optional<JobView.Condition> failed =
                job.conditions().stream().filter(c -> c.isTrue("Failed")).findFirst();
        Optional<String> podFailure = sorted.stream()
                .map(JobObservation::terminationFailure)
                .flatMap(Optional::stream)
                .findFirst();
        if (failed.isPresent() || sorted.stream().anyMatch(p -> "Failed".equals(p.phase()))) {
            String message = podFailure.orElseGet(() -> failed.map(
                            c -> "Job failed: " + c.reason() + (c.message().isEmpty() ? "" : " (" + c.message() + ")"))
                    .orElse("Pod failed"));
            FailureCause cause = cause(sorted, failed);
            if (cause.infrastructure() && !message.contains(cause.signal())) {
                message = "Pod disrupted: " + cause.signal() + " (" + message + ")";
            }
            return new Failed(message, cause);
        }
        if (job.conditions().stream().anyMatch(c -> c.isTrue("Complete"))) {
            return new Succeeded();
        }
        for (PodView pod : sorted) {
            Optional<String> pull = imagePullFailure(pod, now, imagePullGrace);
            if (pull.isPresent()) {
                String signal = pod.containers().stream()
                        .flatMap(c -> c.waiting().stream())
                        .map(PodView.Waiting::reason)
                        .findFirst()
                        .orElse("image");
                return new Failed(pull.get(), FailureCause.application(signal));
            }
        }
        int expected = expectedPods(job);
        List<PodView> runningPods = sorted.stream()
                .filter(p -> "Running".equals(p.phase()) && !p.deleting())
                .toList();
        int running = runningPods.size();
        if (running >= expected && expected > 0) {
            return new Running(running, expected, lastBound(runningPods));
        }
        return new Pending(running + "/" + expected + " pod(s) running");
    }

    /**
     * Whose doing a failed Job's end was. The fleet's, when Kubernetes says so of any of its pods: a DisruptionTarget
     * condition (preemption, a node's taint or shutdown, an eviction, the pod GC of a lost node), or a pod reason of
     * {@link #INFRASTRUCTURE_POD_REASONS}. That goes first: when one host of a slice is lost, its siblings' programs
     * often exit with an error of their own (a collective that lost a peer), which is not the program's fault.
     * Otherwise the program's: the first non-zero exit (OOMKilled included), else what the Job's condition says.
     */
    static FailureCause cause(List<PodView> pods, Optional<JobView.Condition> jobFailed) {
        for (PodView pod : pods) {
            if (pod.disruption().isPresent()) {
                String reason = pod.disruption().get();
                return FailureCause.infrastructure("DisruptionTarget" + (reason.isEmpty() ? "" : ": " + reason));
            }
        }
        // The pods are gone (an evicted pod is deleted) but the Job's own condition says a DisruptionTarget pod
        // failed it (its podFailurePolicy, JobRenderer): the fleet's.
        if (jobFailed.filter(JobObservation::disruptedByPolicy).isPresent()) {
            return FailureCause.infrastructure(
                    "DisruptionTarget (" + jobFailed.get().message() + ")");
        }
        for (PodView pod : pods) {
            if ("Failed".equals(pod.phase())
                    && (INFRASTRUCTURE_POD_REASONS.contains(pod.reason())
                            || pod.reason().startsWith("OutOf"))) {
                return FailureCause.infrastructure(pod.reason());
            }
        }
        for (PodView pod : pods) {
            for (PodView.Container c : pod.containers()) {
                Optional<PodView.Terminated> terminated = c.terminated().or(c::lastTerminated);
                if (terminated.isPresent() && terminated.get().exitCode() != 0) {
                    int code = terminated.get().exitCode();
                    String reason = terminated.get().reason();
                    return FailureCause.exited(
                            reason.isEmpty() || "Error".equals(reason) ? "exit code " + code : reason, code);
                }
            }
        }
        return FailureCause.application(jobFailed.map(c -> "Job " + c.reason()).orElse("pod failed"));
    }

    /**
     * Kubernetes' Failed condition when a pod matched the podFailurePolicy's FailJob rule on DisruptionTarget: reason
     * PodFailurePolicy, message "Pod NS/NAME has condition DisruptionTarget matching FailJob rule at index 0".
     */
    static boolean disruptedByPolicy(JobView.Condition failed) {
        return "PodFailurePolicy".equals(failed.reason()) && failed.message().contains("condition DisruptionTarget");
    }

    /** When the last of the pods was bound to its node; empty if one of them does not say. */
    static Optional<Instant> lastBound(List<PodView> pods) {
        Optional<Instant> last = Optional.empty();
        for (PodView pod : pods) {
            if (pod.scheduledAt().isEmpty()) {
                return Optional.empty();
            }
            if (last.isEmpty() || pod.scheduledAt().get().isAfter(last.get())) {
                last = pod.scheduledAt();
            }
        }
        return last;
    }

    /** "Pod terminated: OOMKilled (exit code 137)" for a container that ended with a non-zero exit code. */
    static Optional<String> terminationFailure(PodView pod) {
        for (PodView.Container c : pod.containers()) {
            Optional<PodView.Terminated> terminated = c.terminated().or(c::lastTerminated);
            if (terminated.isPresent() && terminated.get().exitCode() != 0) {
                String reason = terminated.get().reason().isEmpty()
                        ? "Error"
                        : terminated.get().reason();
                return Optional.of("Pod terminated: " + reason + " (exit code "
                        + terminated.get().exitCode() + ")");
            }
        }
        if ("Failed".equals(pod.phase()) && !pod.reason().isEmpty()) {
            return Optional.of(
                    "Pod failed: " + pod.reason() + (pod.message().isEmpty() ? "" : " (" + pod.message() + ")"));
        }
        return Optional.empty();
    }

    /**
     * An image pull error on a pod that could pull for longer than the grace: "Pod image pull failed: ImagePullBackOff
     * (...)"; or a container the kubelet could not configure for as long ({@link #CONFIG_ERROR}: "Pod container cannot
     * be configured: CreateContainerConfigError (secret ... not found)"). The grace counts from when the pod was bound to its node (only then can it pull), not from its creation:
     * a pod that waited for its VMs (a flex-start pool gets them only for pending pods, minutes or hours later) would
     * otherwise fail on its first transient pull error.
     */
    static Optional<String> imagePullFailure(PodView pod, Instant now, Duration grace) {
        for (PodView.Container c : pod.containers()) {
            Optional<PodView.Waiting> waiting =
                    c.waiting().filter(w -> IMAGE_PULL_ERRORS.contains(w.reason()) || CONFIG_ERROR.equals(w.reason()));
            if (waiting.isPresent()) {
                Instant since = pod.scheduledAt().or(pod::createdAt).orElse(now);
                if (Duration.between(since, now).compareTo(grace) >= 0) {
                    String what = CONFIG_ERROR.equals(waiting.get().reason())
                            ? "Pod container cannot be configured: "
                            : "Pod image pull failed: ";
                    return Optional.of(what
                            + waiting.get().reason()
                            + (waiting.get().message().isEmpty()
                                    ? ""
                                    : " (" + waiting.get().message() + ")"));
                }
            }
        }
        return Optional.empty();
    }
}
