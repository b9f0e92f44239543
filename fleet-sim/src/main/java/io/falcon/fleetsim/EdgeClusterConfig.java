package io.falcon.fleetsim;

import io.falcon.fleetsim.gke.ClusterRef;
import java.util.List;

/**
 * One simulated edge cluster.
 *
 * @param tpuType value of the nodes' cloud.google.com/gke-tpu-accelerator label, e.g. tpu-v5-lite-podslice
 * @param reservations Compute reservations that live in this cluster's project
 */
public record EdgeClusterConfig(
        String project, String location, String name, String tpuType, List<ReservationConfig> reservations) {

    public EdgeClusterConfig {
        reservations = reservations == null ? List.of() : List.copyOf(reservations);
    }

    public static EdgeClusterConfig of(String project, String location, String name, String tpuType) {
        return new EdgeClusterConfig(project, location, name, tpuType, List.of());
    }

    public EdgeClusterConfig withReservation(ReservationConfig reservation) {
        var all = new java.util.ArrayList<>(reservations);
        all.add(reservation);
        return new EdgeClusterConfig(project, location, name, tpuType, all);
    }

    public ClusterRef ref() {
        return new ClusterRef(project, location, name);
    }
}
