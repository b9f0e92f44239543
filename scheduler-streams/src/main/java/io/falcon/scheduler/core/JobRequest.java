package io.falcon.scheduler.core;

import java.time.Instant;
import java.util.Optional;

/**
 * A submitted jobs row as the scheduler sees it, before validation.
 *
 * @param priority the row's priority column (absent when NULL or when the table has no such column); the spec's
 *     {@code priority} member is read by {@link RequestValidator}, which decides between the two
 */
public record JobRequest(
        String id,
        String actor,
        String name,
        String tpuType,
        String topology,
        String spec,
        Optional<String> supplyMode,
        Optional<Long> timeoutSeconds,
        Instant submittedAt,
        Optional<Long> priority) {

    /** A request whose priority column is NULL. */
    public JobRequest(
            String id,
            String actor,
            String name,
            String tpuType,
            String topology,
            String spec,
            Optional<String> supplyMode,
            Optional<Long> timeoutSeconds,
            Instant submittedAt) {
        this(id, actor, name, tpuType, topology, spec, supplyMode, timeoutSeconds, submittedAt, Optional.empty());
    }

    public JobRequest withPriority(long value) {
        return new JobRequest(
                id, actor, name, tpuType, topology, spec, supplyMode, timeoutSeconds, submittedAt, Optional.of(value));
    }
}
