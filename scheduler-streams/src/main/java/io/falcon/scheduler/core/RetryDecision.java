package io.falcon.scheduler.core;

import io.falcon.events.executor.FailureCause;

/**
 * Whether an attempt that just failed runs again (pure): only what the fleet did to it (the executor's {@link
 * FailureCause}, or an exit code the job's spec.retry names as the fleet's), only while the job has retries left,
 * and only while retries are switched on. Each answer says why, for the ledger and for people.
 */
public sealed interface RetryDecision {

    /** Run it again: the attempt after {@code retriesDone} retries. */
    record Retry(int retriesDone, int maxRetries, String why) implements RetryDecision {
        @Override
        public String outcome() {
            return "retried";
        }
    }

    /** End it as the failure says; outcome: program, no-retries, off or spent (the metric's label). */
    record End(String why, String outcome) implements RetryDecision {}

    /** What came of the failure, for the metric: retried, or why not. */
    String outcome();

    /**
     * GKE's refusals that asking again does not change (Falcon's or the cluster's configuration: a permission, an
     * invalid request, a cluster that does not exist), by the status code the executor's message starts with; any
     * other failure or timeout of a pool's creation (capacity, a stockout, quota, GKE's own errors) is the fleet's.
     */
    static FailureCause ofPool(io.falcon.events.status.Reason reason, String executorMessage) {
        for (String code : java.util.List.of("PERMISSION_DENIED", "INVALID_ARGUMENT", "UNAUTHENTICATED", "NOT_FOUND")) {
            if (executorMessage.startsWith(code)) {
                return FailureCause.application(code);
            }
        }
        return FailureCause.infrastructure(reason.name());
    }

    /** Whether the failure is the program's own, which is never retried (an exit code spec.retry names is not). */
    static boolean ofProgram(ScheduledJob job, FailureCause cause) {
        return !cause.infrastructure()
                && cause.exitCode()
                        .filter(code -> job.request().retry().onExitCodes().contains(code))
                        .isEmpty();
    }

    static RetryDecision of(ScheduledJob job, FailureCause cause, SchedulerSettings.Retries settings) {
        return of(job, cause, settings, 0);
    }

    /** As above, with how many attempts ended on the job's cluster ran again within the last hour. */
    static RetryDecision of(
            ScheduledJob job, FailureCause cause, SchedulerSettings.Retries settings, int clusterRetriesLastHour) {
        return of(job, cause, settings, clusterRetriesLastHour, java.util.Optional.empty());
    }

    /**
     * As above, with the operator's switch ({@code falcon retries off|on}), which wins over the setting while it is
     * there.
     */
    static RetryDecision of(
            ScheduledJob job,
            FailureCause cause,
            SchedulerSettings.Retries settings,
            int clusterRetriesLastHour,
            java.util.Optional<io.falcon.events.control.RetrySwitch> switched) {
        int allowed = job.request().retry().retries(settings);
        boolean fleets = cause.infrastructure();
        boolean optedIn = !fleets
                && cause.exitCode()
                        .filter(code -> job.request().retry().onExitCodes().contains(code))
                        .isPresent();
        String what = cause.signal().isEmpty() ? "" : " (" + cause.signal() + ")";
        if (!fleets && !optedIn) {
            return new End("not retried: the program's failure" + what + ", which would fail again", "program");
        }
        if (allowed == 0) {
            return new End(
                    "not retried: the fleet's doing" + what + ", but the job has no retries"
                            + " (spec.retry.max_retries, falcon.scheduler.retry.max-retries)",
                    "no-retries");
        }
        if (switched.isPresent() && !switched.get().enabled()) {
            return new End("not retried: retries are " + switched.get().told(), "off");
        }
        if (switched.isEmpty() && !settings.enabled()) {
            return new End("not retried: retries are switched off (falcon.scheduler.retry.enabled)", "off");
        }
        if (settings.perClusterPerHour() > 0 && clusterRetriesLastHour >= settings.perClusterPerHour()) {
            return new End(
                    "not retried: cluster " + job.clusterId().orElse("") + " ran " + clusterRetriesLastHour
                            + " failed attempts again within the hour, its budget"
                            + " (falcon.scheduler.retry.per-cluster-per-hour)",
                    "cluster-budget");
        }
        if (job.retries() >= allowed) {
            return new End(
                    "not retried: its " + allowed + " retr" + (allowed == 1 ? "y is" : "ies are") + " spent", "spent");
        }
        String whose = optedIn
                ? "exit code " + cause.exitCode().orElseThrow() + ", named in spec.retry.on_exit_codes"
                : "the fleet's doing" + what;
        return new Retry(job.retries(), allowed, whose);
    }
}
