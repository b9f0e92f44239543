package io.falcon.events.fault;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The manual-isolation state of one node in exactly the RFC's ConfigMap JSON shape
 * ({@code {"Total":[...],"Detail":{"<device>":[{"FaultCode","FaultLevel","LastSeparateTime"}]}}}). On
 * falcon.isolation it is keyed {@code cluster/node}; a tombstone means the node has no isolated device.
 */
public record NodeIsolation(
        @JsonProperty("Total") List<String> total,
        @JsonProperty("Detail") Map<String, List<DeviceIsolation>> detail) {

    public static final String MANUALLY_SEPARATE_NPU = "ManuallySeparateNPU";

    public NodeIsolation {
        total = total == null ? List.of() : List.copyOf(total);
        Map<String, List<DeviceIsolation>> sorted = new TreeMap<>();
        if (detail != null) {
            detail.forEach((device, entries) -> sorted.put(device, List.copyOf(entries)));
        }
        detail = java.util.Collections.unmodifiableMap(sorted);
    }

    /** One fault code that isolated the device; LastSeparateTime is refreshed on every re-isolation (ms). */
    public record DeviceIsolation(
            @JsonProperty("FaultCode") String faultCode,
            @JsonProperty("FaultLevel") String faultLevel,
            @JsonProperty("LastSeparateTime") long lastSeparateTime) {}

    public static String key(String clusterId, String nodeName) {
        return clusterId + "/" + nodeName;
    }

    /** Splits a {@code cluster/node} key; node names never contain '/'. */
    public static String[] splitKey(String key) {
        int slash = key.lastIndexOf('/');
        if (slash <= 0 || slash == key.length() - 1) {
            throw new IllegalArgumentException("isolation key must be cluster/node, got '" + key + "'");
        }
        return new String[] {key.substring(0, slash), key.substring(slash + 1)};
    }
}
