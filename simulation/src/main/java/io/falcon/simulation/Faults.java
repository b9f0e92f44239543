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
 * @param podEvicted a running Job's pod is evicted (the Eviction API: a drain) or preempted by the scheduler while its
 *     node stays: DisruptionTarget EvictionByEvictionAPI or PreemptionByScheduler, the pod terminates and is deleted,
 *     and the Job fails (backoffLimit 0); drawn on a stream of its own
 * @param hostMaintenance a node under a running Job goes away for a while (TPU host maintenance, its VM terminated):
 *     with notice, the kubelet's graceful shutdown fails its pod (Terminated, DisruptionTarget TerminationByKubelet);
 *     without, the node is NotReady and the taint manager deletes its pod 5 min later (DisruptionTarget
 *     DeletionByTaintManager); drawn on a stream of its own
 * @param deviceIsolated a TPU device of a running Job fails often enough for fault-streams to isolate it: an ISOLATED
 *     verdict naming the Job's node and device reaches the scheduler's input; the pods run on; drawn on a stream of
 *     its own
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
        double pullError,
        double podEvicted,
        double hostMaintenance,
        double deviceIsolated) {

    static final Faults NONE = new Faults(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

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
                0.15 * intensity,
                0.08 * intensity,
                0.06 * intensity,
                0.06 * intensity);
    }
}
