package io.falcon.console.view;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What Falcon's topics told of one cluster's capacity and health: the reservations as the executor last read them
 * (falcon.executor.events ReservationSeen: count and inUseCount in TPU VMs, at each capacity check before a
 * reservation pool is created), its latest word on a reservation running short (ReservationShort: remaining = the
 * reservation's count - inUseCount, and what the pool needed, in TPU VMs), the work GKE and Kubernetes refused there
 * since work last went through (node pools refused or failed, Jobs refused for good, the cluster gone: the failures the
 * scheduler's ClusterHealth counts), and the ledger's latest word on it as a candidate (falcon.decisions: chosen, less
 * preferred, avoided for a cool-down, not active). Each is empty until Falcon has said it.
 */
public record ClusterFacts(
        List<ReservationRead> reservationsRead,
        Optional<Shortage> shortage,
        List<Refusal> refusalsSinceLastSuccess,
        Optional<Instant> lastSuccess,
        Optional<Weighed> weighed) {

    public static final ClusterFacts NONE =
            new ClusterFacts(List.of(), Optional.empty(), List.of(), Optional.empty(), Optional.empty());

    public ClusterFacts {
        reservationsRead = List.copyOf(reservationsRead);
        refusalsSinceLastSuccess = List.copyOf(refusalsSinceLastSuccess);
    }

    /** A reservation as the executor read it from the Compute API: its count and inUseCount in TPU VMs, when. */
    public record ReservationRead(String reservation, long count, long inUse, Instant at) {
        /** What is free: count - inUse (never below 0: the Compute API may count a VM in use a moment early). */
        public long remaining() {
            return Math.max(0, count - inUse);
        }
    }

    /** A reservation too short for a pool: its remaining TPU VMs, what the pool needed, when. */
    public record Shortage(String reservation, int remaining, int needed, Instant at) {}

    /** Work refused there: what (GKE's or Kubernetes' words), when. */
    public record Refusal(Instant at, String what) {}

    /** The cluster as the latest placement weighed it: the candidate's outcome and why. */
    public record Weighed(String outcome, String why, Instant at) {}
}
