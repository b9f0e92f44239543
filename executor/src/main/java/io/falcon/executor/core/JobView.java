package io.falcon.executor.core;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the status decisions need of a Kubernetes Job, in plain Java (the fabric8 informers convert to it; the
 * simulation builds it directly).
 *
 * @param parallelism the Job's parallelism (expected pods when the falcon.io/expected-pods annotation is absent)
 * @param nodePool the node pool its pods select (the pod template's cloud.google.com/gke-nodepool node selector)
 */
public record JobView(
        String name,
        String uid,
        Map<String, String> annotations,
        Map<String, String> labels,
        Optional<Instant> createdAt,
        boolean deleting,
        List<Condition> conditions,
        int parallelism,
        Optional<String> nodePool) {

    public JobView {
        annotations = Map.copyOf(annotations);
        labels = Map.copyOf(labels);
        conditions = List.copyOf(conditions);
    }

    /** A Job condition; empty strings where Kubernetes gave none. */
    public record Condition(String type, String status, String reason, String message) {
        public boolean isTrue(String conditionType) {
            return conditionType.equals(type) && "True".equals(status);
        }
    }

    public boolean finished() {
        return conditions.stream().anyMatch(c -> c.isTrue("Complete") || c.isTrue("Failed"));
    }
}
