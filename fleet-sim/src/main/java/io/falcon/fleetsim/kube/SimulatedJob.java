package io.falcon.fleetsim.kube;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The simulator's view of one Job (owned by the simulator thread). */
final class SimulatedJob {

    enum Outcome {
        NONE,
        COMPLETE,
        FAILED
    }

    final String namespace;
    final String name;
    final String uid;
    Job job;
    final JobKnobs knobs;
    final boolean indexed;
    final int completions;
    final int backoffLimit;
    final Long activeDeadlineSeconds;
    final List<SimulatedPod> pods = new ArrayList<>();
    int failedPods;
    Instant startTime;
    Instant completionTime;
    Outcome outcome = Outcome.NONE;
    String failureReason;
    String failureMessage;
    Instant finishedAt;
    JobStatus lastWritten;
    /** The milestones already announced for this Job. */
    final java.util.Set<io.falcon.fleetsim.FleetMilestones.Type> announced =
            java.util.EnumSet.noneOf(io.falcon.fleetsim.FleetMilestones.Type.class);

    SimulatedJob(Job job) {
        this.job = job;
        this.namespace = job.getMetadata().getNamespace();
        this.name = job.getMetadata().getName();
        this.uid = job.getMetadata().getUid();
        this.knobs = JobKnobs.of(job);
        var spec = job.getSpec();
        this.indexed = "Indexed".equals(spec.getCompletionMode());
        this.completions = spec.getCompletions() == null ? 1 : Math.max(0, spec.getCompletions());
        this.backoffLimit = spec.getBackoffLimit() == null ? 6 : spec.getBackoffLimit();
        this.activeDeadlineSeconds = spec.getActiveDeadlineSeconds();
    }

    String key() {
        return namespace + "/" + name;
    }

    /**
     * What a FailJob rule of the Job's podFailurePolicy matched (the Failed condition's message), once a pod failed
     * with a condition it names; null while none has.
     */
    String failedByPolicy;

    /** The first podFailurePolicy rule that fails the Job on a pod condition of this type (true), if any. */
    java.util.OptionalInt failJobRuleOnCondition(String type) {
        var policy = job.getSpec().getPodFailurePolicy();
        if (policy == null || policy.getRules() == null) {
            return java.util.OptionalInt.empty();
        }
        var rules = policy.getRules();
        for (int i = 0; i < rules.size(); i++) {
            var rule = rules.get(i);
            if ("FailJob".equals(rule.getAction())
                    && rule.getOnPodConditions() != null
                    && rule.getOnPodConditions().stream()
                            .anyMatch(p -> type.equals(p.getType())
                                    && (p.getStatus() == null || "True".equals(p.getStatus())))) {
                return java.util.OptionalInt.of(i);
            }
        }
        return java.util.OptionalInt.empty();
    }

    boolean suspended() {
        return Boolean.TRUE.equals(job.getSpec().getSuspend());
    }

    boolean finished() {
        return outcome != Outcome.NONE;
    }

    long succeededPods() {
        return pods.stream()
                .filter(p -> p.phase == SimulatedPod.Phase.SUCCEEDED)
                .count();
    }

    /** The pod currently responsible for a completion slot: live, or succeeded. */
    boolean slotCovered(int index) {
        return pods.stream().anyMatch(p -> p.index == index && p.phase != SimulatedPod.Phase.FAILED);
    }

    List<SimulatedPod> livePods() {
        return pods.stream().filter(p -> !p.terminal()).toList();
    }
}
