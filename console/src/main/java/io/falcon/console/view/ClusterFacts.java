package io.falcon.console.view;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What Falcon's topics told of one cluster's capacity and health: the executor's latest word on its reservation
 * running short (falcon.executor.events ReservationShort: remaining = the reservation's count - inUseCount, and what
 * the pool needed, in TPU VMs), the work GKE and Kubernetes refused there since work last went through (node pools
 * refused or failed, Jobs refused for good, the cluster gone: the failures the scheduler's ClusterHealth counts), and
 * the ledger's latest word on it as a candidate (falcon.decisions: chosen, less preferred, avoided for a cool-down,
 * not active). Each is empty until Falcon has said it.
 */
public record ClusterFacts(
        Optional<Shortage> shortage,
        List<Refusal> refusalsSinceLastSuccess,
        Optional<Instant> lastSuccess,
        Optional<Weighed> weighed) {

    public static final ClusterFacts NONE =
            new ClusterFacts(Optional.empty(), List.of(), Optional.empty(), Optional.empty());

    public ClusterFacts {
        refusalsSinceLastSuccess = List.copyOf(refusalsSinceLastSuccess);
    }

    /** A reservation too short for a pool: its remaining TPU VMs, what the pool needed, when. */
    public record Shortage(String reservation, int remaining, int needed, Instant at) {}

    /** Work refused there: what (GKE's or Kubernetes' words), when. */
    public record Refusal(Instant at, String what) {}

    /** The cluster as the latest placement weighed it: the candidate's outcome and why. */
    public record Weighed(String outcome, String why, Instant at) {}
}
