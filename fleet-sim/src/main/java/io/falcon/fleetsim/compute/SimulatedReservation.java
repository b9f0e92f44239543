package io.falcon.fleetsim.compute;

import java.time.Instant;

/**
 * Snapshot of a simulated specific-SKU reservation. {@code count} is the number of reserved VMs (one per TPU host),
 * {@code inUseCount} how many of them are consumed. {@code specificRequired} is Compute's specificReservationRequired:
 * only VMs that name the reservation consume it; without it, any VM of its machine type in its zone whose reservation
 * affinity is ANY (GKE's default for a node pool that sets none) consumes it.
 */
public record SimulatedReservation(
        ReservationKey key,
        long id,
        String machineType,
        long count,
        long inUseCount,
        Instant createdAt,
        boolean specificRequired) {

    public long available() {
        return Math.max(0, count - inUseCount);
    }

    SimulatedReservation withCount(long newCount) {
        return new SimulatedReservation(key, id, machineType, newCount, inUseCount, createdAt, specificRequired);
    }

    SimulatedReservation withInUseCount(long newInUse) {
        return new SimulatedReservation(key, id, machineType, count, newInUse, createdAt, specificRequired);
    }

    SimulatedReservation withSpecificRequired(boolean required) {
        return new SimulatedReservation(key, id, machineType, count, inUseCount, createdAt, required);
    }
}
