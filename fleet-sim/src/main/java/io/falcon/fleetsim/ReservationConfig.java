package io.falcon.fleetsim;

/**
 * A reservation to define at start. {@code zone} defaults to the cluster's location when null (use a zone such as
 * us-central1-a when the cluster is regional).
 */
public record ReservationConfig(String zone, String name, String machineType, long count, long inUseCount) {

    public static ReservationConfig of(String name, String machineType, long count, long inUseCount) {
        return new ReservationConfig(null, name, machineType, count, inUseCount);
    }
}
