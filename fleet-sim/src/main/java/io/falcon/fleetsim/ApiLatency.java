package io.falcon.fleetsim;

import java.time.Duration;

/**
 * How long fleet-sim's APIs take to answer, as the real ones do over the network (GKE's control plane a few hundred
 * milliseconds, an edge cluster's Kubernetes API tens): a load harness sets them to measure Falcon at real latencies
 * instead of a loopback's. Zero (the default) answers at once. Watches are not delayed; their events flow as they
 * happen. Settable at runtime, for calls started afterwards.
 */
public final class ApiLatency {
    private volatile Duration gke = Duration.ZERO;
    private volatile Duration compute = Duration.ZERO;
    private volatile Duration kubernetes = Duration.ZERO;

    /** Every GKE ClusterManager call (and, as GKE's sibling, every Compute REST call) takes this long. */
    public ApiLatency gke(Duration latency) {
        this.gke = latency;
        this.compute = latency;
        return this;
    }

    /** Every edge Kubernetes API request but a watch, from a caller outside fleet-sim, takes this long. */
    public ApiLatency kubernetes(Duration latency) {
        this.kubernetes = latency;
        return this;
    }

    public Duration gke() {
        return gke;
    }

    public Duration compute() {
        return compute;
    }

    public Duration kubernetes() {
        return kubernetes;
    }

    /** Waits a call's latency on the serving thread (gRPC and the Compute sim serve each call on a pooled thread). */
    public static void pause(Duration latency) {
        if (latency.isZero() || latency.isNegative()) {
            return;
        }
        try {
            Thread.sleep(latency.toMillis(), (int) (latency.toNanos() % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
