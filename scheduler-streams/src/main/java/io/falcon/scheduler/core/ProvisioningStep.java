package io.falcon.scheduler.core;

/**
 * Where a {@link Phase#PROVISIONING} job's node pool stands. The provisioning timers branch on it, never on the
 * Reason shown to users, so that wording the status differently cannot change what the scheduler re-drives or when it
 * gives up.
 */
public enum ProvisioningStep {
    /**
     * EnsureNodePool sent, no word from the executor yet (shown Provisioning): re-sent every provisioning retry, and
     * NodePoolTimeout once the backstop has passed.
     */
    REQUESTED,
    /**
     * The reservation lacks free slices (shown ClusterBusy, seed section 5): asked again every reservation retry, with
     * no deadline.
     */
    RESERVATION_SHORT,
    /**
     * The pool exists and GKE is bringing up its nodes (shown WaitingForNode, seed section 4): re-sent every
     * provisioning retry, with no deadline. Also while {@link Phase#DISPATCHING}: the Job is submitted to a pool that
     * gets its nodes only for pending pods (flex-start) and its pods wait for them; EnsureNodePool (a pool deleted
     * meanwhile is created again) and EnsureJob are re-sent every
     * provisioning retry (the executor answers with the pool's node count), with no deadline, until the nodes are
     * Ready (the dispatch and execution deadlines then count from that moment) or the pods run.
     */
    AWAITING_NODES
}
