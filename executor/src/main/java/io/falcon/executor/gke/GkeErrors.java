package io.falcon.executor.gke;

import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import io.grpc.StatusRuntimeException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Classifies and describes GKE and Compute API errors. Transient errors are retried with backoff; permanent ones
 * are reported at once (NodePoolFailed with the API's message).
 */
public final class GkeErrors {
    /** Codes that mean "ask again later": the service, not the request, is the problem. */
    private static final Set<StatusCode.Code> TRANSIENT = Set.of(
            StatusCode.Code.UNAVAILABLE,
            StatusCode.Code.DEADLINE_EXCEEDED,
            StatusCode.Code.INTERNAL,
            StatusCode.Code.ABORTED,
            StatusCode.Code.UNKNOWN);
    /** RESOURCE_EXHAUSTED is a rate limit (retry) when it talks about request rates, else a quota/capacity error. */
    private static final Pattern RATE_LIMIT = Pattern.compile(
            "rate ?limit|too many requests|per (second|minute|100 seconds)|requests per", Pattern.CASE_INSENSITIVE);
    /** FAILED_PRECONDITION is GKE's answer while another operation runs on the cluster or pool. */
    private static final Pattern OPERATION_IN_PROGRESS = Pattern.compile(
            "incompatible operation|operation .* (is )?(in progress|currently)|currently (being|running)"
                    + "|being (deleted|created|updated)|try again",
            Pattern.CASE_INSENSITIVE);

    private GkeErrors() {}

    public static StatusCode.Code code(Throwable e) {
        ApiException api = apiException(e);
        return api == null ? StatusCode.Code.UNKNOWN : api.getStatusCode().getCode();
    }

    public static boolean is(Throwable e, StatusCode.Code code) {
        return apiException(e) != null && code(e) == code;
    }

    /** Worth retrying. An exception that is not an API answer at all (no connection) is transient. */
    public static boolean isTransient(Throwable e) {
        return apiException(e) == null || isTransient(code(e), describe(e));
    }

    /** The classification itself (pure). */
    public static boolean isTransient(StatusCode.Code code, String message) {
        String text = message == null ? "" : message.toLowerCase(Locale.ROOT);
        return switch (code) {
            case RESOURCE_EXHAUSTED -> RATE_LIMIT.matcher(text).find();
            case FAILED_PRECONDITION -> OPERATION_IN_PROGRESS.matcher(text).find();
            default -> TRANSIENT.contains(code);
        };
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
