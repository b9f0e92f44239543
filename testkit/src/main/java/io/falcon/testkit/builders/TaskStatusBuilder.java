package io.falcon.testkit.builders;

import io.falcon.events.Meta;
import io.falcon.events.status.Reason;
import io.falcon.events.status.StartEstimate;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Instant;
import java.util.Optional;

/**
 * A task status transition as the scheduler publishes it, changed only where a test says so:
 * {@code taskStatus("j1").version(3).status(Status.Running).message("Pod 运行中").build()}. By default the first
 * transition (version 1) to Pending without a reason or message, produced by "test" at {@link #AT}, nothing
 * scheduled yet.
 */
public final class TaskStatusBuilder {
    public static final Instant AT = Instant.parse("2026-12-02T10:00:00Z");

    private final String jobId;
    private long version = 1;
    private Status status = Status.Pending;
    private Optional<Reason> reason = Optional.empty();
    private String message = "";
    private Optional<String> clusterId = Optional.empty();
    private Optional<String> nodePoolName = Optional.empty();
    private Optional<String> k8sJobName = Optional.empty();
    private Optional<String> jobUid = Optional.empty();
    private Optional<Instant> dispatchedAt = Optional.empty();
    private Optional<Instant> finishedAt = Optional.empty();
    private Optional<Instant> abortedAt = Optional.empty();
    private Optional<StartEstimate> estimatedStart = Optional.empty();
    private String producer = "test";
    private Instant at = AT;

    private TaskStatusBuilder(String jobId) {
        this.jobId = jobId;
    }

    public static TaskStatusBuilder taskStatus(String jobId) {
        return new TaskStatusBuilder(jobId);
    }

    public TaskStatusBuilder version(long value) {
        version = value;
        return this;
    }

    public TaskStatusBuilder status(Status value) {
        status = value;
        return this;
    }

    /** A status with its reason, e.g. Pending/Provisioning or Failed/JobFailed. */
    public TaskStatusBuilder status(Status value, Reason why) {
        status = value;
        reason = Optional.of(why);
        return this;
    }

    public TaskStatusBuilder reason(Optional<Reason> value) {
        reason = value;
        return this;
    }

    public TaskStatusBuilder message(String value) {
        message = value;
        return this;
    }

    public TaskStatusBuilder clusterId(String value) {
        clusterId = Optional.of(value);
        return this;
    }

    public TaskStatusBuilder nodePoolName(String value) {
        nodePoolName = Optional.of(value);
        return this;
    }

    public TaskStatusBuilder k8sJobName(String value) {
        k8sJobName = Optional.of(value);
        return this;
    }

    public TaskStatusBuilder jobUid(String value) {
        jobUid = Optional.of(value);
        return this;
    }

    public TaskStatusBuilder dispatchedAt(Instant value) {
        dispatchedAt = Optional.of(value);
        return this;
    }

    public TaskStatusBuilder finishedAt(Instant value) {
        finishedAt = Optional.of(value);
        return this;
    }

    public TaskStatusBuilder abortedAt(Instant value) {
        abortedAt = Optional.of(value);
        return this;
    }

    /** The start-time estimate a waiting job's status carries. */
    public TaskStatusBuilder estimatedStart(Instant earliest, Instant latest) {
        estimatedStart = Optional.of(new StartEstimate(earliest, latest));
        return this;
    }

    public TaskStatusBuilder producer(String value) {
        producer = value;
        return this;
    }

    /** When the transition happened (the event's time). */
    public TaskStatusBuilder at(Instant value) {
        at = value;
        return this;
    }

    public TaskStatus build() {
        return new TaskStatus(
                Meta.of(producer, at),
                jobId,
                version,
                status,
                reason,
                message,
                clusterId,
                nodePoolName,
                k8sJobName,
                jobUid,
                dispatchedAt,
                finishedAt,
                abortedAt,
                estimatedStart);
    }
}
