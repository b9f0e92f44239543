package io.falcon.events.status;

import io.falcon.events.Meta;
import java.time.Instant;
import java.util.Optional;

/**
 * One status transition of a task, keyed by job id. version grows with every transition of the same job, so a
 * writer can drop stale or duplicate events.
 *
 * @param estimatedStart only on Pending/Waiting statuses of a queued job whose queue has history enough to say:
 *     when it is expected to start (the same interval its Message shows)
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
        Optional<Instant> abortedAt,
        Optional<StartEstimate> estimatedStart) {}
