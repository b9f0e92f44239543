package io.falcon.fleetsim.kube;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Failure knobs of one simulated Kubernetes API server; thread-safe, settable at runtime. The next Job creations
 * can be answered with an error Status instead of being stored (an admission webhook that denies, RBAC, an
 * overloaded API server), like the real API server would.
 */
public final class ApiKnobs {

    /** What the next {@code remaining} Job creations are answered with. */
    record Rejection(int remaining, int code, String reason, String message) {}

    private final AtomicReference<Rejection> jobCreates = new AtomicReference<>();
    private volatile java.time.Duration podExitTime = java.time.Duration.ZERO;
    private final java.util.concurrent.atomic.AtomicInteger jobStatusWriteFailures =
            new java.util.concurrent.atomic.AtomicInteger();

    /**
     * The next {@code n} writes of a Job's status by the simulated Job controller fail (an API server that did not
     * answer in time); like the real controller, it writes the status again at its next reconcile.
     */
    public ApiKnobs failNextJobStatusWrites(int n) {
        jobStatusWriteFailures.set(Math.max(0, n));
        return this;
    }

    /** Whether this status write is to fail (counting it). */
    boolean takeJobStatusWriteFailure() {
        return jobStatusWriteFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }

    /**
     * How long a running pod's workload takes to exit after SIGTERM when the pod is deleted (by the Job's deletion's
     * garbage collection, or anyone's): the pod stays, with its deletionTimestamp set and its node's chips held,
     * until then or until its {@code terminationGracePeriodSeconds} (30 s by default) is over, when the kubelet kills
     * it; then it is gone. Zero (the default): the sim's workloads exit at once, and the pod goes with its Job.
     */
    public ApiKnobs podExitTime(java.time.Duration time) {
        podExitTime = time;
        return this;
    }

    /** The current {@link #podExitTime}. */
    public java.time.Duration podExitTime() {
        return podExitTime;
    }

    /**
     * The next {@code n} POSTs of batch/v1 Jobs answer {@code code} with a Status of that reason and message, e.g.
     * {@code 403, "Forbidden", "admission webhook \"x\" denied the request: ..."} or
     * {@code 503, "ServiceUnavailable", "the server is currently unable to handle the request"}.
     */
    public ApiKnobs rejectNextJobCreations(int n, int code, String reason, String message) {
        jobCreates.set(n <= 0 ? null : new Rejection(n, code, reason, message));
        return this;
    }

    /** Takes one pending rejection, if any. */
    Rejection takeJobCreateRejection() {
        Rejection[] taken = {null};
        jobCreates.getAndUpdate(r -> {
            if (r == null) {
                taken[0] = null;
                return null;
            }
            taken[0] = r;
            return r.remaining() <= 1 ? null : new Rejection(r.remaining() - 1, r.code(), r.reason(), r.message());
        });
        return taken[0];
    }
}
