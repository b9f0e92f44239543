package io.falcon.events.executor;

import java.util.Optional;

/**
 * What ended a Kubernetes Job, as the executor read it from the Job and its pods: the fleet's doing (a node lost or
 * shut down, a pod preempted or evicted, the Job deleted under the task) or the program's (a non-zero exit, OOMKilled,
 * an image or configuration it names that cannot be used). Only the first may ever be retried: a program that failed
 * fails again.
 *
 * @param kind whose doing it was
 * @param signal what said so, for people: "DisruptionTarget: PreemptionByScheduler", "Evicted", "exit code 1",
 *     "OOMKilled", "JobGone"
 * @param exitCode the failed container's exit code, when one ended the Job
 */
public record FailureCause(Kind kind, String signal, Optional<Integer> exitCode) {

    public enum Kind {
        /** The program: a non-zero exit, OOMKilled, an image or configuration it names, its Job's own limits. */
        APPLICATION,
        /** The fleet: the pods' nodes or the Job itself went away under the task. */
        INFRASTRUCTURE,
        /** Not said (a report of an executor from before causes were reported): treated as the program's. */
        UNKNOWN
    }

    /** For reports written before causes existed. */
    public static final FailureCause UNKNOWN = new FailureCause(Kind.UNKNOWN, "", Optional.empty());

    public FailureCause {
        kind = kind == null ? Kind.UNKNOWN : kind;
        signal = signal == null ? "" : signal;
        exitCode = exitCode == null ? Optional.empty() : exitCode;
    }

    public static FailureCause application(String signal) {
        return new FailureCause(Kind.APPLICATION, signal, Optional.empty());
    }

    public static FailureCause exited(String signal, int exitCode) {
        return new FailureCause(Kind.APPLICATION, signal, Optional.of(exitCode));
    }

    public static FailureCause infrastructure(String signal) {
        return new FailureCause(Kind.INFRASTRUCTURE, signal, Optional.empty());
    }

    public boolean infrastructure() {
        return kind == Kind.INFRASTRUCTURE;
    }
}
