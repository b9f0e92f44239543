package io.falcon.events;

/**
 * One TPU slice as GKE provisions it: the machine type of its VMs, how many VMs (Kubernetes nodes, and so pods of
 * the Job: one per VM), the chips each VM carries (the pod's {@code google.com/tpu} request), and how a multi-host
 * slice is placed. Made by {@link TpuType#slice(TpuTopology)}.
 */
public record TpuSlice(
        TpuType type, TpuTopology topology, String machineType, int vms, int chipsPerVm, Placement placement) {

    /** How GKE is told to place the VMs of one slice together. */
    public enum Placement {
        /** A single VM: no placement policy. */
        NONE,
        /** {@code placementPolicy.tpuTopology} (COMPACT) on the node pool: v5e, v5p, v6e multi-host slices. */
        TPU_TOPOLOGY,
        /**
         * A Compute workload policy (HIGH_THROUGHPUT, acceleratorTopology = the topology) named by
         * {@code placementPolicy.policyName}: TPU7x multi-host slices.
         */
        WORKLOAD_POLICY
    }

    /**
     * The slice of a TPU type and topology as commands carry them (wire names), or a message saying which part is
     * wrong; the executor's renderers wrap it in their own refusal.
     */
    public static TpuSlice resolve(String tpuType, String topology) {
        TpuType type = TpuType.fromWire(tpuType)
                .orElseThrow(() -> new IllegalArgumentException("unknown tpu type '" + tpuType + "'"));
        TpuTopology shape = TpuTopology.parse(topology)
                .orElseThrow(() -> new IllegalArgumentException("invalid topology '" + topology + "'"));
        return type.slice(shape)
                .orElseThrow(() -> new IllegalArgumentException("topology '" + topology + "' is not a "
                        + type.wireName() + " slice shape; valid: " + type.validShapes()));
    }

    public boolean multiHost() {
        return vms > 1;
    }
}
