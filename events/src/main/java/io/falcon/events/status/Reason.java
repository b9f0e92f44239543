package io.falcon.events.status;

/**
 * Programmatic reason (the seed's Reason column): what a Pending task is doing, or why a Failed task failed.
 * Empty for the other statuses.
 */
public enum Reason {
    Waiting,
    Provisioning,
    ClusterBusy,
    WaitingForNode,
    Dispatching,
    NodePoolTimeout,
    NodePoolFailed,
    JobSubmitFailed,
    JobFailed,
    Timeout,
    InvalidSpec,
    /** Refused at submission: its actor, or Falcon as a whole, already has as many live jobs as allowed. */
    TooManyJobs,
    /**
     * Pending between two attempts: the fleet ended the last one (a node lost, a pod preempted, its Kubernetes Job
     * gone) and the job runs again under its id once that attempt's Job is gone and the backoff passed.
     */
    Retrying
}
