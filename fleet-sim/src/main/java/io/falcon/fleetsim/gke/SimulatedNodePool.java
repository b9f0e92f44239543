package io.falcon.fleetsim.gke;

import com.google.container.v1.NodePool;
import io.falcon.fleetsim.compute.ReservationKey;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/** Mutable state of one simulated node pool (guarded by GkeFleet). */
final class SimulatedNodePool {

    NodePool proto;
    /** Nodes the pool brings when it becomes RUNNING: 0 for a pool created from zero with autoscaling. */
    final int hosts;
    /** The autoscaler's unit: every VM of a multi-host slice at once, else one VM. */
    final int sliceVms;
    /** Nodes the autoscaler may scale the pool up to; 0 when autoscaling is off. */
    final int maxNodes;

    final Instant visibleFrom;
    /** Operation that created the pool, while it is still running. */
    String pendingCreateOperation;
    /** Operation deleting the pool, while it runs. */
    String pendingDeleteOperation;
    /** Reservation capacity taken when the pool came up, given back on deletion. */
    ReservationKey consumedReservation;
    /** Nodes registered or on their way (initial nodes from RUNNING on, scale-ups from the decision on). */
    int nodes;
    /**
     * The pending pods a scale-up was already started for, while they are pending: the autoscaler counts each pod
     * once, whether its node is on its way or registered but not yet seen by the scheduler.
     */
    final Set<String> scaledFor = new HashSet<>();

    boolean deleted;
    /** Since when none of the pool's nodes holds a pod (the autoscaler's scale-down clock); null while needed. */
    Instant unneededSince;

    SimulatedNodePool(NodePool proto, int hosts, int sliceVms, int maxNodes, Instant visibleFrom) {
        this.proto = proto;
        this.hosts = hosts;
        this.sliceVms = sliceVms;
        this.maxNodes = maxNodes;
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

    /**
     * New nodes the cluster autoscaler adds for {@code nodesWanted} nodes' worth of pending pods that fit this pool and
     * that no scale-up was started for yet (pure; 0 = none): a multi-host slice comes whole, and only while the pool
     * has no nodes (it scales atomically between 0 and all of its VMs); a single-host pool gets one VM per node
     * wanted, up to its maximum.
     */
    int scaleUpFor(int nodesWanted) {
        if (maxNodes == 0 || nodesWanted == 0 || proto.getStatus() != NodePool.Status.RUNNING || deleted) {
            return 0;
        }
        if (sliceVms > 1) {
            return nodes == 0 && maxNodes >= sliceVms ? sliceVms : 0;
        }
        return Math.max(0, Math.min(maxNodes - nodes, nodesWanted));
    }
}
