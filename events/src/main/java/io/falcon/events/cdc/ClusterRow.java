package io.falcon.events.cdc;

import java.time.Instant;
import java.util.Optional;

/** One row of the clusters table (owned by Falcon). status is active, maintenance or offline. */
public record ClusterRow(
        String id,
        String name,
        String project,
        String location,
        String tpuType,
        String gcsBucket,
        Optional<String> defaultReservation,
        String status,
        Optional<Instant> createdAt) {

    public boolean isActive() {
        return "active".equals(status);
    }
}
