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
     * @param actor the job's actor (the jobs row's {@code actor}): whose Secrets its spec may reference, and the
     *     identity its pods run as when {@code falcon.executor.job.identity} is {@code actor}. Absent in commands
     *     written before it existed.
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
            Optional<String> jobUid,
            Optional<String> actor)
            implements ExecutorCommand {
        public EnsureJob {
            jobUid = jobUid == null ? Optional.empty() : jobUid;
            actor = actor == null ? Optional.empty() : actor;
        }

        /** A command without an actor (tools and tests that need none). */
        public EnsureJob(
                Meta meta,
                String jobId,
                ClusterTarget cluster,
                String nodePoolName,
                String k8sJobName,
                String tpuType,
                String topology,
                JobSpec spec,
                Optional<String> jobUid) {
            this(meta, jobId, cluster, nodePoolName, k8sJobName, tpuType, topology, spec, jobUid, Optional.empty());
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
            this(
                    meta,
                    jobId,
                    cluster,
                    nodePoolName,
                    k8sJobName,
                    tpuType,
                    topology,
                    spec,
                    Optional.empty(),
                    Optional.empty());
        }

        /** The same command for a job of the given actor. */
        public EnsureJob withActor(String newActor) {
            return new EnsureJob(
                    meta,
                    jobId,
                    cluster,
                    nodePoolName,
                    k8sJobName,
                    tpuType,
                    topology,
                    spec,
                    jobUid,
                    Optional.of(newActor));
        }
    }

    record EnsureJobDeleted(Meta meta, String jobId, ClusterTarget cluster, String k8sJobName)
            implements ExecutorCommand {}

    record EnsureNodePoolDeleted(Meta meta, String jobId, ClusterTarget cluster, String nodePoolName)
            implements ExecutorCommand {}
}
