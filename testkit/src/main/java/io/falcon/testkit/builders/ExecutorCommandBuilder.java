package io.falcon.testkit.builders;

import io.falcon.events.Meta;
import io.falcon.events.ResourceNames;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the scheduler asks the executor to do for one job, with the names it would use:
 * {@code executorCommand("j1").supplyMode(SupplyMode.FLEX_START).ensureNodePool()}. By default the job is a 2x4 v6e
 * on-demand job on {@code clusterRow("c1")}'s cluster, its pool and Kubernetes Job named as {@link ResourceNames}
 * names them, running {@link #SPEC}; the command is produced by "scheduler-streams" at {@link #AT}.
 */
public final class ExecutorCommandBuilder {
    public static final Instant AT = Instant.parse("2026-12-02T10:00:00Z");
    public static final JobSpec SPEC =
            new JobSpec("us-docker.pkg.dev/p/r/train:1", List.of("python", "train.py"), List.of(), Map.of());

    private final String jobId;
    private ClusterTarget cluster = ClusterRowBuilder.clusterRow("c1").target();
    private String nodePoolName;
    private String k8sJobName;
    private String tpuType = "v6e";
    private String topology = "2x4";
    private SupplyMode supplyMode = SupplyMode.ON_DEMAND;
    private Optional<String> reservation = Optional.empty();
    private JobSpec spec = SPEC;
    private String producer = "scheduler-streams";
    private Instant at = AT;

    private ExecutorCommandBuilder(String jobId) {
        this.jobId = jobId;
        this.nodePoolName = ResourceNames.nodePool(ResourceNames.DEFAULT_INSTALLATION, jobId);
        this.k8sJobName = ResourceNames.k8sJob(ResourceNames.DEFAULT_INSTALLATION, jobId);
    }

    public static ExecutorCommandBuilder executorCommand(String jobId) {
        return new ExecutorCommandBuilder(jobId);
    }

    /** The cluster to act on; its TPU type becomes the job's. */
    public ExecutorCommandBuilder cluster(ClusterTarget value) {
        cluster = value;
        tpuType = value.tpuType();
        return this;
    }

    public ExecutorCommandBuilder nodePoolName(String value) {
        nodePoolName = value;
        return this;
    }

    public ExecutorCommandBuilder k8sJobName(String value) {
        k8sJobName = value;
        return this;
    }

    public ExecutorCommandBuilder tpuType(String value) {
        tpuType = value;
        return this;
    }

    public ExecutorCommandBuilder topology(String value) {
        topology = value;
        return this;
    }

    public ExecutorCommandBuilder supplyMode(SupplyMode value) {
        supplyMode = value;
        return this;
    }

    /** A reservation pool: supply mode reservation from this reservation. */
    public ExecutorCommandBuilder reservation(String value) {
        supplyMode = SupplyMode.RESERVATION;
        reservation = Optional.of(value);
        return this;
    }

    public ExecutorCommandBuilder spec(JobSpec value) {
        spec = value;
        return this;
    }

    public ExecutorCommandBuilder producer(String value) {
        producer = value;
        return this;
    }

    public ExecutorCommandBuilder at(Instant value) {
        at = value;
        return this;
    }

    private Meta meta() {
        return Meta.of(producer, at);
    }

    public ExecutorCommand.EnsureNodePool ensureNodePool() {
        return new ExecutorCommand.EnsureNodePool(
                meta(), jobId, cluster, nodePoolName, tpuType, topology, supplyMode, reservation);
    }

    public ExecutorCommand.EnsureJob ensureJob() {
        return new ExecutorCommand.EnsureJob(meta(), jobId, cluster, nodePoolName, k8sJobName, tpuType, topology, spec);
    }

    public ExecutorCommand.EnsureJobDeleted ensureJobDeleted() {
        return new ExecutorCommand.EnsureJobDeleted(meta(), jobId, cluster, k8sJobName);
    }

    public ExecutorCommand.EnsureNodePoolDeleted ensureNodePoolDeleted() {
        return new ExecutorCommand.EnsureNodePoolDeleted(meta(), jobId, cluster, nodePoolName);
    }
}
