package io.falcon.scheduler.core;

import io.falcon.events.executor.FailureCause;

/**
 * Whether an attempt that just failed runs again (pure): only what the fleet did to it (the executor's {@link
 * FailureCause}, or an exit code the job's spec.retry names as the fleet's), only while the job has retries left,
 * and only while retries are switched on. Each answer says why, for the ledger and for people.
 */
public sealed interface RetryDecision {

    /** Run it again: the attempt after {@code retriesDone} retries. */
    record Retry(int retriesDone, int maxRetries, String why) implements RetryDecision {}

    /** End it as the failure says. */
    record End(String why) implements RetryDecision {}

    static RetryDecision of(ScheduledJob job, FailureCause cause, SchedulerSettings.Retries settings) {
        int allowed = job.request().retry().retries(settings);
        boolean fleets = cause.infrastructure();
        boolean optedIn = !fleets
                && cause.exitCode()
                        .filter(code -> job.request().retry().onExitCodes().contains(code))
                        .isPresent();
        String what = cause.signal().isEmpty() ? "" : " (" + cause.signal() + ")";
        if (!fleets && !optedIn) {
            return new End("not retried: the program's failure" + what + ", which would fail again");
        }
        if (allowed == 0) {
            return new End("not retried: the fleet's doing" + what + ", but the job has no retries"
                    + " (spec.retry.max_retries, falcon.scheduler.retry.max-retries)");
        }
        if (!settings.enabled()) {
            return new End("not retried: retries are switched off (falcon.scheduler.retry.enabled)");
        }
        if (job.retries() >= allowed) {
            return new End("not retried: its " + allowed + " retr" + (allowed == 1 ? "y is" : "ies are") + " spent");
        }
        String whose = optedIn
                ? "exit code " + cause.exitCode().orElseThrow() + ", named in spec.retry.on_exit_codes"
                : "the fleet's doing" + what;
        return new Retry(job.retries(), allowed, whose);
    }
}
