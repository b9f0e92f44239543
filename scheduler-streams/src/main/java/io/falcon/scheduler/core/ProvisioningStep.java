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
     * provisioning retry, with no deadline.
     */
    AWAITING_NODES
}
