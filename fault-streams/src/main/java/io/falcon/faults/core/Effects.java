package io.falcon.faults.core;

import io.falcon.events.fault.FaultVerdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a step decided: verdicts to publish and nodes whose isolation state changed (to publish, by key); or that
 * its input is refused, with the reason (it would push a stored value past its {@link StateBounds}): nothing
 * changed, and the input goes to the dead-letter topic.
 */
public final class Effects {
    private final List<FaultVerdict> verdicts = new ArrayList<>();
    private final Map<String, NodeIsolationState> changedNodes = new LinkedHashMap<>();
    private String refusal;

    /** The input is refused for the reason; nothing changed. */
    static Effects refused(String reason) {
        Effects effects = new Effects();
        effects.refusal = reason;
        return effects;
    }

    /** Why the input was refused (it goes to the dead-letter topic), or empty when it was applied. */
    public Optional<String> refusal() {
        return Optional.ofNullable(refusal);
    }

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
