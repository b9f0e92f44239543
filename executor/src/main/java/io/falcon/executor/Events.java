package io.falcon.executor;

import io.falcon.events.Meta;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorEvent;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Builds executor events with their Meta. Event ids are deterministic per (kind, cluster, object, job), so the same
 * observation reported again (redelivery, restart) carries the same id and downstream can drop it.
 */
public final class Events {
    private final String producer;
    private final Clock clock;

    public Events(String producer, Clock clock) {
        this.producer = producer;
        this.clock = clock;
    }

    private Meta meta(String... identity) {
        return Meta.deterministic(producer, clock.instant(), String.join("/", identity));
    }

    public ExecutorEvent.NodePoolReady nodePoolReady(String jobId, ClusterTarget c, String pool) {
        return new ExecutorEvent.NodePoolReady(
                meta("NodePoolReady", c.clusterId(), pool, jobId), jobId, c.clusterId(), c.tpuType(), pool);
    }

    public ExecutorEvent.NodePoolCreating nodePoolCreating(String jobId, ClusterTarget c, String pool) {
        return new ExecutorEvent.NodePoolCreating(
                meta("NodePoolCreating", c.clusterId(), pool, jobId), jobId, c.clusterId(), c.tpuType(), pool);
    }

    public ExecutorEvent.NodePoolCreateFailed nodePoolCreateFailed(
            String jobId, ClusterTarget c, String pool, boolean timedOut, long timeoutSeconds, String message) {
        return new ExecutorEvent.NodePoolCreateFailed(
                meta("NodePoolCreateFailed", c.clusterId(), pool, jobId),
                jobId,
                c.clusterId(),
                c.tpuType(),
                pool,
                timedOut,
                timeoutSeconds,
                message);
    }

    public ExecutorEvent.NodePoolDeleted nodePoolDeleted(String jobId, ClusterTarget c, String pool) {
        return new ExecutorEvent.NodePoolDeleted(
                meta("NodePoolDeleted", c.clusterId(), pool, jobId), jobId, c.clusterId(), c.tpuType(), pool);
    }

    public ExecutorEvent.NodePoolDeleteFailing nodePoolDeleteFailing(
            String jobId, ClusterTarget c, String pool, int failures, String message) {
        return new ExecutorEvent.NodePoolDeleteFailing(
                meta("NodePoolDeleteFailing", c.clusterId(), pool, Integer.toString(failures)),
                jobId,
                c.clusterId(),
                c.tpuType(),
                pool,
                failures,
                message);
    }

    public ExecutorEvent.JobSubmitted jobSubmitted(String jobId, ClusterTarget c, String k8sJob, String uid) {
        return new ExecutorEvent.JobSubmitted(
                meta("JobSubmitted", c.clusterId(), k8sJob, uid), jobId, c.clusterId(), c.tpuType(), k8sJob, uid);
    }

    /** retryable: no answer, 5xx or 429 (the scheduler asks again); otherwise a refusal. */
    public ExecutorEvent.JobSubmitFailed jobSubmitFailed(
            String jobId, ClusterTarget c, String k8sJob, String message, boolean retryable, Instant askedAt) {
        return new ExecutorEvent.JobSubmitFailed(
                meta("JobSubmitFailed", c.clusterId(), k8sJob, jobId, message),
                jobId,
                c.clusterId(),
                c.tpuType(),
                k8sJob,
                message,
                retryable,
                Optional.of(askedAt));
    }

    public ExecutorEvent.JobDeleted jobDeleted(String jobId, ClusterTarget c, String k8sJob) {
        return new ExecutorEvent.JobDeleted(
                meta("JobDeleted", c.clusterId(), k8sJob, jobId), jobId, c.clusterId(), c.tpuType(), k8sJob);
    }

    public ExecutorEvent.JobRunning jobRunning(
            String jobId,
            String clusterId,
            String tpuType,
            String k8sJob,
            String uid,
            int active,
            int expected,
            Optional<Instant> podsBoundAt) {
        return new ExecutorEvent.JobRunning(
                meta("JobRunning", clusterId, k8sJob, uid),
                jobId,
                clusterId,
                tpuType,
                k8sJob,
                uid,
                active,
                expected,
                podsBoundAt);
    }

    public ExecutorEvent.JobSucceeded jobSucceeded(
            String jobId, String clusterId, String tpuType, String k8sJob, String uid) {
        return new ExecutorEvent.JobSucceeded(
                meta("JobSucceeded", clusterId, k8sJob, uid), jobId, clusterId, tpuType, k8sJob);
    }

    public ExecutorEvent.JobFailed jobFailed(
            String jobId,
            String clusterId,
            String tpuType,
            String k8sJob,
            String uid,
            String message,
            io.falcon.events.executor.FailureCause cause) {
        return new ExecutorEvent.JobFailed(
                meta("JobFailed", clusterId, k8sJob, uid), jobId, clusterId, tpuType, k8sJob, message, cause);
    }

    public ExecutorEvent.NodePoolWaitingForNodes nodePoolWaitingForNodes(
            String jobId, ClusterTarget c, String pool, int registered, int ready, int expected) {
        return nodePoolWaitingForNodes(jobId, c.clusterId(), c.tpuType(), pool, registered, ready, expected);
    }

    public ExecutorEvent.NodePoolWaitingForNodes nodePoolWaitingForNodes(
            String jobId, String clusterId, String tpuType, String pool, int registered, int ready, int expected) {
        return new ExecutorEvent.NodePoolWaitingForNodes(
                meta("NodePoolWaitingForNodes", clusterId, pool, jobId, registered + "/" + ready + "/" + expected),
                jobId,
                clusterId,
                tpuType,
                pool,
                registered,
                ready,
                expected);
    }

    /** The node count of a pool that pods of the job's Job wait for (the informers see them Unschedulable). */
    public ExecutorEvent.NodePoolWaitingForNodes podsWaitingForNodes(
            String jobId, String clusterId, String tpuType, String pool, int registered, int ready, int expected) {
        return new ExecutorEvent.NodePoolWaitingForNodes(
                meta("PodsWaitingForNodes", clusterId, pool, jobId, registered + "/" + ready + "/" + expected),
                jobId,
                clusterId,
                tpuType,
                pool,
                registered,
                ready,
                expected,
                true);
    }

    /** The id includes the command's, so each re-sent EnsureNodePool gets its own answer. */
    public ExecutorEvent.ReservationShort reservationShort(
            String jobId,
            ClusterTarget c,
            String pool,
            String reservation,
            int remainingSlices,
            int neededSlices,
            String commandId) {
        return new ExecutorEvent.ReservationShort(
                meta("ReservationShort", c.clusterId(), pool, jobId, commandId, Integer.toString(remainingSlices)),
                jobId,
                c.clusterId(),
                c.tpuType(),
                pool,
                reservation,
                remainingSlices,
                neededSlices);
    }

    /** Every read of a reservation is a new observation (random id). */
    public ExecutorEvent.ReservationSeen reservationSeen(
            String jobId, ClusterTarget c, String reservation, long count, long inUse) {
        return new ExecutorEvent.ReservationSeen(
                Meta.of(producer, clock.instant()), jobId, c.clusterId(), c.tpuType(), reservation, count, inUse);
    }

    /** Every observation of a cluster's absence is a new one (random id): the scheduler takes a repeat as a no-op. */
    public ExecutorEvent.ClusterGone clusterGone(ClusterTarget c, String message) {
        return new ExecutorEvent.ClusterGone(
                Meta.of(producer, clock.instant()), "", c.clusterId(), c.tpuType(), c.resourceName(), message);
    }

    /** Every inventory is a new observation (random id). */
    public ExecutorEvent.JobInventory jobInventory(ClusterTarget c, List<ExecutorEvent.ObservedJob> jobs) {
        return new ExecutorEvent.JobInventory(
                Meta.of(producer, clock.instant()), "", c.clusterId(), c.tpuType(), c.resourceName(), jobs);
    }

    /** Every inventory is a new observation (random id). */
    public ExecutorEvent.NodePoolInventory nodePoolInventory(ClusterTarget c, List<ExecutorEvent.ObservedPool> pools) {
        return new ExecutorEvent.NodePoolInventory(
                Meta.of(producer, clock.instant()), "", c.clusterId(), c.tpuType(), c.resourceName(), pools);
    }
}
