package io.falcon.events;

import java.util.Arrays;
import java.util.Optional;

/**
 * The TPU generations Falcon can place, with their GKE machine types and accelerator label. What one slice of a
 * topology takes (machine type, VMs, chips per VM, placement) is {@link #slice(TpuTopology)}.
 */
public enum TpuType {
    // v5e and v6e also have an 8-chip single-VM machine type for 2x4 (https://cloud.google.com/tpu/docs/v5e,
    // https://cloud.google.com/tpu/docs/v6e, "Supported configurations"); v5p and TPU7x hosts carry 4 chips
    // (https://cloud.google.com/tpu/docs/v5p, https://cloud.google.com/tpu/docs/tpu7x).
    V5E(
            "v5e",
            "ct5lp-hightpu-4t",
            Optional.of("ct5lp-hightpu-8t"),
            "tpu-v5-lite-podslice",
            2,
            256,
            TpuSlice.Placement.TPU_TOPOLOGY),
    V5P("v5p", "ct5p-hightpu-4t", Optional.empty(), "tpu-v5p-slice", 3, 8960, TpuSlice.Placement.TPU_TOPOLOGY),
    V6E(
            "v6e",
            "ct6e-standard-4t",
            Optional.of("ct6e-standard-8t"),
            "tpu-v6e-slice",
            2,
            256,
            TpuSlice.Placement.TPU_TOPOLOGY),
    // Ironwood places multi-host slices by a workload policy instead of tpu_topology
    // (https://cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood, "Workload policy for multi-host node
    // pools").
    V7X("v7x", "tpu7x-standard-4t", Optional.empty(), "tpu7x", 3, 9216, TpuSlice.Placement.WORKLOAD_POLICY);

    /**
     * The 2-D slice shapes of v5e and v6e with at least one 4-chip host, as GKE lists them
     * (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus, "TPU topology").
     */
    private static final java.util.List<String> SHAPES_2D =
            java.util.List.of("2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16");

    /** Each VM of the 4-chip machine types above carries four chips (the 8-chip types, eight). */
    public static final int CHIPS_PER_HOST = 4;

    /** The one 8-chip slice shape that fits a single VM where the generation has an 8-chip machine type. */
    private static final String EIGHT_CHIP_SHAPE = "2x4";

    private final String wireName;
    private final String machineType;
    private final Optional<String> eightChipMachineType;
    private final String acceleratorLabel;
    private final int dimensions;
    private final int maxChips;
    private final TpuSlice.Placement multiHostPlacement;

    TpuType(
            String wireName,
            String machineType,
            Optional<String> eightChipMachineType,
            String acceleratorLabel,
            int dimensions,
            int maxChips,
            TpuSlice.Placement multiHostPlacement) {
        this.wireName = wireName;
        this.machineType = machineType;
        this.eightChipMachineType = eightChipMachineType;
        this.acceleratorLabel = acceleratorLabel;
        this.dimensions = dimensions;
        this.maxChips = maxChips;
        this.multiHostPlacement = multiHostPlacement;
    }

    /**
     * What GKE provisions for one slice of this shape, empty when the generation has no such shape: the 8-chip VM
     * for 2x4 where there is one (one node, one pod with 8 chips, no placement), else one 4-chip VM per 4 chips,
     * placed by tpu_topology or, for TPU7x, a workload policy when there is more than one.
     */
    public Optional<TpuSlice> slice(TpuTopology topology) {
        if (!accepts(topology)) {
            return Optional.empty();
        }
        if (eightChipMachineType.isPresent() && topology.text().equals(EIGHT_CHIP_SHAPE)) {
            return Optional.of(new TpuSlice(this, topology, eightChipMachineType.get(), 1, 8, TpuSlice.Placement.NONE));
        }
        int vms = topology.chips() / CHIPS_PER_HOST;
        return Optional.of(new TpuSlice(
                this,
                topology,
                machineType,
                vms,
                CHIPS_PER_HOST,
                vms > 1 ? multiHostPlacement : TpuSlice.Placement.NONE));
    }

    /** Every machine type of this generation Falcon creates pools of. */
    public java.util.List<String> machineTypes() {
        return eightChipMachineType.isPresent()
                ? java.util.List.of(machineType, eightChipMachineType.get())
                : java.util.List.of(machineType);
    }

    /**
     * Whether GKE creates a slice of this shape for this generation: for v5e and v6e one of the 2-D shapes GKE
     * lists; for v5p and v7x 2x2x1 or a 3-D shape AxBxC with A <= B <= C, all at most 4 or all multiples of 4, within
     * the pod (https://cloud.google.com/tpu/docs/v5p, https://cloud.google.com/tpu/docs/tpu7x).
     */
    public boolean accepts(TpuTopology topology) {
        String[] parts = topology.text().split("x");
        if (parts.length != dimensions) {
            return false;
        }
        if (dimensions == 2) {
            return SHAPES_2D.contains(topology.text());
        }
        int a = Integer.parseInt(parts[0]);
        int b = Integer.parseInt(parts[1]);
        int c = Integer.parseInt(parts[2]);
        if (topology.text().equals("2x2x1")) {
            return true; // the one-host slice, written with its 1 last
        }
        boolean ordered = a <= b && b <= c;
        boolean small = c <= 4;
        boolean multiples = a % 4 == 0 && b % 4 == 0 && c % 4 == 0;
        return ordered && (small || multiples) && topology.chips() <= maxChips;
    }

    /** The valid shapes, as a person reads them in an InvalidSpec message. */
    public String validShapes() {
        return dimensions == 2
                ? String.join(", ", SHAPES_2D)
                : "AxBxC with A<=B<=C, all <= 4 or all multiples of 4, at most " + maxChips + " chips (2x2x1, 2x2x2, "
                        + "2x2x4, 2x4x4, 4x4x4, 4x4x8, 4x8x8, 8x8x8, ...)";
    }

    public String wireName() {
        return wireName;
    }

    /** The 4-chip machine type (multi-host slices and the 4-chip single-host ones). */
    public String machineType() {
        return machineType;
    }

    public String acceleratorLabel() {
        return acceleratorLabel;
    }

    public static Optional<TpuType> fromWire(String name) {
        return Arrays.stream(values()).filter(t -> t.wireName.equals(name)).findFirst();
    }
}
