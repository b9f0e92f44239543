package io.falcon.executor.core;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the status decisions need of a Pod of a Falcon Job, in plain Java.
 *
 * @param jobName the Job it belongs to (Falcon's label, else the job controller's)
 * @param ownerJobUid the uid of its owning Job, when it has an owner reference
 * @param scheduledAt when it was bound to its node (its PodScheduled condition turned True, else the kubelet's
 *     status.startTime): only from then can it pull its image
 * @param unschedulable its PodScheduled condition is False with reason Unschedulable: no node can take it now (for a
 *     TPU pod, usually because its pool has fewer Ready nodes than the slice has VMs)
 * @param disruption the reason of its DisruptionTarget condition, when True: Kubernetes is deleting it for the
 *     fleet's reasons (PreemptionByScheduler, DeletionByTaintManager, EvictionByEvictionAPI, DeletionByPodGC,
 *     TerminationByKubelet), not the program's
 */
public record PodView(
        String name,
        Optional<String> jobName,
        Optional<String> ownerJobUid,
        String phase,
        boolean deleting,
        Optional<Instant> createdAt,
        Optional<Instant> scheduledAt,
        String reason,
        String message,
        boolean unschedulable,
        List<Container> containers,
        Optional<String> disruption) {

    public PodView {
        containers = List.copyOf(containers);
    }

    /** A pod without a DisruptionTarget condition. */
    public PodView(
            String name,
            Optional<String> jobName,
            Optional<String> ownerJobUid,
            String phase,
            boolean deleting,
            Optional<Instant> createdAt,
            Optional<Instant> scheduledAt,
            String reason,
            String message,
            boolean unschedulable,
            List<Container> containers) {
        this(
                name,
                jobName,
                ownerJobUid,
                phase,
                deleting,
                createdAt,
                scheduledAt,
                reason,
                message,
                unschedulable,
                containers,
                Optional.empty());
    }

    public record Container(
            Optional<Terminated> terminated, Optional<Terminated> lastTerminated, Optional<Waiting> waiting) {}

    public record Terminated(int exitCode, String reason) {}

    public record Waiting(String reason, String message) {}

    /** Whether the pod belongs to this Job (same name, and not to an earlier Job of the same name). */
    public boolean belongsTo(JobView job) {
        return jobName.filter(job.name()::equals).isPresent()
                && ownerJobUid.map(uid -> uid.equals(job.uid())).orElse(true);
    }
}
