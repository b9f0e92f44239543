package io.falcon.fleetsim.gke;

import java.util.Map;
import java.util.Optional;

/**
 * What GKE derives from a TPU machine type when it labels the nodes of a pool: the accelerator label, and the
 * topology of a single-host slice (a pool without a placement policy).
 */
final class TpuMachineTypes {
    record TpuMachine(String acceleratorLabel, String singleHostTopology) {}

    private static final Map<String, TpuMachine> BY_MACHINE_TYPE = Map.of(
            "ct5lp-hightpu-4t", new TpuMachine("tpu-v5-lite-podslice", "2x2"),
            "ct5p-hightpu-4t", new TpuMachine("tpu-v5p-slice", "2x2x1"),
            "ct6e-standard-4t", new TpuMachine("tpu-v6e-slice", "2x2"),
            "tpu7x-standard-4t", new TpuMachine("tpu7x", "2x2x1"));

    private TpuMachineTypes() {}

    static Optional<TpuMachine> of(String machineType) {
        return Optional.ofNullable(BY_MACHINE_TYPE.get(machineType));
    }
}
