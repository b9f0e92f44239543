package io.falcon.events.cdc;

import java.time.Instant;
import java.util.Optional;

/**
 * One row of the jobs table as captured. Request columns are written by the upper components, the scheduling
 * columns by Falcon's status-sink. Optional marks the nullable columns. {@code priority} and {@code max_retries} are
 * absent from rows captured before the columns existed (and from tables that lack them), which reads as NULL.
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
        Optional<Instant> updatedAt,
        Optional<Long> maxRetries) {

    public JobRow {
        maxRetries = maxRetries == null ? Optional.empty() : maxRetries;
    }

    /** A row of a table without the max_retries column. */
    public JobRow(
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
            Optional<Instant> updatedAt) {
        this(
                id,
                actor,
                name,
                tpuType,
                topology,
                spec,
                supplyMode,
                timeoutSeconds,
                priority,
                status,
                reason,
                message,
                clusterId,
                nodePoolName,
                k8sJobName,
                jobUid,
                createdAt,
                dispatchedAt,
                finishedAt,
                abortingAt,
                abortedAt,
                updatedAt,
                Optional.empty());
    }
}
