package io.falcon.events.executor;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.falcon.events.Meta;

/** What the executor observed at the GKE and Kubernetes APIs, keyed by tpu_type. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = ExecutorEvent.NodePoolReady.class, name = "NodePoolReady"),
        @JsonSubTypes.Type(value = ExecutorEvent.NodePoolCreateFailed.class, name = "NodePoolCreateFailed"),
        @JsonSubTypes.Type(value = ExecutorEvent.NodePoolDeleted.class, name = "NodePoolDeleted"),
        @JsonSubTypes.Type(value = ExecutorEvent.JobSubmitted.class, name = "JobSubmitted"),
        @JsonSubTypes.Type(value = ExecutorEvent.JobSubmitFailed.class, name = "JobSubmitFailed"),
        @JsonSubTypes.Type(value = ExecutorEvent.JobRunning.class, name = "JobRunning"),
        @JsonSubTypes.Type(value = ExecutorEvent.JobSucceeded.class, name = "JobSucceeded"),
        @JsonSubTypes.Type(value = ExecutorEvent.JobFailed.class, name = "JobFailed"),
        @JsonSubTypes.Type(value = ExecutorEvent.JobDeleted.class, name = "JobDeleted")})
public sealed interface ExecutorEvent {
    Meta meta();

    String jobId();

    String clusterId();

    String tpuType();

    record NodePoolReady(Meta meta, String jobId, String clusterId, String tpuType, String nodePoolName)
            implements ExecutorEvent {
    }

    /** Creation failed (GKE error) or did not finish in time (timedOut). */
    record NodePoolCreateFailed(Meta meta, String jobId, String clusterId, String tpuType, String nodePoolName,
            boolean timedOut, String message) implements ExecutorEvent {
    }

    record NodePoolDeleted(Meta meta, String jobId, String clusterId, String tpuType, String nodePoolName)
            implements ExecutorEvent {
    }

    record JobSubmitted(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName,
            String jobUid) implements ExecutorEvent {
    }

    record JobSubmitFailed(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName,
            String message) implements ExecutorEvent {
    }

    /** Pods of the job are running: active of expected. */
    record JobRunning(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName, int active,
            int expected) implements ExecutorEvent {
    }

    record JobSucceeded(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName)
            implements ExecutorEvent {
    }

    record JobFailed(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName,
            String message) implements ExecutorEvent {
    }

    record JobDeleted(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName)
            implements ExecutorEvent {
    }
}
