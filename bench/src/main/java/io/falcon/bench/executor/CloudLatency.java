package io.falcon.bench.executor;

import io.falcon.executor.core.ApiException;
import java.time.Duration;
import java.util.Objects;

/**
 * What one GKE / Compute call and one Kubernetes request cost the executor in wall time. The fakes spend it asleep, so
 * that the time is the API's and the CPU stays the executor's own.
 */
record CloudLatency(Duration gkeCall, Duration kubernetesRequest) {
    static final CloudLatency NONE = new CloudLatency(Duration.ZERO, Duration.ZERO);

    CloudLatency {
        Objects.requireNonNull(gkeCall, "gkeCall");
        Objects.requireNonNull(kubernetesRequest, "kubernetesRequest");
    }

    void awaitGkeCall() {
        sleep(gkeCall);
    }

    void awaitKubernetesRequests(int requests) {
        sleep(kubernetesRequest.multipliedBy(requests));
    }

    private static void sleep(Duration latency) {
        if (latency.isZero()) {
            return;
        }
        try {
            Thread.sleep(latency.toMillis(), latency.toNanosPart() % 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // an interrupted call got no answer: what the real clients report as an outage
            throw new ApiException(ApiException.Kind.TRANSIENT, "interrupted while waiting for the API", e);
        }
    }
}
