package io.falcon.executor.gke;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.api.gax.grpc.GrpcStatusCode;
import com.google.api.gax.rpc.ApiExceptionFactory;
import com.google.api.gax.rpc.StatusCode.Code;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.falcon.executor.k8s.KubeErrors;
import io.grpc.Status;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Which GKE / Compute / Kubernetes errors are retried (transient) and which are reported at once (permanent). */
class GkeErrorsTest {

    @Test
    void outagesAreTransient() {
        for (Code code :
                new Code[] {Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED, Code.INTERNAL, Code.ABORTED, Code.UNKNOWN}) {
            assertThat(GkeErrors.isTransient(code, "whatever")).as(code.name()).isTrue();
        }
    }

    @Test
    void requestErrorsArePermanent() {
        for (Code code : new Code[] {
            Code.INVALID_ARGUMENT,
            Code.PERMISSION_DENIED,
            Code.UNAUTHENTICATED,
            Code.NOT_FOUND,
            Code.ALREADY_EXISTS,
            Code.OUT_OF_RANGE,
            Code.UNIMPLEMENTED
        }) {
            assertThat(GkeErrors.isTransient(code, "whatever")).as(code.name()).isFalse();
        }
    }

    @Test
    void resourceExhaustedIsARateLimitOrAQuota() {
        assertThat(GkeErrors.isTransient(
                        Code.RESOURCE_EXHAUSTED,
                        "Quota 'TPUS_PER_PROJECT' exceeded. Limit: 0.0 in region us-central1."))
                .isFalse();
        assertThat(GkeErrors.isTransient(
                        Code.RESOURCE_EXHAUSTED,
                        "Reservation 'projects/p/zones/z/reservations/r' does not have enough available capacity"))
                .isFalse();
        assertThat(GkeErrors.isTransient(
                        Code.RESOURCE_EXHAUSTED,
                        "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute'"))
                .isTrue();
        assertThat(GkeErrors.isTransient(Code.RESOURCE_EXHAUSTED, "Too many requests, rate limit exceeded"))
                .isTrue();
    }

    @Test
    void failedPreconditionIsTransientOnlyWhileAnotherOperationRuns() {
        assertThat(GkeErrors.isTransient(
                        Code.FAILED_PRECONDITION,
                        "Operation operation-123 is currently deleting node pool falcon-a. Please wait and try again once "
                                + "it is done."))
                .isTrue();
        assertThat(GkeErrors.isTransient(
                        Code.FAILED_PRECONDITION, "Cluster is running incompatible operation operation-456."))
                .isTrue();
        assertThat(GkeErrors.isTransient(
                        Code.FAILED_PRECONDITION,
                        "Node pools with TPU placement policy require a cluster with GKE version 1.28 or later"))
                .isFalse();
    }

    @Test
    void exceptionsAreClassifiedByTheirStatus() {
        var quota = ApiExceptionFactory.createException(
                Status.RESOURCE_EXHAUSTED
                        .withDescription("Quota 'TPUS_PER_PROJECT' exceeded.")
                        .asRuntimeException(),
                GrpcStatusCode.of(Status.Code.RESOURCE_EXHAUSTED),
                false);
        var unavailable = ApiExceptionFactory.createException(
                Status.UNAVAILABLE.asRuntimeException(), GrpcStatusCode.of(Status.Code.UNAVAILABLE), true);
        assertThat(GkeErrors.isTransient(quota)).isFalse();
        assertThat(GkeErrors.describe(quota)).isEqualTo("RESOURCE_EXHAUSTED: Quota 'TPUS_PER_PROJECT' exceeded.");
        assertThat(GkeErrors.isTransient(unavailable)).isTrue();
        assertThat(GkeErrors.isTransient(new IllegalStateException("connection refused")))
                .isTrue();
    }

    @Test
    void kubernetesStatusCodes() {
        for (int code : new int[] {0, 408, 429, 500, 502, 503, 504}) {
            assertThat(KubeErrors.isTransient(code)).as("HTTP " + code).isTrue();
        }
        for (int code : new int[] {400, 401, 403, 404, 409, 410, 422}) {
            assertThat(KubeErrors.isTransient(code)).as("HTTP " + code).isFalse();
        }
        assertThat(KubeErrors.isTransient(new KubernetesClientException("denied", 403, null)))
                .isFalse();
        assertThat(KubeErrors.isTransient(new KubernetesClientException("busy", 503, null)))
                .isTrue();
        assertThat(KubeErrors.isTransient(new RuntimeException(new IOException("connection reset"))))
                .isTrue();
        // fabric8 gives a request that got no answer at all code -1: a connection refused is no refusal
        KubernetesClientException noAnswer = new KubernetesClientException(
                "Operation: [create] for kind: [Job] failed.", new IOException("ConnectException"));
        assertThat(noAnswer.getCode()).isEqualTo(-1);
        assertThat(KubeErrors.isTransient(noAnswer)).isTrue();
        assertThat(io.falcon.executor.k8s.KubernetesEdgeApiTest.classify(noAnswer)
                        .is(io.falcon.executor.core.ApiException.Kind.TRANSIENT))
                .isTrue();
    }
}
