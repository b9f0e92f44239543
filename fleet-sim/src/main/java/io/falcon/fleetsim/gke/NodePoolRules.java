package io.falcon.fleetsim.gke;

import com.google.container.v1.NodePool;
import com.google.container.v1.ReservationAffinity;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Optional;

/**
 * Requests GKE refuses synchronously in CreateNodePool, with GKE's error shape (INVALID_ARGUMENT, "Invalid value for
 * field '...': ..."), so that a request real GKE would refuse fails here too (issue 19). Each rule names the page it
 * comes from. Rules about what each TPU generation accepts (machine type, topology, placement or workload policy)
 * are not here yet: see the note.
 */
final class NodePoolRules {
    static final String RESERVATION_KEY = "compute.googleapis.com/reservation-name";

    private NodePoolRules() {}

    /** The first rule the request breaks, as the gRPC error GKE answers with. */
    static Optional<StatusRuntimeException> check(NodePool pool) {
        return reservationAffinity(pool).or(() -> multiHostNodeCount(pool)).map(NodePoolRules::invalid);
    }

    /**
     * Consuming a specific reservation names it with the key compute.googleapis.com/reservation-name and at least one
     * value; the other affinity types take neither
     * (https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations).
     */
    static Optional<String> reservationAffinity(NodePool pool) {
        if (!pool.getConfig().hasReservationAffinity()) {
            return Optional.empty();
        }
        ReservationAffinity affinity = pool.getConfig().getReservationAffinity();
        boolean specific = affinity.getConsumeReservationType() == ReservationAffinity.Type.SPECIFIC_RESERVATION;
        if (specific
                && (!affinity.getKey().equals(RESERVATION_KEY)
                        || affinity.getValuesList().isEmpty())) {
            return Optional.of("Invalid value for field 'nodePool.config.reservationAffinity': SPECIFIC_RESERVATION"
                    + " requires key '" + RESERVATION_KEY + "' and the reservation's name as a value.");
        }
        if (!specific
                && (!affinity.getKey().isEmpty() || !affinity.getValuesList().isEmpty())) {
            return Optional.of("Invalid value for field 'nodePool.config.reservationAffinity': key and values are only"
                    + " allowed with SPECIFIC_RESERVATION, not " + affinity.getConsumeReservationType() + ".");
        }
        return Optional.empty();
    }

    /**
     * A multi-host TPU slice node pool has exactly one node per host of its topology (4 chips per host for the
     * generations Falcon uses); GKE creates it atomically
     * (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus, "multi-host TPU slice node pools").
     */
    static Optional<String> multiHostNodeCount(NodePool pool) {
        String topology = pool.getPlacementPolicy().getTpuTopology();
        if (topology.isBlank() || pool.getInitialNodeCount() == 0) {
            return Optional.empty();
        }
        int chips = 1;
        try {
            for (String dim : topology.toLowerCase().split("x")) {
                chips *= Integer.parseInt(dim.trim());
            }
        } catch (NumberFormatException e) {
            return Optional.of("Invalid value for field 'nodePool.placementPolicy.tpuTopology': '" + topology
                    + "' is not a TPU topology.");
        }
        int hosts = Math.max(1, chips / 4);
        if (hosts > 1 && pool.getInitialNodeCount() != hosts) {
            return Optional.of(
                    "Invalid value for field 'nodePool.initialNodeCount': a multi-host TPU slice of topology "
                            + topology + " has " + hosts + " nodes, got " + pool.getInitialNodeCount() + ".");
        }
        return Optional.empty();
    }

    private static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }
}
