package io.falcon.scheduler.core;

import io.falcon.events.executor.ClusterTarget;
import java.time.Instant;

/**
 * A Kubernetes Job the scheduler wants gone (its task ended, or nothing owns it): kept, and EnsureJobDeleted
 * re-sent, until the executor confirms the deletion (JobDeleted) or a Job inventory of its cluster no longer lists it.
 */
public record JobDeletion(ClusterTarget target, String k8sJobName, String jobId, Instant requestedAt) {

    public Key key() {
        return new Key(target.clusterId(), k8sJobName);
    }

    public record Key(String clusterId, String k8sJobName) {
        public String asString() {
            return clusterId + "|" + k8sJobName;
        }

        /** The inverse of asString (Kubernetes names never contain '|'). */
        public static Key parse(String text) {
            int bar = text.lastIndexOf('|');
            return new Key(text.substring(0, bar), text.substring(bar + 1));
        }
    }
}
