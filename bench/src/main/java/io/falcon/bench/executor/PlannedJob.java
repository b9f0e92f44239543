package io.falcon.bench.executor;

import io.falcon.events.Meta;
import io.falcon.events.ResourceNames;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import io.falcon.scheduler.core.Scheduler;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One job of a phase as the scheduler would dispatch it: its cluster, topology, and the node pool and Kubernetes Job
 * names the scheduler gives it ({@link ResourceNames}, as SchedulerSettings names them).
 */
record PlannedJob(String jobId, ClusterTarget cluster, String topology, String nodePool, String k8sJob, String actor) {
    static final String TPU_TYPE = "v6e";
    static final List<String> TOPOLOGIES = List.of("2x2", "2x4", "4x4");
    /** The reservation a reservation pool names; the fake GKE gives every reservation plenty of room. */
    static final String RESERVATION = "falcon-bench-reservation";

    /** The workload every Job runs (as the executor's test fixtures have it): the bench never runs it. */
    static final JobSpec SPEC = new JobSpec(
            "us-docker.pkg.dev/p/r/train:1", List.of("python", "train.py"), List.of("--steps", "10"), Map.of());

    /** {@code count} v6e clusters, xtput-01 on. */
    static List<ClusterTarget> clusters(int count) {
        List<ClusterTarget> clusters = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            String id = String.format("xtput-%02d", i);
            clusters.add(new ClusterTarget(id, "edge-" + id, "proj-xtput", "us-east5", TPU_TYPE, "bucket-" + id));
        }
        return clusters;
    }

    /** Jobs round-robin over the clusters and the topologies (8 and 3 are coprime: every pair occurs). */
    static List<PlannedJob> plan(String idPrefix, int jobs, int clusterCount, String installation) {
        List<ClusterTarget> clusters = clusters(clusterCount);
        List<PlannedJob> plan = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            String jobId = idPrefix + "-" + String.format("%05d", i);
            plan.add(new PlannedJob(
                    jobId,
                    clusters.get(i % clusters.size()),
                    TOPOLOGIES.get(i % TOPOLOGIES.size()),
                    ResourceNames.nodePool(installation, jobId),
                    ResourceNames.k8sJob(installation, jobId),
                    "actor-" + (i % 8)));
        }
        return plan;
    }

    /** As SchedulerState.ensurePool builds it: a reservation is named only for a reservation pool. */
    ExecutorCommand.EnsureNodePool ensureNodePool(SupplyMode supply, Instant now) {
        return new ExecutorCommand.EnsureNodePool(
                Meta.of(Scheduler.PRODUCER, now),
                jobId,
                cluster,
                nodePool,
                TPU_TYPE,
                topology,
                supply,
                supply == SupplyMode.RESERVATION ? Optional.of(RESERVATION) : Optional.empty());
    }

    /** As SchedulerState.ensureJob builds it for a Job not seen created yet. */
    ExecutorCommand.EnsureJob ensureJob(Instant now) {
        return new ExecutorCommand.EnsureJob(
                Meta.of(Scheduler.PRODUCER, now),
                jobId,
                cluster,
                nodePool,
                k8sJob,
                TPU_TYPE,
                topology,
                SPEC,
                Optional.empty(),
                Optional.of(actor));
    }
}
