package io.falcon.scheduler.core;

import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.Optional;

/**
 * The scheduler's state of one job. Immutable: every change makes a new value, which the shell persists.
 * seq is the submission time in ms (FIFO order, ties by job id); version counts published status transitions.
 */
public record ScheduledJob(
        ValidRequest request,
        long seq,
        Phase phase,
        Optional<String> clusterId,
        Optional<SupplyMode> supplyMode,
        Optional<String> nodePoolName,
        Optional<String> k8sJobName,
        Optional<String> jobUid,
        Optional<Instant> dispatchedAt,
        Status status,
        Optional<Reason> reason,
        String message,
        long version,
        Optional<Instant> wakeAt) {

    /**
     * FIFO order is submission order: the row's created_at, ties broken by job id. Arrival order at the
     * scheduler would not do: row changes reach it through differently keyed partitions.
     */
    public static ScheduledJob accepted(ValidRequest request) {
        return new ScheduledJob(request, request.submittedAt().toEpochMilli(), Phase.UNPLACED, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Status.Pending, Optional.of(Reason.Waiting), "",
                0, Optional.empty());
    }

    public String id() {
        return request.id();
    }

    public String actor() {
        return request.actor();
    }

    public Optional<QueueKey> queue() {
        return clusterId.map(c -> new QueueKey(c, request.topology().text()));
    }

    public ScheduledJob withPhase(Phase newPhase) {
        return new ScheduledJob(request, seq, newPhase, clusterId, supplyMode, nodePoolName, k8sJobName, jobUid,
                dispatchedAt, status, reason, message, version, wakeAt);
    }

    public ScheduledJob withCluster(Optional<String> newClusterId) {
        return new ScheduledJob(request, seq, phase, newClusterId, supplyMode, nodePoolName, k8sJobName, jobUid,
                dispatchedAt, status, reason, message, version, wakeAt);
    }

    public ScheduledJob withSupplyMode(SupplyMode mode) {
        return new ScheduledJob(request, seq, phase, clusterId, Optional.of(mode), nodePoolName, k8sJobName, jobUid,
                dispatchedAt, status, reason, message, version, wakeAt);
    }

    public ScheduledJob withNodePool(String pool) {
        return new ScheduledJob(request, seq, phase, clusterId, supplyMode, Optional.of(pool), k8sJobName, jobUid,
                dispatchedAt, status, reason, message, version, wakeAt);
    }

    public ScheduledJob withK8sJob(String name, Optional<String> uid, Optional<Instant> dispatched) {
        return new ScheduledJob(request, seq, phase, clusterId, supplyMode, nodePoolName, Optional.of(name), uid,
                dispatched, status, reason, message, version, wakeAt);
    }

    /** The next published status; the version grows so that writers can drop stale events. */
    public ScheduledJob withStatus(Status newStatus, Optional<Reason> newReason, String newMessage) {
        return new ScheduledJob(request, seq, phase, clusterId, supplyMode, nodePoolName, k8sJobName, jobUid,
                dispatchedAt, newStatus, newReason, newMessage, version + 1, wakeAt);
    }

    /** When the scheduler must look at this job again (a retry or a backstop), if ever. */
    public ScheduledJob withWakeAt(Optional<Instant> at) {
        return new ScheduledJob(request, seq, phase, clusterId, supplyMode, nodePoolName, k8sJobName, jobUid,
                dispatchedAt, status, reason, message, version, at);
    }

    public Optional<Instant> executionDeadline() {
        return dispatchedAt.flatMap(d -> request.timeoutSeconds().map(d::plusSeconds));
    }
}
