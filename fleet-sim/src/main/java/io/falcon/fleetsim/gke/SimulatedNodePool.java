package io.falcon.fleetsim.gke;

import com.google.container.v1.NodePool;
import io.falcon.fleetsim.compute.ReservationKey;
import java.time.Instant;

/** Mutable state of one simulated node pool (guarded by GkeFleet). */
final class SimulatedNodePool {

    NodePool proto;
    final int hosts;
    final Instant visibleFrom;
    /** Operation that created the pool, while it is still running. */
    String pendingCreateOperation;
    /** Operation deleting the pool, while it runs. */
    String pendingDeleteOperation;
    /** Reservation capacity taken when the pool came up, given back on deletion. */
    ReservationKey consumedReservation;

    boolean deleted;

    SimulatedNodePool(NodePool proto, int hosts, Instant visibleFrom) {
        this.proto = proto;
        this.hosts = hosts;
        this.visibleFrom = visibleFrom;
    }

    String name() {
        return proto.getName();
    }

    boolean visibleAt(Instant now) {
        return !now.isBefore(visibleFrom);
    }

    void status(NodePool.Status status, String message) {
        proto = proto.toBuilder().setStatus(status).setStatusMessage(message).build();
    }
}
