package io.falcon.fleetsim.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/** Builds the pods a Job controller would create, and their status for each simulated phase. */
final class PodFactory {

    static final String JOB_NAME_LABEL = "job-name";
    static final String BATCH_JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
    static final String CONTROLLER_UID_LABEL = "controller-uid";
    static final String BATCH_CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
    static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
    static final String TPU_RESOURCE = "google.com/tpu";
    private static final String SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    private PodFactory() {}

    static String podName(SimulatedJob job, int index) {
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(SUFFIX_ALPHABET.charAt(ThreadLocalRandom.current().nextInt(SUFFIX_ALPHABET.length())));
        }
        return job.indexed ? job.name + "-" + index + "-" + suffix : job.name + "-" + suffix;
    }

    static boolean requestsTpu(PodTemplateSpec template) {
        if (template == null || template.getSpec() == null || template.getSpec().getContainers() == null) {
            return false;
        }
        return template.getSpec().getContainers().stream()
                .anyMatch(c -> c.getResources() != null
                        && (has(c.getResources().getLimits())
                                || has(c.getResources().getRequests())));
    }

    private static boolean has(Map<String, Quantity> resources) {
        return resources != null && resources.containsKey(TPU_RESOURCE);
    }

    /** A new Pending pod for one completion slot of the Job. */
    static Pod newPod(SimulatedJob job, SimulatedPod pod, Instant now) {
        PodTemplateSpec template = job.job.getSpec().getTemplate();
        Map<String, String> labels = new LinkedHashMap<>();
        Map<String, String> annotations = new LinkedHashMap<>();
        if (template.getMetadata() != null) {
            if (template.getMetadata().getLabels() != null) {
                labels.putAll(template.getMetadata().getLabels());
            }
            if (template.getMetadata().getAnnotations() != null) {
                annotations.putAll(template.getMetadata().getAnnotations());
            }
        }
        labels.put(JOB_NAME_LABEL, job.name);
        labels.put(BATCH_JOB_NAME_LABEL, job.name);
        labels.put(CONTROLLER_UID_LABEL, job.uid);
        labels.put(BATCH_CONTROLLER_UID_LABEL, job.uid);
        PodSpec spec = new PodSpecBuilder(template.getSpec()).build();
        if (job.indexed) {
            labels.put(COMPLETION_INDEX, Integer.toString(pod.index));
            annotations.put(COMPLETION_INDEX, Integer.toString(pod.index));
            if (spec.getHostname() == null) {
                spec.setHostname(job.name + "-" + pod.index);
            }
            for (Container c : spec.getContainers()) {
                List<io.fabric8.kubernetes.api.model.EnvVar> env =
                        c.getEnv() == null ? new ArrayList<>() : new ArrayList<>(c.getEnv());
                env.add(new EnvVarBuilder()
                        .withName("JOB_COMPLETION_INDEX")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("metadata.annotations['" + COMPLETION_INDEX + "']")
                        .endFieldRef()
                        .endValueFrom()
                        .build());
                c.setEnv(env);
            }
        }
        return new PodBuilder()
                .withNewMetadata()
                .withName(pod.name)
                .withNamespace(job.namespace)
                .withLabels(labels)
                .withAnnotations(annotations)
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion("batch/v1")
                        .withKind("Job")
                        .withName(job.name)
                        .withUid(job.uid)
                        .withController(true)
                        .withBlockOwnerDeletion(true)
                        .build())
                .endMetadata()
                .withSpec(spec)
                .withStatus(status(job, pod, spec, now, 0))
                .build();
    }

    /** Pod status for the pod's current simulated phase; {@code nodeCount} feeds the unschedulable message. */
    static PodStatus status(SimulatedJob job, SimulatedPod pod, PodSpec spec, Instant now, int nodeCount) {
        PodStatusBuilder b = new PodStatusBuilder().withQosClass("BestEffort");
        List<Container> containers = spec.getContainers() == null ? List.of() : spec.getContainers();
        switch (pod.phase) {
            case UNSCHEDULABLE ->
                b.withPhase("Pending")
                        .withConditions(condition(
                                "PodScheduled",
                                false,
                                "Unschedulable",
                                "0/" + nodeCount + " nodes are available: " + nodeCount
                                        + " node(s) didn't match Pod's node affinity/selector. preemption: 0/"
                                        + nodeCount
                                        + " nodes are available: " + nodeCount
                                        + " Preemption is not helpful for scheduling.",
                                now));
            case IMAGE_PULL_FAILING ->
                b.withPhase("Pending")
                        .withHostIP(pod.hostIp)
                        .withPodIP(pod.podIp)
                        .withStartTime(time(pod.scheduledAt))
                        .withConditions(scheduledConditions(
                                false,
                                "ContainersNotReady",
                                "containers with unready status: " + names(containers),
                                pod.scheduledAt))
                        .withContainerStatuses(
                                containers.stream().map(c -> waiting(c, pod)).toList());
            case CONFIG_FAILING ->
                b.withPhase("Pending")
                        .withHostIP(pod.hostIp)
                        .withPodIP(pod.podIp)
                        .withStartTime(time(pod.scheduledAt))
                        .withConditions(scheduledConditions(
                                false,
                                "ContainersNotReady",
                                "containers with unready status: " + names(containers),
                                pod.scheduledAt))
                        .withContainerStatuses(containers.stream()
                                .map(c -> base(c).withReady(false)
                                        .withStarted(false)
                                        .withNewState()
                                        .withNewWaiting()
                                        .withReason("CreateContainerConfigError")
                                        .withMessage(pod.configError)
                                        .endWaiting()
                                        .endState()
                                        .build())
                                .toList());
            case RUNNING ->
                b.withPhase("Running")
                        .withHostIP(pod.hostIp)
                        .withPodIP(pod.podIp)
                        .withStartTime(time(pod.scheduledAt))
                        .withConditions(scheduledConditions(true, null, null, pod.startedAt))
                        .withContainerStatuses(
                                containers.stream().map(c -> running(c, pod)).toList());
            case SUCCEEDED, FAILED -> {
                if (pod.disruption != null) {
                    // as the pod GC writes it before deleting a pod whose node is gone: Failed, DisruptionTarget,
                    // the workload's container killed with its node (SIGTERM's 143)
                    List<PodCondition> conditions =
                            new java.util.ArrayList<>(scheduledConditions(false, "PodCompleted", null, pod.finishedAt));
                    conditions.add(condition(
                            "DisruptionTarget", true, pod.disruption, "PodGC: node no longer exists", pod.finishedAt));
                    b.withPhase("Failed")
                            .withHostIP(pod.hostIp)
                            .withPodIP(pod.podIp)
                            .withStartTime(time(pod.scheduledAt))
                            .withConditions(conditions)
                            .withContainerStatuses(containers.stream()
                                    .map(c -> terminated(c, pod, 143, "Error"))
                                    .toList());
                } else {
                    b.withPhase(pod.phase == SimulatedPod.Phase.SUCCEEDED ? "Succeeded" : "Failed")
                            .withHostIP(pod.hostIp)
                            .withPodIP(pod.podIp)
                            .withStartTime(time(pod.scheduledAt))
                            .withConditions(scheduledConditions(false, "PodCompleted", null, pod.finishedAt))
                            .withContainerStatuses(containers.stream()
                                    .map(c -> terminated(c, pod, job.knobs))
                                    .toList());
                }
            }
        }
        return b.build();
    }

    private static List<PodCondition> scheduledConditions(boolean ready, String reason, String message, Instant at) {
        return List.of(
                condition("PodReadyToStartContainers", true, null, null, at),
                condition("Initialized", true, null, null, at),
                condition("Ready", ready, reason, message, at),
                condition("ContainersReady", ready, reason, message, at),
                condition("PodScheduled", true, null, null, at));
    }

    private static ContainerStatus waiting(Container c, SimulatedPod pod) {
        String reason = pod.backingOff ? "ImagePullBackOff" : "ErrImagePull";
        String message = pod.backingOff
                ? "Back-off pulling image \"" + c.getImage() + "\""
                : "failed to pull and unpack image \"" + c.getImage() + "\": not found";
        return base(c).withReady(false)
                .withStarted(false)
                .withNewState()
                .withNewWaiting()
                .withReason(reason)
                .withMessage(message)
                .endWaiting()
                .endState()
                .build();
    }

    private static ContainerStatus running(Container c, SimulatedPod pod) {
        return base(c).withReady(true)
                .withStarted(true)
                .withNewState()
                .withNewRunning()
                .withStartedAt(time(pod.startedAt))
                .endRunning()
                .endState()
                .build();
    }

    private static ContainerStatus terminated(Container c, SimulatedPod pod, JobKnobs knobs) {
        return terminated(c, pod, knobs.effectiveExitCode(), knobs.terminationReason());
    }

    private static ContainerStatus terminated(Container c, SimulatedPod pod, int exitCode, String reason) {
        return base(c).withReady(false)
                .withStarted(false)
                .withNewState()
                .withNewTerminated()
                .withExitCode(exitCode)
                .withReason(reason)
                .withStartedAt(time(pod.startedAt))
                .withFinishedAt(time(pod.finishedAt))
                .withContainerID("containerd://" + pod.name + "-" + c.getName())
                .endTerminated()
                .endState()
                .build();
    }

    private static ContainerStatusBuilder base(Container c) {
        return new ContainerStatusBuilder()
                .withName(c.getName())
                .withImage(c.getImage())
                .withImageID(c.getImage())
                .withRestartCount(0);
    }

    private static PodCondition condition(String type, boolean status, String reason, String message, Instant at) {
        return new PodConditionBuilder()
                .withType(type)
                .withStatus(status ? "True" : "False")
                .withReason(reason)
                .withMessage(message)
                .withLastTransitionTime(time(at))
                .build();
    }

    private static String names(List<Container> containers) {
        return "["
                + String.join(" ", containers.stream().map(Container::getName).toList()) + "]";
    }

    static String time(Instant instant) {
        return instant == null ? null : DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }
}
