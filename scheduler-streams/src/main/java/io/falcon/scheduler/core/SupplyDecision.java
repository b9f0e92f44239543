package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.SupplyMode;
import java.util.Optional;

/**
 * Seed section 5: an explicit supply_mode wins; without one, reservation when the cluster has a
 * default_reservation, else flex-start. Never falls back silently from reservation to flex-start.
 */
public record SupplyDecision(SupplyMode mode, Optional<String> reservation) {

    public static SupplyDecision decide(Optional<SupplyMode> requested, ClusterRow cluster) {
        Optional<String> reservation = cluster.defaultReservation().filter(r -> !r.isBlank());
        SupplyMode mode = requested.orElse(reservation.isPresent() ? SupplyMode.RESERVATION : SupplyMode.FLEX_START);
        return new SupplyDecision(mode, mode == SupplyMode.RESERVATION ? reservation : Optional.empty());
    }
}
