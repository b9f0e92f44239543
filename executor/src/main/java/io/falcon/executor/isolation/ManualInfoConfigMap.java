package io.falcon.executor.isolation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.falcon.events.Json;
import io.falcon.events.fault.NodeIsolation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Pure reading and writing of clusterd-manual-info-cm: one data key per node holding the RFC's JSON, plus an
 * annotation recording which devices Falcon last wrote per node. A device in the annotation but no longer in the
 * node's Total was removed by an operator: that is a release. Keeping this in the ConfigMap itself makes the
 * detection survive executor restarts.
 */
public final class ManualInfoConfigMap {
    public static final String NAME = "clusterd-manual-info-cm";
    public static final String NAMESPACE = "cluster-system";
    public static final String WRITTEN_ANNOTATION = "falcon.io/isolated-devices";

    private static final TypeReference<Map<String, List<String>>> WRITTEN = new TypeReference<>() {
    };

    private ManualInfoConfigMap() {
    }

    /** node -> devices Falcon wrote last (empty when the annotation is missing or unreadable). */
    public static Map<String, Set<String>> written(ConfigMap cm) {
        String raw = Optional.ofNullable(cm.getMetadata().getAnnotations()).map(a -> a.get(WRITTEN_ANNOTATION))
                .orElse("");
        if (raw.isBlank()) {
            return Map.of();
        }
        try {
            Map<String, Set<String>> result = new TreeMap<>();
            Json.mapper().readValue(raw, WRITTEN).forEach((node, devices) -> result.put(node, new TreeSet<>(devices)));
            return result;
        } catch (JsonProcessingException e) {
            return Map.of();
        }
    }

    /** The devices listed in the node's Total; empty when the node has no key; absent when the value is garbage. */
    public static Optional<Set<String>> listed(ConfigMap cm, String node) {
        String raw = Optional.ofNullable(cm.getData()).map(d -> d.get(node)).orElse(null);
        if (raw == null || raw.isBlank()) {
            return Optional.of(Set.of());
        }
        try {
            return Optional.of(new TreeSet<>(Json.mapper().readValue(raw, NodeIsolation.class).total()));
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    /** node -> devices Falcon wrote that an operator has removed since. Unreadable node values release nothing. */
    public static Map<String, Set<String>> removedByOperator(ConfigMap cm) {
        Map<String, Set<String>> removed = new TreeMap<>();
        written(cm).forEach((node, devices) -> listed(cm, node).ifPresent(listed -> {
            Set<String> gone = new TreeSet<>(devices);
            gone.removeAll(listed);
            if (!gone.isEmpty()) {
                removed.put(node, gone);
            }
        }));
        return removed;
    }

    /** Sets (or, for an empty state, removes) the node's key and records what was written in the annotation. */
    public static void put(ConfigMap cm, String node, Optional<NodeIsolation> state) {
        Map<String, String> data = new TreeMap<>(Optional.ofNullable(cm.getData()).orElse(Map.of()));
        Map<String, Set<String>> written = new TreeMap<>(written(cm));
        if (state.isEmpty() || state.get().total().isEmpty()) {
            data.remove(node);
            written.remove(node);
        } else {
            data.put(node, json(state.get()));
            written.put(node, new TreeSet<>(state.get().total()));
        }
        cm.setData(data);
        setWritten(cm, written);
    }

    /** Forgets devices in the annotation (after their release was published), so they are released once. */
    public static void forget(ConfigMap cm, Map<String, Set<String>> released) {
        Map<String, Set<String>> written = new TreeMap<>(written(cm));
        released.forEach((node, devices) -> {
            Set<String> left = new TreeSet<>(written.getOrDefault(node, Set.of()));
            left.removeAll(devices);
            if (left.isEmpty()) {
                written.remove(node);
            } else {
                written.put(node, left);
            }
        });
        setWritten(cm, written);
    }

    private static void setWritten(ConfigMap cm, Map<String, Set<String>> written) {
        Map<String, String> annotations = new LinkedHashMap<>(
                Optional.ofNullable(cm.getMetadata().getAnnotations()).orElse(Map.of()));
        try {
            annotations.put(WRITTEN_ANNOTATION, Json.mapper().writeValueAsString(written));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        cm.getMetadata().setAnnotations(annotations);
    }

    /** The RFC's exact JSON of one node. */
    public static String json(NodeIsolation state) {
        try {
            return Json.mapper().writeValueAsString(state);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
