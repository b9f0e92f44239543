package io.falcon.events.status;

import io.falcon.events.Meta;
import java.time.Instant;
import java.util.Optional;

/**
 * One status transition of a task, keyed by job id. version grows with every transition of the same job, so a
 * writer can drop stale or duplicate events.
 *
 * @param message at most {@link #MAX_MESSAGE_CHARS} characters: a longer one (a Kubernetes error echoing a crafted
 *     spec, say) is cut, saying so, so that it always fits the jobs table's message column and the row is written
 * @param estimatedStart only on Pending/Waiting statuses of a queued job whose queue has history enough to say:
 *     when it is expected to start (the same interval its Message shows)
 * @param attempt which attempt of the job this status is about: 1, then one more each time the fleet ended an
 *     attempt and the job runs again (Pending/Retrying between them); statuses written before attempts were numbered
 *     read as 1
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
        Optional<StartEstimate> estimatedStart,
        int attempt) {

    /** A status of a job's first attempt (every status of a job never retried). */
    public TaskStatus(
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
            Optional<StartEstimate> estimatedStart) {
        this(
                meta,
                jobId,
                version,
                status,
                reason,
                message,
                clusterId,
                nodePoolName,
                k8sJobName,
                jobUid,
                dispatchedAt,
                finishedAt,
                abortedAt,
                estimatedStart,
                1);
    }

    /**
     * The longest Message: the reference DDL's TEXT column holds 65,535 bytes, which in utf8mb4 (up to 4 bytes a
     * character) is at least 16,383 characters; a Message is a sentence or two, so this leaves room to spare.
     */
    public static final int MAX_MESSAGE_CHARS = 4_000;

    public TaskStatus {
        // statuses written before attempts were numbered are of a first attempt
        attempt = Math.max(1, attempt);
        if (message != null && message.length() > MAX_MESSAGE_CHARS) {
            message = bounded(message);
        }
    }

    /** The message cut to {@link #MAX_MESSAGE_CHARS}, never inside a surrogate pair, saying how much was cut. */
    static String bounded(String message) {
        int keep = MAX_MESSAGE_CHARS - 64; // room for the note
        if (Character.isHighSurrogate(message.charAt(keep - 1))) {
            keep--;
        }
        return message.substring(0, keep) + " ... (" + (message.length() - keep) + " more characters cut)";
    }
}
