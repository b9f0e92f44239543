package io.falcon.fleetsim.gke;

import com.google.container.v1.NodePool;
import com.google.container.v1.ReservationAffinity;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Optional;
import java.util.function.Function;

/**
 * Requests GKE refuses synchronously in CreateNodePool, with GKE's error shape (INVALID_ARGUMENT, "Invalid value for
 * field '...': ..."), so that a request real GKE would refuse fails here too (issue 19). Each rule names the page it
 * comes from.
 */
final class NodePoolRules {
    static final String RESERVATION_KEY = "compute.googleapis.com/reservation-name";

    private NodePoolRules() {}

    /**
     * The first rule the request breaks, as the gRPC error GKE answers with.
     *
     * @param workloadPolicyTopology the accelerator topology of the workload policy of that name in the cluster's
     *     project and region, empty when there is no such policy
     */
    static Optional<StatusRuntimeException> check(
            NodePool pool, Function<String, Optional<String>> workloadPolicyTopology) {
        return reservationAffinity(pool)
                .or(() -> flexStartWithReservation(pool))
                .or(() -> machineType(pool))
                .or(() -> placement(pool, workloadPolicyTopology))
                .or(() -> multiHostNodeCount(pool, workloadPolicyTopology))
                .map(NodePoolRules::invalid);
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
     * Flex-start VMs come from Dynamic Workload Scheduler capacity, not from a reservation: a flex-start pool cannot
     * consume a specific reservation (https://cloud.google.com/kubernetes-engine/docs/concepts/dws, "flex-start";
     * the how-to pages create flex-start pools with {@code --reservation-affinity=none}).
     */
    static Optional<String> flexStartWithReservation(NodePool pool) {
        boolean specific = pool.getConfig().getReservationAffinity().getConsumeReservationType()
                == ReservationAffinity.Type.SPECIFIC_RESERVATION;
        if (pool.getConfig().getFlexStart() && specific) {
            return Optional.of("Invalid value for field 'nodePool.config.flexStart': flex-start node pools cannot"
                    + " consume a specific reservation (reservationAffinity SPECIFIC_RESERVATION).");
        }
        return Optional.empty();
    }

    /** A TPU machine type GKE does not have (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus). */
    static Optional<String> machineType(NodePool pool) {
        String machineType = pool.getConfig().getMachineType();
        if (TpuMachineTypes.looksLikeTpu(machineType)
                && TpuMachineTypes.of(machineType).isEmpty()) {
            return Optional.of("Invalid value for field 'nodePool.config.machineType': '" + machineType
                    + "' is not a supported TPU machine type.");
        }
        return Optional.empty();
    }

    /**
     * How a multi-host slice is placed: tpu_topology for v5e, v5p and v6e 4-chip types, in the generation's number of
     * dimensions and in whole VMs (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus); the 8-chip
     * v5e/v6e types are single-host only (https://cloud.google.com/tpu/docs/v6e, https://cloud.google.com/tpu/docs/v5e);
     * TPU7x takes a workload policy instead of tpu_topology, which must exist in the cluster's project and region
     * (https://cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood; the API answers InvalidArgument for a
     * policy it cannot find: NodePool.PlacementPolicy.policy_name in
     * https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools).
     */
    static Optional<String> placement(NodePool pool, Function<String, Optional<String>> workloadPolicyTopology) {
        Optional<TpuMachineTypes.TpuMachine> machine =
                TpuMachineTypes.of(pool.getConfig().getMachineType());
        String topology = pool.getPlacementPolicy().getTpuTopology();
        String policy = pool.getPlacementPolicy().getPolicyName();
        if (!policy.isBlank()) {
            Optional<String> policyTopology = workloadPolicyTopology.apply(policy);
            if (policyTopology.isEmpty()) {
                return Optional.of("Invalid value for field 'nodePool.placementPolicy.policyName': resource policy '"
                        + policy + "' was not found in the cluster's project and region.");
            }
            if (machine.isPresent() && policyTopology.get().isBlank()) {
                return Optional.of("Invalid value for field 'nodePool.placementPolicy.policyName': workload policy '"
                        + policy + "' has no accelerator topology, which a TPU slice node pool needs.");
            }
            if (machine.isPresent() && !topology.isBlank()) {
                return Optional.of("Invalid value for field 'nodePool.placementPolicy': tpuTopology and a workload"
                        + " policy's accelerator topology cannot both be set.");
            }
        }
        if (machine.isEmpty() || topology.isBlank()) {
            return machine.filter(m -> !policy.isBlank())
                    .flatMap(m ->
                            shapeFits(m, workloadPolicyTopology.apply(policy).orElse(""), "policyName"));
        }
        TpuMachineTypes.TpuMachine m = machine.get();
        if (m.multiHost() == TpuMachineTypes.MultiHost.NONE) {
            return Optional.of("Invalid value for field 'nodePool.placementPolicy.tpuTopology': machine type "
                    + pool.getConfig().getMachineType() + " forms single-host slices only (" + m.singleHostTopology()
                    + "); use the 4-chip machine type for multi-host topologies.");
        }
        if (m.multiHost() == TpuMachineTypes.MultiHost.WORKLOAD_POLICY) {
            return Optional.of("Invalid value for field 'nodePool.placementPolicy.tpuTopology': "
                    + pool.getConfig().getMachineType() + " node pools are placed by a workload policy"
                    + " (placementPolicy.policyName), not by tpuTopology.");
        }
        return shapeFits(m, topology, "tpuTopology");
    }

    private static Optional<String> shapeFits(TpuMachineTypes.TpuMachine m, String topology, String field) {
        int chips = TpuMachineTypes.chips(topology);
        if (chips == 0 || topology.split("x").length != m.dimensions() || chips % m.chips() != 0) {
            return Optional.of("Invalid value for field 'nodePool.placementPolicy." + field + "': '" + topology
                    + "' is not a " + m.dimensions() + "-D topology of whole " + m.chips() + "-chip VMs.");
        }
        return Optional.empty();
    }

    /**
     * A multi-host TPU slice node pool has exactly one node per VM of its topology; GKE creates and scales it
     * atomically, between 0 and all of its VMs (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus,
     * "multi-host TPU slice node pools"). So its initial node count is its VMs, or 0 when autoscaling is on and may
     * reach them: GKE's flex-start examples create the pool with autoscaling from zero and let the cluster autoscaler
     * add the slice for pending pods (https://cloud.google.com/kubernetes-engine/docs/concepts/dws,
     * https://cloud.google.com/kubernetes-engine/docs/how-to/tpu-flex-start). 0 without autoscaling would be a slice
     * that never gets a node.
     */
    static Optional<String> multiHostNodeCount(
            NodePool pool, Function<String, Optional<String>> workloadPolicyTopology) {
        String topology = pool.getPlacementPolicy().getTpuTopology();
        if (topology.isBlank() && !pool.getPlacementPolicy().getPolicyName().isBlank()) {
            topology = workloadPolicyTopology
                    .apply(pool.getPlacementPolicy().getPolicyName())
                    .orElse("");
        }
        if (topology.isBlank()) {
            return Optional.empty();
        }
        int chips = TpuMachineTypes.chips(topology.toLowerCase());
        if (chips == 0) {
            return Optional.of("Invalid value for field 'nodePool.placementPolicy.tpuTopology': '" + topology
                    + "' is not a TPU topology.");
        }
        int chipsPerVm = TpuMachineTypes.of(pool.getConfig().getMachineType())
                .map(TpuMachineTypes.TpuMachine::chips)
                .orElse(4);
        int vms = Math.max(1, chips / chipsPerVm);
        int initial = pool.getInitialNodeCount();
        if (vms == 1 || initial == vms) {
            return Optional.empty();
        }
        if (initial != 0) {
            return Optional.of(
                    "Invalid value for field 'nodePool.initialNodeCount': a multi-host TPU slice of topology "
                            + topology + " has " + vms + " nodes, got " + initial + ".");
        }
        if (!pool.getAutoscaling().getEnabled()) {
            return Optional.of(
                    "Invalid value for field 'nodePool.initialNodeCount': a multi-host TPU slice of topology "
                            + topology + " has " + vms
                            + " nodes, got 0; 0 needs autoscaling enabled (autoscaling.enabled"
                            + " with total max node count " + vms + ") to scale up from zero.");
        }
        int max = GkeFleet.maxNodes(pool);
        if (max < vms) {
            return Optional.of("Invalid value for field 'nodePool.autoscaling.totalMaxNodeCount': a multi-host TPU"
                    + " slice of topology " + topology + " scales atomically to " + vms + " nodes, got a maximum of "
                    + max + ".");
        }
        return Optional.empty();
    }

    private static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }
}
