package io.falcon.executor.gke;

import com.google.cloud.compute.v1.Reservation;
import com.google.cloud.compute.v1.ReservationsClient;

/** Remaining capacity of a specific TPU reservation (count - inUseCount), from the Compute API. */
public final class ReservationLookup {
    private final ReservationsClient reservations;

    public ReservationLookup(ReservationsClient reservations) {
        this.reservations = reservations;
    }

    public record Capacity(long count, long inUse) {
        public long remaining() {
            return Math.max(0, count - inUse);
        }
    }

    public Capacity capacity(String project, String zone, String reservation) {
        Reservation r = reservations.get(project, zone, reservation);
        var sku = r.getSpecificReservation();
        return new Capacity(sku.getCount(), sku.getInUseCount());
    }
}
