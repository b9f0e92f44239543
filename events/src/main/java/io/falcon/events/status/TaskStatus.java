package io.falcon.events.status;

import io.falcon.events.Meta;
import java.time.Instant;
import java.util.Optional;

/**
 * One status transition of a task, keyed by job id. version grows with every transition of the same job, so a
 * writer can drop stale or duplicate events.
 */
public record TaskStatus(
        Meta meta,
        String jobId,
        long version,
        Status status,
        Optional<Reason> reason,
        String message,
        Optional<String> clusterId,
        Optional<String> nodePoolName,
        Optional<String> k8sJobName,
        Optional<String> jobUid,
        Optional<Instant> dispatchedAt,
        Optional<Instant> finishedAt,
        Optional<Instant> abortedAt) {}
