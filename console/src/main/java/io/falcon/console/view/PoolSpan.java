package io.falcon.console.view;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One node pool as the ledger and the statuses told it: created (or first seen) for a job, held by one job after
 * another, deleted.
 *
 * @param supplyMode reservation, on-demand or flex-start, as the ledger's POOL_CREATED said; "unknown" when the
 *     console saw the pool only in a status
 * @param holders the jobs that ran on it, in order
 */
public record PoolSpan(
        String name,
        String clusterId,
        String topology,
        String supplyMode,
        Instant createdAt,
        Optional<Instant> deletedAt,
        List<String> holders) {
    public PoolSpan {
        holders = List.copyOf(holders);
    }

    public boolean active() {
        return deletedAt.isEmpty();
    }
}
