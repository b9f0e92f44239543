package io.falcon.fleetsim.compute;

import java.time.Instant;

/**
 * Snapshot of a simulated specific-SKU reservation. {@code count} is the number of reserved VMs (one per TPU host),
 * {@code inUseCount} how many of them are consumed.
 */
public record SimulatedReservation(
        ReservationKey key, long id, String machineType, long count, long inUseCount, Instant createdAt) {

    public long available() {
        return Math.max(0, count - inUseCount);
    }

    SimulatedReservation withCount(long newCount) {
        return new SimulatedReservation(key, id, machineType, newCount, inUseCount, createdAt);
    }

    SimulatedReservation withInUseCount(long newInUse) {
        return new SimulatedReservation(key, id, machineType, count, newInUse, createdAt);
    }
}
