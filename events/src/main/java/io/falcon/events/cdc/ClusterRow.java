package io.falcon.events.cdc;

import io.falcon.events.ClusterStatus;
import java.time.Instant;
import java.util.Optional;

/** One row of the clusters table (owned by Falcon). */
public record ClusterRow(
        String id,
        String name,
        String project,
        String location,
        String tpuType,
        String gcsBucket,
        Optional<String> defaultReservation,
        ClusterStatus status,
        Optional<Instant> createdAt) {

    public boolean isActive() {
        return status.schedulable();
    }
}
