package io.falcon.scheduler.core;

import java.time.Instant;
import java.util.Optional;

/** A submitted jobs row as the scheduler sees it, before validation. */
public record JobRequest(
        String id,
        String actor,
        String name,
        String tpuType,
        String topology,
        String spec,
        Optional<String> supplyMode,
        Optional<Long> timeoutSeconds,
        Instant submittedAt) {}
