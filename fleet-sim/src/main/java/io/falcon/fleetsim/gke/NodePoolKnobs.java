package io.falcon.fleetsim.gke;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Per-cluster failure and timing knobs of the simulated GKE node pool API; thread-safe, settable at runtime.
 * Changes apply to node pool operations started afterwards.
 */
public final class NodePoolKnobs {

    private volatile Duration creationDelay;
    private volatile Duration deletionDelay;
    private final AtomicInteger quotaFailures = new AtomicInteger();
    private final AtomicInteger invalidReservationFailures = new AtomicInteger();
    private volatile String quotaMetric = "TPUS_PER_PROJECT";
    private volatile boolean neverFinishCreations;
    private volatile Duration lateVisibility = Duration.ZERO;
    private volatile boolean lateVisibilityForAllPools;
    private volatile Duration nodeRegistrationDelay = Duration.ZERO;
    private final AtomicInteger deletionFailures = new AtomicInteger();
    private volatile boolean rejectDeleteWhileCreating;
    private volatile Duration scaleUpDelay;
    private volatile boolean stockout;
    private volatile Duration scaleDownAfter;
    private volatile java.time.Instant clusterOperationUntil = java.time.Instant.MIN;

    /** The scale-up delay starts as the creation delay: new VMs take about as long as a new pool's. */
    public NodePoolKnobs(Duration creationDelay, Duration deletionDelay) {
        this.creationDelay = creationDelay;
        this.deletionDelay = deletionDelay;
        this.scaleUpDelay = creationDelay;
    }

    /** Time a pool stays PROVISIONING (and its create operation RUNNING). */
    public NodePoolKnobs creationDelay(Duration delay) {
        this.creationDelay = delay;
        return this;
    }

    /** Time a pool stays STOPPING (and its delete operation RUNNING). */
    public NodePoolKnobs deletionDelay(Duration delay) {
        this.deletionDelay = delay;
        return this;
    }

    /** The next {@code n} creations end with a RESOURCE_EXHAUSTED quota error on the operation. */
    public NodePoolKnobs failNextCreationsWithQuota(int n) {
        quotaFailures.set(n);
        return this;
    }

    /** Quota metric named in the quota error message (default TPUS_PER_PROJECT). */
    public NodePoolKnobs quotaMetric(String metric) {
        this.quotaMetric = metric;
        return this;
    }

    /** The next {@code n} creations end with an INVALID_ARGUMENT invalid-reservation error on the operation. */
    public NodePoolKnobs failNextCreationsWithInvalidReservation(int n) {
        invalidReservationFailures.set(n);
        return this;
    }

    /** When true, creations stay PROVISIONING / RUNNING forever (for caller timeouts). */
    public NodePoolKnobs neverFinishCreations(boolean never) {
        this.neverFinishCreations = never;
        return this;
    }

    /**
     * Flex-start pools (config.flexStart or queuedProvisioning) are invisible to getNodePool / listNodePools
     * (NOT_FOUND) for this long after creation, like GKE's eventually consistent reads.
     */
    public NodePoolKnobs lateVisibility(Duration delay) {
        this.lateVisibility = delay;
        return this;
    }

    /** Apply {@link #lateVisibility} to every pool, not only flex-start ones. */
    public NodePoolKnobs lateVisibilityForAllPools(boolean all) {
        this.lateVisibilityForAllPools = all;
        return this;
    }

    /** Nodes of a RUNNING pool appear in Kubernetes only this long after the pool became RUNNING. */
    public NodePoolKnobs nodeRegistrationDelay(Duration delay) {
        this.nodeRegistrationDelay = delay;
        return this;
    }

    /**
     * The next {@code n} deletions fail: the delete operation ends DONE with an INTERNAL error after the deletion
     * delay and the pool is RUNNING again (callers must retry).
     */
    public NodePoolKnobs failNextDeletions(int n) {
        deletionFailures.set(n);
        return this;
    }

    /**
     * When true, deleting a pool that is still being created answers FAILED_PRECONDITION ("currently creating",
     * as GKE does) instead of aborting the creation (the lenient default).
     */
    public NodePoolKnobs rejectDeleteWhileCreating(boolean reject) {
        this.rejectDeleteWhileCreating = reject;
        return this;
    }

    public boolean rejectDeleteWhileCreating() {
        return rejectDeleteWhileCreating;
    }

    /**
     * A cluster-level operation runs until then: a control-plane upgrade or repair, which GKE also starts by itself
     * (its automatic operations count against the limit). Meanwhile GKE refuses every node-pool create and delete
     * with FAILED_PRECONDITION ("Cluster is running incompatible operation ...") and changes nothing; node-pool
     * operations already running go on.
     */
    public NodePoolKnobs clusterOperationUntil(java.time.Instant until) {
        this.clusterOperationUntil = until;
        return this;
    }

    public java.time.Instant clusterOperationUntil() {
        return clusterOperationUntil;
    }

    /**
     * Time from the cluster autoscaler's decision to scale an autoscaled pool up (a pending, unschedulable pod selects
     * it) until the new nodes are registered Ready in Kubernetes.
     */
    public NodePoolKnobs scaleUpDelay(Duration delay) {
        this.scaleUpDelay = delay;
        return this;
    }

    public Duration scaleUpDelay() {
        return scaleUpDelay;
    }

    /**
     * A flex-start stockout: while true, no scale-up of this cluster's autoscaled pools starts (the capacity is not
     * there), so pods that wait for their nodes stay Pending/Unschedulable and a pool created from zero stays RUNNING
     * with no nodes. Clearing it lets the autoscaler scale up for the pods still pending. Scale-ups already started
     * finish.
     */
    public NodePoolKnobs stockout(boolean noCapacity) {
        this.stockout = noCapacity;
        return this;
    }

    public boolean stockout() {
        return stockout;
    }

    /**
     * How long an autoscaled pool's nodes must be unneeded before the autoscaler removes them, instead of the
     * pool's own consolidation delay (NodeConfig.consolidation_delay; GKE's default 10 min when unset): for tests
     * that cannot wait minutes. Null: the pool's own.
     */
    public NodePoolKnobs scaleDownAfter(Duration delay) {
        this.scaleDownAfter = delay;
        return this;
    }

    public java.util.Optional<Duration> scaleDownAfter() {
        return java.util.Optional.ofNullable(scaleDownAfter);
    }

    public Duration creationDelay() {
        return creationDelay;
    }

    public Duration deletionDelay() {
        return deletionDelay;
    }

    public Duration lateVisibility() {
        return lateVisibility;
    }

    public boolean lateVisibilityForAllPools() {
        return lateVisibilityForAllPools;
    }

    public Duration nodeRegistrationDelay() {
        return nodeRegistrationDelay;
    }

    public boolean neverFinishCreations() {
        return neverFinishCreations;
    }

    public String quotaMetric() {
        return quotaMetric;
    }

    /** Takes one pending quota failure, if any. */
    boolean takeQuotaFailure() {
        return quotaFailures.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    /** Takes one pending deletion failure, if any. */
    boolean takeDeletionFailure() {
        return deletionFailures.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    /** Takes one pending invalid-reservation failure, if any. */
    boolean takeInvalidReservationFailure() {
        return invalidReservationFailures.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }
}
