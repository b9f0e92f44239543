package io.falcon.executor.core;

/**
 * A GKE, Compute or Kubernetes API call that did not succeed, classified for the decision code (which never sees a
 * client library's exception types).
 */
public final class ApiException extends RuntimeException {
    /** What the caller should do about it. */
    public enum Kind {
        /** The object does not exist (success for a delete). */
        NOT_FOUND,
        /** The object exists already (success for a create). */
        ALREADY_EXISTS,
        /** Another operation runs on the object: wait and look again. */
        FAILED_PRECONDITION,
        /** No answer, 5xx, 429, rate limits: try again later. */
        TRANSIENT,
        /** A refusal that will not change by retrying (4xx, quota, invalid argument). */
        PERMANENT,
        /** Falcon's own request could not be built (invalid spec). */
        INVALID
    }

    private final Kind kind;

    public ApiException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public ApiException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    public boolean is(Kind k) {
        return kind == k;
    }
}
