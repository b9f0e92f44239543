package io.falcon.scheduler.core;

import java.time.Duration;

/**
 * The scheduler's timing policy.
 *
 * @param reservationRetry how long a job short of reservation capacity waits before asking again
 * @param provisioningBackstop a pool creation with no word from the executor for this long fails NodePoolTimeout
 *     (the executor's own timeout normally fires first)
 * @param abortRetry how often an unconfirmed Kubernetes Job deletion is asked again
 * @param orphanGrace how long an unknown falcon-* pool may exist before it is deleted as an orphan (covers the
 *     flex-start create-visibility delay)
 * @param positionUpdates how many waiting jobs per queue get their exact position refreshed on every change
 */
public record SchedulerSettings(Duration reservationRetry, Duration provisioningBackstop, Duration abortRetry,
        Duration orphanGrace, int positionUpdates) {

    public static SchedulerSettings defaults() {
        return new SchedulerSettings(Duration.ofSeconds(30), Duration.ofMinutes(15), Duration.ofSeconds(60),
                Duration.ofMinutes(10), 100);
    }
}
