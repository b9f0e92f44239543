package io.falcon.testkit.builders;

import io.falcon.events.Meta;
import io.falcon.events.ResourceNames;
import io.falcon.events.executor.ExecutorEvent;
import java.time.Instant;
import java.util.List;

/**
 * What the executor reports about one job, with the names it would use for it:
 * {@code executorEvent("j1").cluster("c1").jobRunning()}. By default the job runs on cluster c1 (v6e), its pool and
 * Kubernetes Job are named as {@link ResourceNames} names them, its uid is uid-ID, one of one pods is active, and
 * the event is produced by "executor" at {@link #AT}. Inventories are about a cluster, not a job:
 * {@code inventoryOf("c1").nodePools(...)}.
 */
public final class ExecutorEventBuilder {
    public static final Instant AT = Instant.parse("2026-12-02T10:00:00Z");

    private final String jobId;
    private String clusterId = "c1";
    private String tpuType = "v6e";
    private String nodePoolName;
    private String k8sJobName;
    private String jobUid;
    private String message = "";
    private int active = 1;
    private int expected = 1;
    private String producer = "executor";
    private Instant at = AT;

    private ExecutorEventBuilder(String jobId) {
        this.jobId = jobId;
        this.nodePoolName = ResourceNames.nodePool(ResourceNames.DEFAULT_INSTALLATION, jobId);
        this.k8sJobName = ResourceNames.k8sJob(ResourceNames.DEFAULT_INSTALLATION, jobId);
        this.jobUid = "uid-" + jobId;
    }

    public static ExecutorEventBuilder executorEvent(String jobId) {
        return new ExecutorEventBuilder(jobId);
    }

    /** For the periodic inventories, which carry no job id. */
    public static ExecutorEventBuilder inventoryOf(String clusterId) {
        return new ExecutorEventBuilder("").cluster(clusterId);
    }

    public ExecutorEventBuilder cluster(String value) {
        clusterId = value;
        return this;
    }

    public ExecutorEventBuilder tpuType(String value) {
        tpuType = value;
        return this;
    }

    public ExecutorEventBuilder nodePoolName(String value) {
        nodePoolName = value;
        return this;
    }

    public ExecutorEventBuilder k8sJobName(String value) {
        k8sJobName = value;
        return this;
    }

    public ExecutorEventBuilder jobUid(String value) {
        jobUid = value;
        return this;
    }

    /** The error or explanation of the failure events. */
    public ExecutorEventBuilder message(String value) {
        message = value;
        return this;
    }

    /** Pods of a running job: active of expected. */
    public ExecutorEventBuilder pods(int activePods, int expectedPods) {
        active = activePods;
        expected = expectedPods;
        return this;
    }

    public ExecutorEventBuilder producer(String value) {
        producer = value;
        return this;
    }

    public ExecutorEventBuilder at(Instant value) {
        at = value;
        return this;
    }

    private Meta meta() {
        return Meta.of(producer, at);
    }

    public ExecutorEvent.NodePoolCreating nodePoolCreating() {
        return new ExecutorEvent.NodePoolCreating(meta(), jobId, clusterId, tpuType, nodePoolName);
    }

    public ExecutorEvent.NodePoolReady nodePoolReady() {
        return new ExecutorEvent.NodePoolReady(meta(), jobId, clusterId, tpuType, nodePoolName);
    }

    /** GKE refused the creation (with the message). */
    public ExecutorEvent.NodePoolCreateFailed nodePoolCreateFailed() {
        return new ExecutorEvent.NodePoolCreateFailed(
                meta(), jobId, clusterId, tpuType, nodePoolName, false, 0, message);
    }

    /** The creation did not finish within the executor's create timeout. */
    public ExecutorEvent.NodePoolCreateFailed nodePoolCreateTimedOut(long timeoutSeconds) {
        return new ExecutorEvent.NodePoolCreateFailed(
                meta(), jobId, clusterId, tpuType, nodePoolName, true, timeoutSeconds, message);
    }

    public ExecutorEvent.NodePoolWaitingForNodes nodePoolWaitingForNodes(int registered, int ready, int expectedNodes) {
        return new ExecutorEvent.NodePoolWaitingForNodes(
                meta(), jobId, clusterId, tpuType, nodePoolName, registered, ready, expectedNodes);
    }

    public ExecutorEvent.ReservationShort reservationShort(String reservation, int remainingSlices, int neededSlices) {
        return new ExecutorEvent.ReservationShort(
                meta(), jobId, clusterId, tpuType, nodePoolName, reservation, remainingSlices, neededSlices);
    }

    /** The reservation's count and inUseCount as the executor read them, in TPU VMs. */
    public ExecutorEvent.ReservationSeen reservationSeen(String reservation, long count, long inUse) {
        return new ExecutorEvent.ReservationSeen(meta(), jobId, clusterId, tpuType, reservation, count, inUse);
    }

    public ExecutorEvent.NodePoolDeleted nodePoolDeleted() {
        return new ExecutorEvent.NodePoolDeleted(meta(), jobId, clusterId, tpuType, nodePoolName);
    }

    public ExecutorEvent.NodePoolDeleteFailing nodePoolDeleteFailing(int failures) {
        return new ExecutorEvent.NodePoolDeleteFailing(
                meta(), jobId, clusterId, tpuType, nodePoolName, failures, message);
    }

    public ExecutorEvent.JobSubmitted jobSubmitted() {
        return new ExecutorEvent.JobSubmitted(meta(), jobId, clusterId, tpuType, k8sJobName, jobUid);
    }

    /** A refusal the scheduler should not ask again about (4xx, invalid manifest). */
    public ExecutorEvent.JobSubmitFailed jobSubmitRefused() {
        return new ExecutorEvent.JobSubmitFailed(meta(), jobId, clusterId, tpuType, k8sJobName, message, false);
    }

    /** The API server did not answer or answered 5xx/429: the scheduler asks again. */
    public ExecutorEvent.JobSubmitFailed jobSubmitRetryable() {
        return new ExecutorEvent.JobSubmitFailed(meta(), jobId, clusterId, tpuType, k8sJobName, message, true);
    }

    public ExecutorEvent.JobRunning jobRunning() {
        return new ExecutorEvent.JobRunning(
                meta(), jobId, clusterId, tpuType, k8sJobName, jobUid, active, expected, java.util.Optional.empty());
    }

    public ExecutorEvent.JobSucceeded jobSucceeded() {
        return new ExecutorEvent.JobSucceeded(meta(), jobId, clusterId, tpuType, k8sJobName);
    }

    public ExecutorEvent.JobFailed jobFailed() {
        return new ExecutorEvent.JobFailed(meta(), jobId, clusterId, tpuType, k8sJobName, message);
    }

    public ExecutorEvent.JobDeleted jobDeleted() {
        return new ExecutorEvent.JobDeleted(meta(), jobId, clusterId, tpuType, k8sJobName);
    }

    /** The falcon-* pools listed in the GKE cluster named by clusterResource (projects/P/locations/L/clusters/N). */
    public ExecutorEvent.NodePoolInventory nodePools(String clusterResource, List<ExecutorEvent.ObservedPool> pools) {
        return new ExecutorEvent.NodePoolInventory(meta(), jobId, clusterId, tpuType, clusterResource, pools);
    }

    /** The managed-by=falcon Jobs listed in the edge cluster named by clusterResource. */
    public ExecutorEvent.JobInventory jobs(String clusterResource, List<ExecutorEvent.ObservedJob> jobs) {
        return new ExecutorEvent.JobInventory(meta(), jobId, clusterId, tpuType, clusterResource, jobs);
    }

    /**
     * The executor's heartbeat: every GKE cluster named (projects/P/locations/L/clusters/N) observed through the
     * instant. jobId, clusterId and tpuType are empty, as the executor sends it.
     */
    public static ExecutorEvent.Heartbeat heartbeat(java.time.Instant through, String... clusterResources) {
        return new ExecutorEvent.Heartbeat(
                io.falcon.events.Meta.of("executor", through),
                "",
                "",
                "",
                "executor-0",
                java.util.Arrays.stream(clusterResources)
                        .map(c -> new ExecutorEvent.ClusterObserved(c, through))
                        .toList());
    }
}
