package io.falcon.events;

import java.util.Arrays;
import java.util.Optional;

/** The TPU generations Falcon can place, with their GKE machine type and accelerator label. */
public enum TpuType {
    V5E("v5e", "ct5lp-hightpu-4t", "tpu-v5-lite-podslice", 2, 256),
    V5P("v5p", "ct5p-hightpu-4t", "tpu-v5p-slice", 3, 8960),
    V6E("v6e", "ct6e-standard-4t", "tpu-v6e-slice", 2, 256),
    V7X("v7x", "tpu7x-standard-4t", "tpu7x", 3, 9216);

    /**
     * The 2-D slice shapes of v5e and v6e with at least one 4-chip host, as GKE lists them
     * (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus, "TPU topology").
     */
    private static final java.util.List<String> SHAPES_2D =
            java.util.List.of("2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16");

    /** Each host of the machine types above carries four chips. */
    public static final int CHIPS_PER_HOST = 4;

    private final String wireName;
    private final String machineType;
    private final String acceleratorLabel;
    private final int dimensions;
    private final int maxChips;

    TpuType(String wireName, String machineType, String acceleratorLabel, int dimensions, int maxChips) {
        this.wireName = wireName;
        this.machineType = machineType;
        this.acceleratorLabel = acceleratorLabel;
        this.dimensions = dimensions;
        this.maxChips = maxChips;
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
