package io.falcon.scheduler.core;

import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a job's spec says of running it again ({@code spec.retry}): how many retries, and which exit codes of its own
 * program count as the fleet's (a workload that exits with a code of its own when it finds its accelerator broken).
 * Absent: the scheduler's {@code falcon.scheduler.retry.max-retries}, and no exit code.
 *
 * @param maxRetries spec.retry.max_retries, when the spec says it
 * @param onExitCodes spec.retry.on_exit_codes: a failed container's exit codes that are retried as the fleet's doing
 */
public record RetryPolicy(Optional<Integer> maxRetries, Set<Integer> onExitCodes) {
    /** The most retries a job may ask for. */
    public static final int MAX_RETRIES = 10;
    /** The most exit codes a job may name. */
    public static final int MAX_EXIT_CODES = 16;

    /** A spec that says nothing of retries (and records stored before retries existed). */
    public static final RetryPolicy UNSTATED = new RetryPolicy(Optional.empty(), Set.of());

    public RetryPolicy {
        maxRetries = maxRetries == null ? Optional.empty() : maxRetries;
        onExitCodes =
                onExitCodes == null ? Set.of() : java.util.Collections.unmodifiableSet(new TreeSet<>(onExitCodes));
    }

    /** How many retries the job has: its own, else the scheduler's default. */
    public int retries(SchedulerSettings.Retries defaults) {
        return maxRetries.orElse(defaults.maxRetries());
    }
}
