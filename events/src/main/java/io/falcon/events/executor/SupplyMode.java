package io.falcon.events.executor;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Optional;

/** How a node pool gets its TPUs (the jobs.supply_mode column). */
public enum SupplyMode {
    RESERVATION("reservation"),
    ON_DEMAND("on-demand"),
    FLEX_START("flex-start");

    private final String wireName;

    SupplyMode(String wireName) {
        this.wireName = wireName;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    @JsonCreator
    public static SupplyMode fromJson(String name) {
        return fromWire(name).orElseThrow(() -> new IllegalArgumentException("unknown supply mode " + name));
    }

    public static Optional<SupplyMode> fromWire(String name) {
        return Arrays.stream(values()).filter(m -> m.wireName.equals(name)).findFirst();
    }
}
