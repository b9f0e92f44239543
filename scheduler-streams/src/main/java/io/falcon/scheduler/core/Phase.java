package io.falcon.scheduler.core;

/** Where a job is in Falcon's lifecycle; the Status/Reason shown to users is derived from it. */
public enum Phase {
    /** Valid, but no active cluster offers its TPU type yet. */
    UNPLACED,
    /** In its (cluster, topology) queue. */
    WAITING,
    /** Holds its queue's slot; a node pool is being created. */
    PROVISIONING,
    /** Holds its queue's slot; the Kubernetes Job is being submitted and its pods scheduled. */
    DISPATCHING,
    /** All pods run; the slot is released. */
    RUNNING,
    /**
     * Aborted while Dispatching: still holds its queue's slot (seed section 4 releases it only when pods run or the
     * job ends) until its Kubernetes Job is confirmed deleted; then its pool goes to the next job.
     */
    CANCELLING,
    /** Aborted while Running; waiting for its Kubernetes Job to be deleted before its pool is released. */
    ABORTING,
    /**
     * The fleet ended its attempt and it runs again (Pending/Retrying): its attempt's Kubernetes Job is being deleted
     * (at most one attempt is live) and its backoff passes; then it is placed again as a new attempt.
     */
    RETRYING,
    /** Succeeded, Failed or Aborted: nothing more happens to it. */
    DONE;

    public boolean holdsSlot() {
        return this == PROVISIONING || this == DISPATCHING || this == CANCELLING;
    }

    /** Aborted by the user, its Kubernetes Job's deletion not yet confirmed. */
    public boolean aborting() {
        return this == CANCELLING || this == ABORTING;
    }
}
