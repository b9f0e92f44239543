package io.falcon.fleetsim.gke;

import java.util.Map;
import java.util.Optional;

/**
 * GKE's TPU machine types as the sim needs them: the accelerator label and chips of each VM, the topology of the
 * single-VM slice GKE derives when a pool has no placement policy, whether the type can form multi-host slices, and
 * how such a slice is placed. Sources: https://cloud.google.com/tpu/docs/v5e, https://cloud.google.com/tpu/docs/v5p,
 * https://cloud.google.com/tpu/docs/v6e ("Supported configurations": 2x4 on one 8-chip VM is single-host only,
 * multi-host slices use the 4-chip type), https://cloud.google.com/tpu/docs/tpu7x and
 * https://cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood (TPU7x multi-host slices are placed by a
 * workload policy, which replaces tpu_topology).
 */
final class TpuMachineTypes {
    /** How a multi-host slice of a machine type is placed. */
    enum MultiHost {
        /** Single-VM slices only. */
        NONE,
        /** placementPolicy.tpuTopology. */
        TPU_TOPOLOGY,
        /** placementPolicy.policyName naming a Compute workload policy. */
        WORKLOAD_POLICY
    }

    record TpuMachine(
            String acceleratorLabel, int chips, String singleHostTopology, int dimensions, MultiHost multiHost) {}

    private static final Map<String, TpuMachine> BY_MACHINE_TYPE = Map.of(
            "ct5lp-hightpu-4t", new TpuMachine("tpu-v5-lite-podslice", 4, "2x2", 2, MultiHost.TPU_TOPOLOGY),
            "ct5lp-hightpu-8t", new TpuMachine("tpu-v5-lite-podslice", 8, "2x4", 2, MultiHost.NONE),
            "ct5p-hightpu-4t", new TpuMachine("tpu-v5p-slice", 4, "2x2x1", 3, MultiHost.TPU_TOPOLOGY),
            "ct6e-standard-4t", new TpuMachine("tpu-v6e-slice", 4, "2x2", 2, MultiHost.TPU_TOPOLOGY),
            "ct6e-standard-8t", new TpuMachine("tpu-v6e-slice", 8, "2x4", 2, MultiHost.NONE),
            "tpu7x-standard-4t", new TpuMachine("tpu7x", 4, "2x2x1", 3, MultiHost.WORKLOAD_POLICY));

    private TpuMachineTypes() {}

    static Optional<TpuMachine> of(String machineType) {
        return Optional.ofNullable(BY_MACHINE_TYPE.get(machineType));
    }

    /** ct5lp-*, ct5p-*, ct6e-*, tpu7x-*: names of TPU machine types, known to the sim or not. */
    static boolean looksLikeTpu(String machineType) {
        return machineType.matches("(ct[0-9]|tpu[0-9]).*");
    }

    /** Chips of a topology such as 2x2x2; 0 when it is not one. */
    static int chips(String topology) {
        if (!topology.matches("[1-9][0-9]{0,2}(x[1-9][0-9]{0,2}){1,2}")) {
            return 0;
        }
        int chips = 1;
        for (String dim : topology.split("x")) {
            chips *= Integer.parseInt(dim);
        }
        return chips;
    }
}
