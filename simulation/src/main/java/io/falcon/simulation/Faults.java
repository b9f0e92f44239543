package io.falcon.simulation;

import java.util.Random;

/**
 * How often things go wrong in one run, drawn from its seed. All zero after the heal time, so every run ends in a
 * world where Falcon can finish its work; the checks then ask whether it did.
 *
 * @param apiError an API call fails with a transient error (half of them after the change was made)
 * @param duplicateEvent an executor event is delivered twice
 * @param delayEvent an executor event is held back (up to two minutes) and overtaken by later ones
 * @param crashBeforeCommit the executor dies after carrying out a command and before committing it
 * @param quota a node-pool creation is refused for quota (permanent)
 * @param poolError a node-pool creation ends in ERROR or a failed operation
 * @param slowPool a node-pool creation takes longer than the create timeout
 * @param lateNodes a pool's nodes register late (WaitingForNode)
 * @param neverNodes a pool's nodes do not register until the heal
 * @param deleteFails a node-pool deletion operation fails (GKE leaves the pool as it was: RUNNING, or ERROR)
 * @param vanish a RUNNING pool is deleted by someone other than Falcon (an operator, GKE removing a pool) within
 *     three hours, and the pods running on it fail
 * @param lostReport a report of the executor's informers (JobRunning, JobSucceeded, JobFailed, a node count) is lost
 *     while the process stays up: its send failed after the producer's retries (a long broker outage)
 * @param handDelete a Kubernetes Job is deleted by someone other than Falcon (an operator's kubectl delete) 30 s to
 *     3 h after its creation, whether it runs, waits or has finished (drawn on a stream of its own)
 * @param pullError a Job's pods, once on their nodes, cannot pull their image for 10 to 90 s (a registry's transient
 *     error: ErrImagePull, then the kubelet's retry succeeds), drawn on a stream of its own
 */
record Faults(
        double apiError,
        double duplicateEvent,
        double delayEvent,
        double crashBeforeCommit,
        double quota,
        double poolError,
        double slowPool,
        double lateNodes,
        double neverNodes,
        double deleteFails,
        double vanish,
        double lostReport,
        double handDelete,
        double pullError) {

    static final Faults NONE = new Faults(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    static Faults random(Random rnd) {
        double intensity = rnd.nextDouble();
        return new Faults(
                0.08 * intensity,
                0.1 * intensity,
                0.1 * intensity,
                0.15 * intensity,
                0.05 * intensity,
                0.05 * intensity,
                0.05 * intensity,
                0.15 * intensity,
                0.05 * intensity,
                0.1 * intensity,
                0.05 * intensity,
                0.1 * intensity,
                // from the intensity already drawn: no new draw, so the seeds' other draws stay as they were
                0.08 * intensity,
                0.15 * intensity);
    }
}
