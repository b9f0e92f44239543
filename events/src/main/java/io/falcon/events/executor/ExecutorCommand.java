package io.falcon.events.executor;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.falcon.events.Meta;
import java.util.Optional;

/**
 * Level-triggered, idempotent commands for the executor, keyed by cluster id. Each names the state it wants;
 * redelivery is harmless.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = ExecutorCommand.EnsureNodePool.class, name = "EnsureNodePool"),
    @JsonSubTypes.Type(value = ExecutorCommand.EnsureJob.class, name = "EnsureJob"),
    @JsonSubTypes.Type(value = ExecutorCommand.EnsureJobDeleted.class, name = "EnsureJobDeleted"),
    @JsonSubTypes.Type(value = ExecutorCommand.EnsureNodePoolDeleted.class, name = "EnsureNodePoolDeleted")
})
public sealed interface ExecutorCommand {
    Meta meta();

    String jobId();

    ClusterTarget cluster();

    record EnsureNodePool(
            Meta meta,
            String jobId,
            ClusterTarget cluster,
            String nodePoolName,
            String tpuType,
            String topology,
            SupplyMode supplyMode,
            Optional<String> reservation)
            implements ExecutorCommand {}

    record EnsureJob(
            Meta meta,
            String jobId,
            ClusterTarget cluster,
            String nodePoolName,
            String k8sJobName,
            String tpuType,
            String topology,
            JobSpec spec)
            implements ExecutorCommand {}

    record EnsureJobDeleted(Meta meta, String jobId, ClusterTarget cluster, String k8sJobName)
            implements ExecutorCommand {}

    record EnsureNodePoolDeleted(Meta meta, String jobId, ClusterTarget cluster, String nodePoolName)
            implements ExecutorCommand {}
}
