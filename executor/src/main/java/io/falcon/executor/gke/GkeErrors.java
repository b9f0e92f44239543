package io.falcon.executor.gke;

import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import io.grpc.StatusRuntimeException;
import java.util.Set;

/** Classifies and describes GKE API errors. */
public final class GkeErrors {
    private static final Set<StatusCode.Code> TRANSIENT = Set.of(StatusCode.Code.UNAVAILABLE,
            StatusCode.Code.DEADLINE_EXCEEDED, StatusCode.Code.INTERNAL, StatusCode.Code.ABORTED,
            StatusCode.Code.UNKNOWN, StatusCode.Code.FAILED_PRECONDITION, StatusCode.Code.CANCELLED);

    private GkeErrors() {
    }

    public static StatusCode.Code code(Throwable e) {
        ApiException api = apiException(e);
        return api == null ? StatusCode.Code.UNKNOWN : api.getStatusCode().getCode();
    }

    public static boolean is(Throwable e, StatusCode.Code code) {
        return apiException(e) != null && code(e) == code;
    }

    /** Worth retrying: the service is unavailable, or another operation on the cluster is in progress. */
    public static boolean isTransient(Throwable e) {
        return apiException(e) == null || TRANSIENT.contains(code(e));
    }

    /** The server's own description, without the exception class names gax wraps around it. */
    public static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StatusRuntimeException s && s.getStatus().getDescription() != null) {
                return s.getStatus().getCode() + ": " + s.getStatus().getDescription();
            }
        }
        ApiException api = apiException(e);
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return api == null ? message : api.getStatusCode().getCode() + ": " + message;
    }

    private static ApiException apiException(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ApiException a) {
                return a;
            }
        }
        return null;
    }
}
