package io.falcon.executor.gke;

import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodePoolAutoscaling;
import com.google.container.v1.ReservationAffinity;
import io.falcon.events.TpuSlice;
import io.falcon.events.TpuTopology;
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

    /** VMs (nodes) of one slice of the command's topology; throws InvalidNodePoolException when it has none. */
    public static int hosts(EnsureNodePool command) {
        return slice(command).vms();
    }

    /** The slice GKE provisions for the command's TPU type and topology. */
    public static TpuSlice slice(EnsureNodePool command) {
        try {
            return TpuSlice.resolve(command.tpuType(), command.topology());
        } catch (IllegalArgumentException e) {
            throw new InvalidNodePoolException(e.getMessage());
        }
    }

    /**
     * The name of the Compute workload policy a TPU7x multi-host pool of this topology is placed by: one per
     * (project, region, topology), shared by every pool of that shape and never deleted by Falcon (it costs nothing
     * and other pools may reference it), so "already exists" is success. Compute names: [a-z]([-a-z0-9]*[a-z0-9])?.
     */
    public static String workloadPolicyName(TpuSlice slice) {
        return "falcon-" + slice.type().wireName() + "-ht-" + slice.topology().text();
    }

    public static NodePool render(EnsureNodePool command) {
        return render(command, ScaleDown.DEFAULT, io.falcon.executor.core.Ownership.DEFAULT);
    }

    public static NodePool render(EnsureNodePool command, ScaleDown scaleDown) {
        return render(command, scaleDown, io.falcon.executor.core.Ownership.DEFAULT);
    }

    public static NodePool render(
            EnsureNodePool command, ScaleDown scaleDown, io.falcon.executor.core.Ownership ownership) {
        TpuSlice slice = slice(command);
        TpuTopology topology = slice.topology();
        if (command.nodePoolName() == null || !command.nodePoolName().matches("[a-z]([-a-z0-9]{0,38}[a-z0-9])?")) {
            throw new InvalidNodePoolException("invalid node pool name '" + command.nodePoolName()
                    + "' (lowercase letters, digits, '-', at most 40, starting with a letter)");
        }
        SupplyMode mode = supplyMode(command);
        Map<String, String> labels = ownership.labels(command.jobId(), topology.text());

        NodeConfig.Builder config = NodeConfig.newBuilder()
                .setMachineType(slice.machineType())
                .putAllResourceLabels(labels)
                .putAllLabels(labels)
                .putMetadata(FalconLabels.METADATA_JOB_ID, command.jobId())
                .setConsolidationDelay(protoDuration(scaleDown.of(mode)));
        // A reservation or on-demand pool starts at full size (one node per VM of the slice); the autoscaler may
        // take it back to zero once its nodes are unneeded for the consolidation delay (a multi-host slice scales
        // atomically between 0 and all of its VMs). A flex-start pool starts at zero, as GKE's flex-start examples
        // create it (https://cloud.google.com/kubernetes-engine/docs/how-to/tpu-flex-start): its VMs come when the
        // Job's pods are pending on it, so the executor submits the Job once the pool is RUNNING (docs/gke.md).
        NodePool.Builder pool = NodePool.newBuilder()
                .setName(command.nodePoolName())
                .setInitialNodeCount(mode == SupplyMode.FLEX_START ? 0 : slice.vms())
                .setAutoscaling(NodePoolAutoscaling.newBuilder()
                        .setEnabled(true)
                        .setTotalMinNodeCount(0)
                        .setTotalMaxNodeCount(slice.vms())
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
                // Plain on-demand capacity. Not GKE's default affinity (ANY, as Compute's): with it the pool's VMs
                // would consume any matching reservation that does not require specific consumption, taking the
                // slices the cluster's reservation holds for its reservation jobs.
                config.setReservationAffinity(ReservationAffinity.newBuilder()
                        .setConsumeReservationType(ReservationAffinity.Type.NO_RESERVATION));
            }
        }
        pool.setConfig(config);
        switch (slice.placement()) {
            case NONE -> {
                // one VM: GKE derives the topology from the machine type
            }
            case TPU_TOPOLOGY ->
                pool.setPlacementPolicy(NodePool.PlacementPolicy.newBuilder()
                        .setType(NodePool.PlacementPolicy.Type.COMPACT)
                        .setTpuTopology(topology.text()));
            // TPU7x: the workload policy replaces tpu_topology
            // (https://cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood); the executor makes sure it
            // exists before it creates the pool (GkeClusterApi.createNodePool).
            case WORKLOAD_POLICY ->
                pool.setPlacementPolicy(NodePool.PlacementPolicy.newBuilder().setPolicyName(workloadPolicyName(slice)));
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
