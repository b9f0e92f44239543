package io.falcon.executor.gke;

import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodePoolAutoscaling;
import com.google.container.v1.ReservationAffinity;
import io.falcon.events.TpuTopology;
import io.falcon.events.TpuType;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.FalconLabels;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/** Renders an EnsureNodePool command into the GKE v1 NodePool to create (pure). */
public final class NodePoolSpec {
    public static final String RESERVATION_KEY = "compute.googleapis.com/reservation-name";

    private NodePoolSpec() {}

    /** Thrown when the command cannot be turned into a node pool; reported as NodePoolCreateFailed. */
    public static final class InvalidNodePoolException extends RuntimeException {
        public InvalidNodePoolException(String message) {
            super(message);
        }
    }

    /**
     * How long the cluster autoscaler lets an unneeded node of a pool live, per the supply mode actually used
     * (seed: reservation short, default 10 min; flex-start long, e.g. 6 h, because released flex-start capacity is
     * hard to get back). GKE v1 carries it per pool as {@code NodeConfig.consolidation_delay}.
     */
    public record ScaleDown(Duration reservation, Duration onDemand, Duration flexStart) {
        /** The defaults declared in the settings catalog. */
        public static final ScaleDown DEFAULT = new ScaleDown(
                ExecutorKeys.SCALE_DOWN_RESERVATION.defaultValue(),
                ExecutorKeys.SCALE_DOWN_ON_DEMAND.defaultValue(),
                ExecutorKeys.SCALE_DOWN_FLEX_START.defaultValue());

        public ScaleDown {
            Objects.requireNonNull(reservation, "reservation");
            Objects.requireNonNull(onDemand, "onDemand");
            Objects.requireNonNull(flexStart, "flexStart");
        }

        public Duration of(SupplyMode mode) {
            return switch (mode) {
                case RESERVATION -> reservation;
                case ON_DEMAND -> onDemand;
                case FLEX_START -> flexStart;
            };
        }
    }

    /** The supply mode a command asks for; no mode means flex-start (the scheduler resolves defaults). */
    public static SupplyMode supplyMode(EnsureNodePool command) {
        return command.supplyMode() == null ? SupplyMode.FLEX_START : command.supplyMode();
    }

    /** Hosts (VMs) of one slice of the command's topology; throws InvalidNodePoolException when unparseable. */
    public static int hosts(EnsureNodePool command) {
        return TpuTopology.parse(command.topology())
                .orElseThrow(() -> new InvalidNodePoolException("invalid topology '" + command.topology() + "'"))
                .hosts();
    }

    public static NodePool render(EnsureNodePool command) {
        return render(command, ScaleDown.DEFAULT);
    }

    public static NodePool render(EnsureNodePool command, ScaleDown scaleDown) {
        TpuType tpuType = TpuType.fromWire(command.tpuType())
                .orElseThrow(() -> new InvalidNodePoolException("unknown tpu type '" + command.tpuType() + "'"));
        TpuTopology topology = TpuTopology.parse(command.topology())
                .orElseThrow(() -> new InvalidNodePoolException("invalid topology '" + command.topology() + "'"));
        if (command.nodePoolName() == null || !command.nodePoolName().matches("[a-z]([-a-z0-9]{0,38}[a-z0-9])?")) {
            throw new InvalidNodePoolException("invalid node pool name '" + command.nodePoolName()
                    + "' (lowercase letters, digits, '-', at most 40, starting with a letter)");
        }
        SupplyMode mode = supplyMode(command);
        Map<String, String> labels = FalconLabels.of(command.jobId(), topology.text());

        NodeConfig.Builder config = NodeConfig.newBuilder()
                .setMachineType(tpuType.machineType())
                .putAllResourceLabels(labels)
                .putAllLabels(labels)
                .putMetadata(FalconLabels.METADATA_JOB_ID, command.jobId())
                .setConsolidationDelay(protoDuration(scaleDown.of(mode)));
        // The pool starts at full size; the autoscaler may take it back to zero once its nodes are unneeded for
        // the consolidation delay (a multi-host slice scales atomically between 0 and all of its hosts).
        NodePool.Builder pool = NodePool.newBuilder()
                .setName(command.nodePoolName())
                .setInitialNodeCount(topology.hosts())
                .setAutoscaling(NodePoolAutoscaling.newBuilder()
                        .setEnabled(true)
                        .setTotalMinNodeCount(0)
                        .setTotalMaxNodeCount(topology.hosts())
                        .setLocationPolicy(NodePoolAutoscaling.LocationPolicy.ANY));
        switch (mode) {
            case RESERVATION -> {
                String reservation = command.reservation()
                        .filter(r -> !r.isBlank())
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
                pool.setQueuedProvisioning(
                        NodePool.QueuedProvisioning.newBuilder().setEnabled(false));
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

    /** The pool with its creation time label, set when the create RPC is sent. */
    public static NodePool withCreatedAt(NodePool pool, java.time.Instant at) {
        return pool.toBuilder()
                .setConfig(pool.getConfig().toBuilder()
                        .putResourceLabels(FalconLabels.CREATED_AT, Long.toString(at.getEpochSecond())))
                .build();
    }

    static com.google.protobuf.Duration protoDuration(Duration d) {
        return com.google.protobuf.Duration.newBuilder()
                .setSeconds(d.getSeconds())
                .setNanos(d.getNano())
                .build();
    }
}
