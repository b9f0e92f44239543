package io.falcon.scheduler.core;

import io.falcon.events.TpuTopology;
import io.falcon.events.TpuType;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import java.time.Instant;
import java.util.Optional;

/**
 * A request whose every field has been checked.
 *
 * @param priority the job's stated priority, higher first (the priority column when not NULL, else the spec's
 *     {@code priority}, else 0); records stored before priorities existed lack it and read as 0
 */
public record ValidRequest(
        String id,
        String actor,
        String name,
        TpuType tpuType,
        TpuTopology topology,
        JobSpec spec,
        Optional<SupplyMode> supplyMode,
        Optional<Long> timeoutSeconds,
        Instant submittedAt,
        int priority) {

    /** VMs of the job's slice (pods of its Kubernetes Job): validation accepted the shape, so it has a slice. */
    public int vms() {
        return tpuType.slice(topology).map(io.falcon.events.TpuSlice::vms).orElse(topology.hosts());
    }
}
