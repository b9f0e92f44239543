package io.falcon.events.cdc;

import java.time.Instant;
import java.util.Optional;

/**
 * One row of the jobs table as captured. Request columns are written by the upper components, the scheduling
 * columns by Falcon's status-sink. Optional marks the nullable columns. {@code priority} is absent from rows
 * captured before the column existed (and from tables that lack it), which reads as NULL.
 */
public record JobRow(
        String id,
        String actor,
        String name,
        String tpuType,
        String topology,
        String spec,
        Optional<String> supplyMode,
        Optional<Long> timeoutSeconds,
        Optional<Long> priority,
        String status,
        Optional<String> reason,
        Optional<String> message,
        Optional<String> clusterId,
        Optional<String> nodePoolName,
        Optional<String> k8sJobName,
        Optional<String> jobUid,
        Optional<Instant> createdAt,
        Optional<Instant> dispatchedAt,
        Optional<Instant> finishedAt,
        Optional<Instant> abortingAt,
        Optional<Instant> abortedAt,
        Optional<Instant> updatedAt) {}
