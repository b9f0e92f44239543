package io.falcon.executor.isolation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.falcon.events.Json;
import io.falcon.events.fault.NodeIsolation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
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
    public static final String PREEXISTING_ANNOTATION = "falcon.io/preexisting-devices";

    private static final TypeReference<Map<String, List<String>>> WRITTEN = new TypeReference<>() {};

    private ManualInfoConfigMap() {}

    /** node -> devices Falcon wrote last (empty when the annotation is missing or unreadable). */
    public static Map<String, Set<String>> written(ConfigMap cm) {
        return annotation(cm, WRITTEN_ANNOTATION);
    }

    private static Map<String, Set<String>> annotation(ConfigMap cm, String name) {
        String raw = Optional.ofNullable(cm.getMetadata().getAnnotations())
                .map(a -> a.get(name))
                .orElse("");
        if (raw.isBlank()) {
            return Map.of();
        }
        try {
            // Anyone who can edit the ConfigMap can edit the annotation: JSON null, null lists and null devices
            // count as nothing written rather than failing every later write to the cluster's ConfigMap.
            Map<String, Set<String>> result = new TreeMap<>();
            Map<String, List<String>> read = Json.mapper().readValue(raw, WRITTEN);
            if (read == null) {
                return Map.of();
            }
            read.forEach((node, devices) -> {
                if (node != null && devices != null) {
                    Set<String> named = new TreeSet<>();
                    devices.stream().filter(java.util.Objects::nonNull).forEach(named::add);
                    result.put(node, named);
                }
            });
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
            // "null" reads as no value at all: garbage, like any other text that is not the RFC's object
            return Optional.ofNullable(Json.mapper().readValue(raw, NodeIsolation.class))
                    .map(isolation -> new TreeSet<>(isolation.total()));
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    /**
     * The devices a ConfigMap lists, by who listed them. byOthers: per node, the devices Falcon did not write (an
     * operator's or another tool's), and those that were listed before Falcon isolated them too (its release leaves
     * them listed). byFalcon: per node, the devices Falcon wrote (annotation {@link #WRITTEN_ANNOTATION}) with their
     * Detail. A device of both kinds is in both. Nodes without such devices and unreadable node values are left out.
     */
    public record Listing(Map<String, List<String>> byOthers, Map<String, NodeIsolation> byFalcon) {
        public Listing {
            byOthers = java.util.Collections.unmodifiableMap(new TreeMap<>(byOthers));
            byFalcon = java.util.Collections.unmodifiableMap(new TreeMap<>(byFalcon));
        }

        public static final Listing EMPTY = new Listing(Map.of(), Map.of());
    }

    public static Listing listing(ConfigMap cm) {
        Map<String, Set<String>> written = written(cm);
        Map<String, Set<String>> preexisting = preexisting(cm);
        Map<String, List<String>> byOthers = new TreeMap<>();
        Map<String, NodeIsolation> byFalcon = new TreeMap<>();
        Optional.ofNullable(cm.getData())
                .orElse(Map.of())
                .forEach((node, raw) -> parse(raw).ifPresent(value -> {
                    Set<String> falcons = written.getOrDefault(node, Set.of());
                    Set<String> listedBefore = preexisting.getOrDefault(node, Set.of());
                    List<String> others = new ArrayList<>();
                    List<String> own = new ArrayList<>();
                    Map<String, List<NodeIsolation.DeviceIsolation>> detail = new TreeMap<>();
                    for (String device : new TreeSet<>(value.total())) {
                        if (!falcons.contains(device) || listedBefore.contains(device)) {
                            others.add(device);
                        }
                        if (falcons.contains(device)) {
                            own.add(device);
                            List<NodeIsolation.DeviceIsolation> entries =
                                    value.detail().get(device);
                            if (entries != null) {
                                detail.put(device, entries);
                            }
                        }
                    }
                    if (!others.isEmpty()) {
                        byOthers.put(node, List.copyOf(others));
                    }
                    if (!own.isEmpty()) {
                        byFalcon.put(node, new NodeIsolation(own, detail));
                    }
                }));
        return new Listing(byOthers, byFalcon);
    }

    /** node -> devices Falcon wrote that an operator has removed since. Unreadable node values release nothing. */
    public static Map<String, Set<String>> removedByOperator(ConfigMap cm) {
        Map<String, Set<String>> removed = new TreeMap<>();
        written(cm)
                .forEach((node, devices) -> listed(cm, node).ifPresent(listed -> {
                    Set<String> gone = new TreeSet<>(devices);
                    gone.removeAll(listed);
                    if (!gone.isEmpty()) {
                        removed.put(node, gone);
                    }
                }));
        return removed;
    }

    /**
     * Merges Falcon's state of the node into what the ConfigMap holds now (read just before, on every write):
     * devices an operator or another tool listed are kept as they are, Falcon's devices are set to its state, and
     * of the devices Falcon listed before only those it added itself are removed. A device that was already listed
     * when Falcon isolated it is recorded in {@link #PREEXISTING_ANNOTATION}, so Falcon's release leaves it listed.
     * Both annotations record what was written. A node value that is not the RFC's JSON cannot be merged and is
     * replaced (there is nothing readable to keep).
     */
    public static void put(ConfigMap cm, String node, Optional<NodeIsolation> state) {
        Map<String, String> data =
                new TreeMap<>(Optional.ofNullable(cm.getData()).orElse(Map.of()));
        Map<String, Set<String>> written = new TreeMap<>(written(cm));
        Map<String, Set<String>> preexisting = new TreeMap<>(preexisting(cm));
        NodeIsolation current = parse(data.get(node)).orElse(new NodeIsolation(List.of(), Map.of()));
        NodeIsolation desired = state.orElse(new NodeIsolation(List.of(), Map.of()));
        Set<String> owned = written.getOrDefault(node, Set.of());
        Set<String> ownedBeforeFalcon = preexisting.getOrDefault(node, Set.of());
        Set<String> wanted = new TreeSet<>(desired.total());

        Set<String> total = new LinkedHashSet<>();
        Map<String, List<NodeIsolation.DeviceIsolation>> detail = new TreeMap<>();
        Set<String> nextPreexisting = new TreeSet<>();
        for (String device : current.total()) {
            boolean falcons = owned.contains(device);
            boolean keptAfterRelease = ownedBeforeFalcon.contains(device);
            if (wanted.contains(device)) {
                total.add(device);
                if (!falcons || keptAfterRelease) {
                    nextPreexisting.add(device);
                }
            } else if (!falcons || keptAfterRelease) {
                total.add(device);
                List<NodeIsolation.DeviceIsolation> entries = current.detail().get(device);
                if (entries != null) {
                    detail.put(device, entries);
                }
            }
        }
        for (String device : wanted) {
            total.add(device);
            List<NodeIsolation.DeviceIsolation> falconEntries = desired.detail().getOrDefault(device, List.of());
            Set<String> falconCodes = new TreeSet<>();
            falconEntries.forEach(e -> falconCodes.add(e.faultCode()));
            List<NodeIsolation.DeviceIsolation> merged = new ArrayList<>();
            if (nextPreexisting.contains(device)) {
                // codes another tool recorded for the device stay next to Falcon's
                current.detail().getOrDefault(device, List.of()).stream()
                        .filter(e -> !falconCodes.contains(e.faultCode()))
                        .forEach(merged::add);
            }
            merged.addAll(falconEntries);
            if (!merged.isEmpty()) {
                detail.put(device, merged);
            }
        }
        current.detail().forEach((device, entries) -> {
            if (!total.contains(device) && !owned.contains(device)) {
                detail.put(device, entries); // a Detail entry another tool keeps without listing it
            }
        });

        if (total.isEmpty() && detail.isEmpty()) {
            data.remove(node);
        } else {
            data.put(node, json(new NodeIsolation(List.copyOf(total), detail)));
        }
        putOrRemove(written, node, wanted);
        putOrRemove(preexisting, node, nextPreexisting);
        cm.setData(data);
        setAnnotation(cm, WRITTEN_ANNOTATION, written);
        setAnnotation(cm, PREEXISTING_ANNOTATION, preexisting);
    }

    /** node -> devices that were listed before Falcon isolated them too; Falcon's release leaves them listed. */
    public static Map<String, Set<String>> preexisting(ConfigMap cm) {
        return annotation(cm, PREEXISTING_ANNOTATION);
    }

    private static Optional<NodeIsolation> parse(String raw) {
        if (raw == null || raw.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(Json.mapper().readValue(raw, NodeIsolation.class));
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    private static void putOrRemove(Map<String, Set<String>> byNode, String node, Set<String> devices) {
        if (devices.isEmpty()) {
            byNode.remove(node);
        } else {
            byNode.put(node, new TreeSet<>(devices));
        }
    }

    /** Forgets devices in the annotation (after their release was published), so they are released once. */
    public static void forget(ConfigMap cm, Map<String, Set<String>> released) {
        Map<String, Set<String>> written = new TreeMap<>(written(cm));
        Map<String, Set<String>> preexisting = new TreeMap<>(preexisting(cm));
        released.forEach((node, devices) -> {
            Set<String> left = new TreeSet<>(written.getOrDefault(node, Set.of()));
            left.removeAll(devices);
            putOrRemove(written, node, left);
            Set<String> leftBefore = new TreeSet<>(preexisting.getOrDefault(node, Set.of()));
            leftBefore.removeAll(devices);
            putOrRemove(preexisting, node, leftBefore);
        });
        setAnnotation(cm, WRITTEN_ANNOTATION, written);
        setAnnotation(cm, PREEXISTING_ANNOTATION, preexisting);
    }

    private static void setAnnotation(ConfigMap cm, String name, Map<String, Set<String>> byNode) {
        Map<String, String> annotations = new LinkedHashMap<>(
                Optional.ofNullable(cm.getMetadata().getAnnotations()).orElse(Map.of()));
        if (byNode.isEmpty() && name.equals(PREEXISTING_ANNOTATION)) {
            // only written when there is something to remember, so a ConfigMap without such devices looks as before
            annotations.remove(name);
            cm.getMetadata().setAnnotations(annotations);
            return;
        }
        try {
            annotations.put(name, Json.mapper().writeValueAsString(byNode));
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
