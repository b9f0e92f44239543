package io.falcon.faults.core;

import io.falcon.events.fault.FaultVerdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a step decided: verdicts to publish and nodes whose isolation state changed (to publish, by key). */
public final class Effects {
    private final List<FaultVerdict> verdicts = new ArrayList<>();
    private final Map<String, NodeIsolationState> changedNodes = new LinkedHashMap<>();

    void verdict(FaultVerdict verdict) {
        verdicts.add(verdict);
    }

    void nodeChanged(NodeIsolationState state) {
        changedNodes.put(state.key(), state);
    }

    public List<FaultVerdict> verdicts() {
        return List.copyOf(verdicts);
    }

    public List<NodeIsolationState> changedNodes() {
        return List.copyOf(changedNodes.values());
    }

    public void addAll(Effects other) {
        verdicts.addAll(other.verdicts);
        changedNodes.putAll(other.changedNodes);
    }
}
