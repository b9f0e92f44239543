package io.falcon.faults.core;

import io.falcon.events.fault.NodeIsolation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The isolated devices of one node (the RFC's NodeCmInfo) plus, per device, the time of its latest fault, which
 * auto-release needs and the ConfigMap does not show. Immutable: operations return the next state.
 */
public record NodeIsolationState(String clusterId, String nodeName, Map<String, IsolatedDevice> devices) {

    public NodeIsolationState {
        // most nodes have no isolated device: the empty state is looked up for every counted fault, so it shares
        // the immutable empty map instead of copying into a TreeMap
        devices = devices.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(devices));
    }

    /** One isolated device: the codes that isolated it and when it last faulted (ms). */
    public record IsolatedDevice(List<NodeIsolation.DeviceIsolation> codes, long lastFaultMs) {
        public IsolatedDevice {
            codes = List.copyOf(codes);
        }

        public long lastSeparateTimeMs() {
            return codes.stream()
                    .mapToLong(NodeIsolation.DeviceIsolation::lastSeparateTime)
                    .max()
                    .orElse(0);
        }
    }

    public static NodeIsolationState empty(String clusterId, String nodeName) {
        return new NodeIsolationState(clusterId, nodeName, Map.of());
    }

    public String key() {
        return NodeIsolation.key(clusterId, nodeName);
    }

    public boolean isEmpty() {
        return devices.isEmpty();
    }

    public boolean isIsolated(String device) {
        return devices.containsKey(device);
    }

    public Optional<IsolatedDevice> device(String device) {
        return Optional.ofNullable(devices.get(device));
    }

    /**
     * Why isolating the device for the code would take this state past its {@link StateBounds} (a device more than
     * {@link StateBounds#MAX_ISOLATED_DEVICES_PER_NODE}, a code more than {@link StateBounds#MAX_CODES_PER_DEVICE}),
     * or empty when it fits. A re-isolation for a code the device is isolated for always fits.
     */
    public Optional<String> isolationProblem(String device, String code) {
        IsolatedDevice current = devices.get(device);
        if (current == null) {
            return devices.size() < StateBounds.MAX_ISOLATED_DEVICES_PER_NODE
                    ? Optional.empty()
                    : Optional.of("node " + nodeName + " already has " + devices.size() + " isolated devices, the most"
                            + " fault-streams keeps per node (" + StateBounds.MAX_ISOLATED_DEVICES_PER_NODE + ")");
        }
        for (NodeIsolation.DeviceIsolation isolation : current.codes()) {
            if (isolation.faultCode().equals(code)) {
                return Optional.empty();
            }
        }
        return current.codes().size() < StateBounds.MAX_CODES_PER_DEVICE
                ? Optional.empty()
                : Optional.of("device " + nodeName + "/" + device + " is already isolated for "
                        + current.codes().size() + " fault codes, the most fault-streams keeps per device ("
                        + StateBounds.MAX_CODES_PER_DEVICE + ")");
    }

    /** Isolates (or re-isolates: LastSeparateTime refreshed) the device for the code at separateTimeMs. */
    public NodeIsolationState isolate(String device, String code, long separateTimeMs) {
        Map<String, IsolatedDevice> next = new TreeMap<>(devices);
        IsolatedDevice current = devices.get(device);
        List<NodeIsolation.DeviceIsolation> codes = new ArrayList<>();
        if (current != null) {
            current.codes().stream().filter(c -> !c.faultCode().equals(code)).forEach(codes::add);
        }
        codes.add(new NodeIsolation.DeviceIsolation(code, NodeIsolation.MANUALLY_SEPARATE_NPU, separateTimeMs));
        codes.sort(java.util.Comparator.comparing(NodeIsolation.DeviceIsolation::faultCode));
        long lastFault = Math.max(separateTimeMs, current == null ? 0 : current.lastFaultMs());
        next.put(device, new IsolatedDevice(codes, lastFault));
        return new NodeIsolationState(clusterId, nodeName, next);
    }

    /**
     * Takes in a device isolated before this state knew it (read from the cluster's ConfigMap) with the codes listed
     * there; lastFaultMs is where its fault-free time counts from.
     */
    public NodeIsolationState adopt(String device, List<NodeIsolation.DeviceIsolation> codes, long lastFaultMs) {
        Map<String, IsolatedDevice> next = new TreeMap<>(devices);
        List<NodeIsolation.DeviceIsolation> sorted = new ArrayList<>(codes);
        sorted.sort(java.util.Comparator.comparing(NodeIsolation.DeviceIsolation::faultCode));
        next.put(device, new IsolatedDevice(sorted, lastFaultMs));
        return new NodeIsolationState(clusterId, nodeName, next);
    }

    /** Notes a fault of an isolated device, which postpones its auto-release. */
    public NodeIsolationState faultSeen(String device, long faultTimeMs) {
        IsolatedDevice current = devices.get(device);
        if (current == null || current.lastFaultMs() >= faultTimeMs) {
            return this;
        }
        Map<String, IsolatedDevice> next = new TreeMap<>(devices);
        next.put(device, new IsolatedDevice(current.codes(), faultTimeMs));
        return new NodeIsolationState(clusterId, nodeName, next);
    }

    public NodeIsolationState release(String device) {
        Map<String, IsolatedDevice> next = new TreeMap<>(devices);
        next.remove(device);
        return new NodeIsolationState(clusterId, nodeName, next);
    }

    /** Devices without a fault for faultFreeMs at nowMs. */
    public List<String> faultFreeDevices(long nowMs, long faultFreeMs) {
        return devices.entrySet().stream()
                .filter(e -> nowMs
                                - Math.max(
                                        e.getValue().lastFaultMs(), e.getValue().lastSeparateTimeMs())
                        >= faultFreeMs)
                .map(Map.Entry::getKey)
                .toList();
    }

    /** The RFC's ConfigMap value for this node. */
    public NodeIsolation toWire() {
        Map<String, List<NodeIsolation.DeviceIsolation>> detail = new TreeMap<>();
        devices.forEach((device, isolated) -> detail.put(device, isolated.codes()));
        return new NodeIsolation(List.copyOf(detail.keySet()), detail);
    }
}
