package io.falcon.events.fault;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.falcon.events.Meta;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Commands to fault-streams about isolated devices, keyed by cluster id (co-partitioned with counting): releases,
 * and what the executor reads from each cluster's clusterd-manual-info-cm, so fault-streams' state knows the devices
 * already isolated there.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = IsolationCommand.Release.class, name = "Release"),
    @JsonSubTypes.Type(value = IsolationCommand.ListedByOthers.class, name = "ListedByOthers"),
    @JsonSubTypes.Type(value = IsolationCommand.ListedByFalcon.class, name = "ListedByFalcon")
})
public sealed interface IsolationCommand {
    Meta meta();

    String clusterId();

    /**
     * Release a device (all its fault codes) and clear its counters: an operator removed it from
     * clusterd-manual-info-cm, or asked for it directly. reason says which.
     */
    record Release(Meta meta, String clusterId, String nodeName, String deviceName, String reason)
            implements IsolationCommand {}

    /**
     * Every device the cluster's ConfigMap lists that Falcon did not write there (an operator's or another tool's,
     * including one that was listed before Falcon isolated it too: Falcon's release leaves it listed), by node, as
     * the executor read it. It is the whole listing of the cluster and replaces the one before: a node or device no
     * longer in it is no longer listed. fault-streams counts these devices as isolated devices of the cluster (the
     * budget; a device that reaches the threshold needs none) and never releases them.
     */
    record ListedByOthers(Meta meta, String clusterId, Map<String, List<String>> devices) implements IsolationCommand {
        public ListedByOthers {
            Map<String, List<String>> sorted = new TreeMap<>();
            if (devices != null) {
                devices.forEach((node, listed) -> sorted.put(node, listed == null ? List.of() : List.copyOf(listed)));
            }
            devices = java.util.Collections.unmodifiableMap(sorted);
        }
    }

    /**
     * The devices of one node that the ConfigMap lists as written by Falcon (annotation
     * {@code falcon.io/isolated-devices}), with their {@code Detail}, as the executor read them. fault-streams
     * adopts those it does not hold (its state was lost after it isolated them) unless it released them since:
     * they are counted, published again with their node and released as its own.
     */
    record ListedByFalcon(Meta meta, String clusterId, String nodeName, NodeIsolation devices)
            implements IsolationCommand {}
}
