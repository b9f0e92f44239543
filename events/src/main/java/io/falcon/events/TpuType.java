package io.falcon.events;

import java.util.Arrays;
import java.util.Optional;

/** The TPU generations Falcon can place, with their GKE machine type and accelerator label. */
public enum TpuType {
    V5E("v5e", "ct5lp-hightpu-4t", "tpu-v5-lite-podslice"),
    V5P("v5p", "ct5p-hightpu-4t", "tpu-v5p-slice"),
    V6E("v6e", "ct6e-standard-4t", "tpu-v6e-slice"),
    V7X("v7x", "tpu7x-standard-4t", "tpu7x");

    /** Each host of the machine types above carries four chips. */
    public static final int CHIPS_PER_HOST = 4;

    private final String wireName;
    private final String machineType;
    private final String acceleratorLabel;

    TpuType(String wireName, String machineType, String acceleratorLabel) {
        this.wireName = wireName;
        this.machineType = machineType;
        this.acceleratorLabel = acceleratorLabel;
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
