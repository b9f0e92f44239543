package io.falcon.scheduler.core;

import java.time.Instant;
import java.util.Optional;

/**
 * A submitted jobs row as the scheduler sees it, before validation.
 *
 * @param submittedAt when the submission was committed (the binlog's time of the change; for a snapshot row, its
 *     created_at, never later than the read): what queue order counts from
 * @param priority the row's priority column (absent when NULL or when the table has no such column); the spec's
 *     {@code priority} member is read by {@link RequestValidator}, which decides between the two
 * @param createdAt the row's created_at as its writer set it (shown; tells a redelivery from a reused id)
 * @param commitOrder the change's binlog position ({@link ValidRequest#commitOrderOf}); 0 for a snapshot row
 * @param maxRetries the row's max_retries column (absent when NULL or when the table has no such column); the spec's
 *     {@code retry.max_retries} is read by {@link RequestValidator}, which decides between the two
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
        Optional<Long> priority,
        Instant createdAt,
        long commitOrder,
        Optional<Long> maxRetries) {

    public JobRequest {
        maxRetries = maxRetries == null ? Optional.empty() : maxRetries;
    }

    /** A request of a table without the max_retries column (or with it NULL). */
    public JobRequest(
            String id,
            String actor,
            String name,
            String tpuType,
            String topology,
            String spec,
            Optional<String> supplyMode,
            Optional<Long> timeoutSeconds,
            Instant submittedAt,
            Optional<Long> priority,
            Instant createdAt,
            long commitOrder) {
        this(
                id,
                actor,
                name,
                tpuType,
                topology,
                spec,
                supplyMode,
                timeoutSeconds,
                submittedAt,
                priority,
                createdAt,
                commitOrder,
                Optional.empty());
    }

    /** A request committed when its row says it was created, at no binlog position (tests, tools). */
    public JobRequest(
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
        this(
                id,
                actor,
                name,
                tpuType,
                topology,
                spec,
                supplyMode,
                timeoutSeconds,
                submittedAt,
                priority,
                submittedAt,
                0);
    }

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
                id,
                actor,
                name,
                tpuType,
                topology,
                spec,
                supplyMode,
                timeoutSeconds,
                submittedAt,
                Optional.of(value),
                createdAt,
                commitOrder,
                maxRetries);
    }

    /** The request with its max_retries column set. */
    public JobRequest withMaxRetries(long value) {
        return new JobRequest(
                id,
                actor,
                name,
                tpuType,
                topology,
                spec,
                supplyMode,
                timeoutSeconds,
                submittedAt,
                priority,
                createdAt,
                commitOrder,
                Optional.of(value));
    }
}
