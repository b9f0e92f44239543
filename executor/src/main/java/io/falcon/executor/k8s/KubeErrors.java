package io.falcon.executor.k8s;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** Classifies Kubernetes API errors: no answer, 408, 429 and 5xx are transient; any other 4xx is a refusal. */
public final class KubeErrors {
    private KubeErrors() {}

    /**
     * The classification of an HTTP status (pure); 0 or below means no answer at all (fabric8 gives -1 to a request
     * that got none: connection refused or reset, a timeout).
     */
    public static boolean isTransient(int httpStatus) {
        return httpStatus <= 0 || httpStatus == 408 || httpStatus == 429 || httpStatus >= 500;
    }

    public static boolean isTransient(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof KubernetesClientException k) {
                return isTransient(k.getCode());
            }
        }
        return true; // no answer (connection refused, timeout) or GKE getCluster unavailable
    }
}
