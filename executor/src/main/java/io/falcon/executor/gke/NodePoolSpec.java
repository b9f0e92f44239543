package io.falcon.executor.gke;

import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.ReservationAffinity;
import io.falcon.events.TpuTopology;
import io.falcon.events.TpuType;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.FalconLabels;
import java.util.Map;

/** Renders an EnsureNodePool command into the GKE v1 NodePool to create (pure). */
public final class NodePoolSpec {
    public static final String RESERVATION_KEY = "compute.googleapis.com/reservation-name";

    private NodePoolSpec() {
    }

    /** Thrown when the command cannot be turned into a node pool; reported as NodePoolCreateFailed. */
    public static final class InvalidNodePoolException extends RuntimeException {
        public InvalidNodePoolException(String message) {
            super(message);
        }
    }

    public static NodePool render(EnsureNodePool command) {
        TpuType tpuType = TpuType.fromWire(command.tpuType())
                .orElseThrow(() -> new InvalidNodePoolException("unknown tpu type '" + command.tpuType() + "'"));
        TpuTopology topology = TpuTopology.parse(command.topology())
                .orElseThrow(() -> new InvalidNodePoolException("invalid topology '" + command.topology() + "'"));
        if (command.nodePoolName() == null || !command.nodePoolName().matches("[a-z]([-a-z0-9]{0,38}[a-z0-9])?")) {
            throw new InvalidNodePoolException("invalid node pool name '" + command.nodePoolName()
                    + "' (lowercase letters, digits, '-', at most 40, starting with a letter)");
        }
        SupplyMode mode = command.supplyMode() == null ? SupplyMode.FLEX_START : command.supplyMode();
        Map<String, String> labels = FalconLabels.of(command.jobId(), topology.text());

        NodeConfig.Builder config = NodeConfig.newBuilder()
                .setMachineType(tpuType.machineType())
                .putAllResourceLabels(labels)
                .putAllLabels(labels);
        NodePool.Builder pool = NodePool.newBuilder()
                .setName(command.nodePoolName())
                .setInitialNodeCount(topology.hosts());
        switch (mode) {
            case RESERVATION -> {
                String reservation = command.reservation().filter(r -> !r.isBlank())
                        .orElseThrow(() -> new InvalidNodePoolException(
                                "supply mode reservation but no reservation name was given"));
                config.setReservationAffinity(ReservationAffinity.newBuilder()
                        .setConsumeReservationType(ReservationAffinity.Type.SPECIFIC_RESERVATION)
                        .setKey(RESERVATION_KEY)
                        .addValues(reservation));
            }
            case FLEX_START -> {
                config.setFlexStart(true);
                config.setReservationAffinity(ReservationAffinity.newBuilder()
                        .setConsumeReservationType(ReservationAffinity.Type.NO_RESERVATION));
                pool.setQueuedProvisioning(NodePool.QueuedProvisioning.newBuilder().setEnabled(false));
            }
            case ON_DEMAND -> {
                // plain on-demand capacity: nothing to add
            }
        }
        pool.setConfig(config);
        if (topology.multiHost()) {
            pool.setPlacementPolicy(NodePool.PlacementPolicy.newBuilder()
                    .setType(NodePool.PlacementPolicy.Type.COMPACT)
                    .setTpuTopology(topology.text()));
        }
        return pool.build();
    }
}
