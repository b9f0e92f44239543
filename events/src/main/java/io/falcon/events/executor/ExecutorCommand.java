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

    /**
     * @param jobUid the uid of the Job, when the scheduler has seen it created (a re-sent EnsureJob while its pods wait
     *     for nodes): that Job is then only looked at, never created again, so a Job deleted by someone else meanwhile
     *     is reported gone rather than silently run a second time. Absent in commands written before it existed.
     */
    record EnsureJob(
            Meta meta,
            String jobId,
            ClusterTarget cluster,
            String nodePoolName,
            String k8sJobName,
            String tpuType,
            String topology,
            JobSpec spec,
            Optional<String> jobUid)
            implements ExecutorCommand {
        public EnsureJob {
            jobUid = jobUid == null ? Optional.empty() : jobUid;
        }

        /** A Job not seen created yet: create it. */
        public EnsureJob(
                Meta meta,
                String jobId,
                ClusterTarget cluster,
                String nodePoolName,
                String k8sJobName,
                String tpuType,
                String topology,
                JobSpec spec) {
            this(meta, jobId, cluster, nodePoolName, k8sJobName, tpuType, topology, spec, Optional.empty());
        }
    }

    record EnsureJobDeleted(Meta meta, String jobId, ClusterTarget cluster, String k8sJobName)
            implements ExecutorCommand {}

    record EnsureNodePoolDeleted(Meta meta, String jobId, ClusterTarget cluster, String nodePoolName)
            implements ExecutorCommand {}
}
