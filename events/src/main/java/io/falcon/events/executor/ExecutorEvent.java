package io.falcon.events.executor;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.falcon.events.Meta;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** What the executor observed at the GKE and Kubernetes APIs, keyed by tpu_type. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = ExecutorEvent.NodePoolReady.class, name = "NodePoolReady"),
    @JsonSubTypes.Type(value = ExecutorEvent.NodePoolCreating.class, name = "NodePoolCreating"),
    @JsonSubTypes.Type(value = ExecutorEvent.NodePoolCreateFailed.class, name = "NodePoolCreateFailed"),
    @JsonSubTypes.Type(value = ExecutorEvent.NodePoolDeleted.class, name = "NodePoolDeleted"),
    @JsonSubTypes.Type(value = ExecutorEvent.NodePoolDeleteFailing.class, name = "NodePoolDeleteFailing"),
    @JsonSubTypes.Type(value = ExecutorEvent.JobSubmitted.class, name = "JobSubmitted"),
    @JsonSubTypes.Type(value = ExecutorEvent.JobSubmitFailed.class, name = "JobSubmitFailed"),
    @JsonSubTypes.Type(value = ExecutorEvent.JobRunning.class, name = "JobRunning"),
    @JsonSubTypes.Type(value = ExecutorEvent.JobSucceeded.class, name = "JobSucceeded"),
    @JsonSubTypes.Type(value = ExecutorEvent.JobFailed.class, name = "JobFailed"),
    @JsonSubTypes.Type(value = ExecutorEvent.JobDeleted.class, name = "JobDeleted"),
    @JsonSubTypes.Type(value = ExecutorEvent.NodePoolWaitingForNodes.class, name = "NodePoolWaitingForNodes"),
    @JsonSubTypes.Type(value = ExecutorEvent.ReservationShort.class, name = "ReservationShort"),
    @JsonSubTypes.Type(value = ExecutorEvent.ReservationSeen.class, name = "ReservationSeen"),
    @JsonSubTypes.Type(value = ExecutorEvent.NodePoolInventory.class, name = "NodePoolInventory"),
    @JsonSubTypes.Type(value = ExecutorEvent.JobInventory.class, name = "JobInventory"),
    @JsonSubTypes.Type(value = ExecutorEvent.Heartbeat.class, name = "Heartbeat"),
    @JsonSubTypes.Type(value = ExecutorEvent.ClusterGone.class, name = "ClusterGone")
})
public sealed interface ExecutorEvent {
    Meta meta();

    String jobId();

    String clusterId();

    String tpuType();

    record NodePoolReady(Meta meta, String jobId, String clusterId, String tpuType, String nodePoolName)
            implements ExecutorEvent {}

    /** GKE accepted the pool's creation (after the reservation check, for a reservation pool). */
    record NodePoolCreating(Meta meta, String jobId, String clusterId, String tpuType, String nodePoolName)
            implements ExecutorEvent {}

    /**
     * Creation failed (GKE error) or did not finish in time (timedOut, after timeoutSeconds: the executor's create
     * timeout). message is GKE's error, or for a timeout what GKE showed last.
     */
    record NodePoolCreateFailed(
            Meta meta,
            String jobId,
            String clusterId,
            String tpuType,
            String nodePoolName,
            boolean timedOut,
            long timeoutSeconds,
            String message)
            implements ExecutorEvent {}

    record NodePoolDeleted(Meta meta, String jobId, String clusterId, String tpuType, String nodePoolName)
            implements ExecutorEvent {}

    /**
     * A node pool's deletion has failed this many times in a row (GKE's last error in message); the executor keeps
     * trying. Reported once per deletion, when the count reaches the executor's threshold.
     */
    record NodePoolDeleteFailing(
            Meta meta,
            String jobId,
            String clusterId,
            String tpuType,
            String nodePoolName,
            int failures,
            String message)
            implements ExecutorEvent {}

    record JobSubmitted(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName, String jobUid)
            implements ExecutorEvent {}

    /**
     * The create was refused. retryable: the API server did not answer or answered 5xx/429 (the Job may or may not
     * exist); the scheduler keeps the job Dispatching and asks again. Otherwise a refusal (4xx, invalid manifest).
     * askedAt: when the scheduler issued the EnsureJob this answers (its meta's occurredAt), so that a refusal of an
     * ask the scheduler has since repeated is known for one that a later ask may overtake; empty in events of older
     * executors.
     */
    record JobSubmitFailed(
            Meta meta,
            String jobId,
            String clusterId,
            String tpuType,
            String k8sJobName,
            String message,
            boolean retryable,
            Optional<Instant> askedAt)
            implements ExecutorEvent {
        public JobSubmitFailed {
            askedAt = askedAt == null ? Optional.empty() : askedAt;
        }

        /** A refusal not tied to an ask (tests, older producers). */
        public JobSubmitFailed(
                Meta meta,
                String jobId,
                String clusterId,
                String tpuType,
                String k8sJobName,
                String message,
                boolean retryable) {
            this(meta, jobId, clusterId, tpuType, k8sJobName, message, retryable, Optional.empty());
        }
    }

    /**
     * Pods of the job are running: active of expected. jobUid is the Kubernetes Job's uid. podsBoundAt is when the
     * last of its running pods was bound to its node (the pods' PodScheduled condition, on the edge cluster's clock):
     * when the slice had its capacity, which for pods that waited for nodes (a pool scaled to zero, a flex-start pool)
     * may be long after the Job was created. Empty when a pod does not say, and in events of older executors.
     */
    record JobRunning(
            Meta meta,
            String jobId,
            String clusterId,
            String tpuType,
            String k8sJobName,
            String jobUid,
            int active,
            int expected,
            Optional<Instant> podsBoundAt)
            implements ExecutorEvent {}

    record JobSucceeded(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName)
            implements ExecutorEvent {}

    /**
     * The Job failed, or went away under its task. cause: whose doing it was (the executor's reading of the Job and
     * its pods); {@link FailureCause#UNKNOWN} in events of older executors.
     */
    record JobFailed(
            Meta meta,
            String jobId,
            String clusterId,
            String tpuType,
            String k8sJobName,
            String message,
            FailureCause cause)
            implements ExecutorEvent {
        public JobFailed {
            cause = cause == null ? FailureCause.UNKNOWN : cause;
        }

        /** A failure whose cause is not said (tests, older producers). */
        public JobFailed(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName, String message) {
            this(meta, jobId, clusterId, tpuType, k8sJobName, message, FailureCause.UNKNOWN);
        }
    }

    record JobDeleted(Meta meta, String jobId, String clusterId, String tpuType, String k8sJobName)
            implements ExecutorEvent {}

    /**
     * The pool's control plane is RUNNING but not all its nodes have registered and become Ready yet (GKE keeps
     * retrying internally, typically for flex-start capacity). podsWaiting: the count comes from the Job's pods, seen
     * Unschedulable by the informers (only then do a submitted Job's pods wait for nodes); false for a count of the
     * pool alone (its creation, or a re-sent EnsureJob's answer), and in records written before it existed.
     */
    record NodePoolWaitingForNodes(
            Meta meta,
            String jobId,
            String clusterId,
            String tpuType,
            String nodePoolName,
            int registered,
            int ready,
            int expected,
            boolean podsWaiting)
            implements ExecutorEvent {
        /** A count of the pool alone. */
        public NodePoolWaitingForNodes(
                Meta meta,
                String jobId,
                String clusterId,
                String tpuType,
                String nodePoolName,
                int registered,
                int ready,
                int expected) {
            this(meta, jobId, clusterId, tpuType, nodePoolName, registered, ready, expected, false);
        }
    }

    /**
     * The reservation has less free capacity than the pool needs, so the executor did not create the pool.
     * remainingSlices is count - inUseCount and neededSlices the pool's host count, both in the reservation's unit
     * (TPU VMs, one per host of the slice).
     */
    record ReservationShort(
            Meta meta,
            String jobId,
            String clusterId,
            String tpuType,
            String nodePoolName,
            String reservation,
            int remainingSlices,
            int neededSlices)
            implements ExecutorEvent {}

    /**
     * The executor read the reservation's capacity from the Compute API, as it does before it creates a reservation
     * pool (whether the pool then fits or not): count and inUse are the reservation's count and inUseCount as read,
     * in TPU VMs (one per host of a slice), all tenants' use included; meta.occurredAt is when it read them. jobId is
     * the job whose pool asked. Every read is a new observation; nothing acts on it but what shows the fleet.
     */
    record ReservationSeen(
            Meta meta, String jobId, String clusterId, String tpuType, String reservation, long count, long inUse)
            implements ExecutorEvent {}

    /**
     * Periodic inventory of the falcon-* node pools that exist in one cluster, for orphan detection. jobId is
     * empty: the inventory is about the cluster; clusterResource names the GKE cluster that was listed
     * (projects/P/locations/L/clusters/N), so an inventory of a location the cluster row has since left is ignored.
     */
    record NodePoolInventory(
            Meta meta, String jobId, String clusterId, String tpuType, String clusterResource, List<ObservedPool> pools)
            implements ExecutorEvent {
        public NodePoolInventory {
            pools = List.copyOf(pools);
        }
    }

    /**
     * Periodic inventory of the Kubernetes Jobs labelled managed-by=falcon in one cluster (from a synced informer
     * cache, so an absent Job is really absent), for the sweep of Jobs whose task is terminal or unknown. jobId is
     * empty: the inventory is about the cluster; clusterResource names the GKE cluster whose API was listed.
     */
    record JobInventory(
            Meta meta, String jobId, String clusterId, String tpuType, String clusterResource, List<ObservedJob> jobs)
            implements ExecutorEvent {
        public JobInventory {
            jobs = List.copyOf(jobs);
        }
    }

    /**
     * How far the executor has reported what it observes, sent to every partition of the topic every few seconds
     * (jobId, clusterId and tpuType are empty: it is about the executor). Per GKE cluster it watches
     * (projects/P/locations/L/clusters/N), observedThrough is a time, on the executor's clock, by which every change
     * of that cluster's Falcon Jobs and pods that happened before it has been reported on this topic before this
     * record: its informers were watching and synced, every Job's state was evaluated again, and every earlier
     * report was acknowledged by the broker. A cluster it cannot read is left out (or keeps the time it last could).
     * The scheduler fires a deadline only once the job's cluster is observed through it, so that its own stall or
     * restart, or the executor's, never turns a met deadline into a missed one.
     */
    record Heartbeat(
            Meta meta, String jobId, String clusterId, String tpuType, String instance, List<ClusterObserved> clusters)
            implements ExecutorEvent {
        public Heartbeat {
            clusters = List.copyOf(clusters);
        }
    }

    /**
     * One cluster of a {@link Heartbeat}: its GKE resource name, the time it is observed through, and since when the
     * executor has watched it without a gap (this process's informers started, or their watch came back): what
     * happened before that, while nobody watched, is known only by the state it left, so a deadline that passed then
     * is judged once that state is reported. Records written before it existed have no observingSince (EPOCH).
     */
    record ClusterObserved(String clusterResource, Instant observedThrough, Instant observingSince) {
        public ClusterObserved {
            observingSince = observingSince == null ? Instant.EPOCH : observingSince;
        }

        /** A cluster watched since the beginning of time (tests). */
        public ClusterObserved(String clusterResource, Instant observedThrough) {
            this(clusterResource, observedThrough, Instant.EPOCH);
        }
    }

    /**
     * The GKE cluster clusterResource (projects/P/locations/L/clusters/N) that Falcon's node pools and Kubernetes Jobs
     * of the clusters row clusterId were created in no longer exists as of meta.occurredAt: GKE's getCluster answers
     * NOT_FOUND, or a cluster of that name with another id (deleted and created again). Everything Falcon created there
     * before is gone with it. Reported again while it stays gone. jobId is empty: it is about the cluster; message is
     * what the executor saw.
     */
    record ClusterGone(
            Meta meta, String jobId, String clusterId, String tpuType, String clusterResource, String message)
            implements ExecutorEvent {}

    /**
     * One Kubernetes Job: its name, the task it runs (falcon.io/job-id), uid, creation time, whether it ended, and how
     * (its Complete or Failed condition read as the informers read it): the scheduler takes an end listed here as the
     * JobSucceeded / JobFailed it may never have read (the executor crash-looped from the Job's end until someone
     * deleted it, say). Empty from an executor that predates the field: such a listing ends nothing.
     */
    record ObservedJob(
            String name,
            String falconJobId,
            String uid,
            Optional<Instant> createdAt,
            boolean finished,
            Optional<ObservedEnd> end) {}

    /** How a finished Kubernetes Job ended: succeeded, or failed with the Message a JobFailed would carry. */
    /** How a listed Job ended; cause: whose doing a failure was ({@link FailureCause#UNKNOWN} from older executors). */
    record ObservedEnd(boolean succeeded, String message, FailureCause cause) {
        public ObservedEnd {
            cause = cause == null ? FailureCause.UNKNOWN : cause;
        }

        public ObservedEnd(boolean succeeded, String message) {
            this(succeeded, message, FailureCause.UNKNOWN);
        }
    }

    /** One node pool as GKE reports it; falconJob is the value of its falcon-job label. */
    record ObservedPool(String name, String status, String falconJob, String topology, Optional<Instant> createdAt) {}
}
