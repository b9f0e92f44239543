package io.falcon.faults.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/** CountingState over plain maps: tests, the reference checks and anything that needs no persistence. */
public final class MapCountingState implements CountingState {
    private final Map<CounterKey, List<Long>> counters = new HashMap<>();
    private final Map<String, NodeIsolationState> nodes = new HashMap<>();
    private final Map<String, List<Candidate>> candidates = new HashMap<>();
    private final Map<String, Map<String, Set<String>>> listedByOthers = new HashMap<>();
    private final Map<String, List<Released>> released = new HashMap<>();

    @Override
    public List<Long> faultTimes(CounterKey key) {
        return counters.getOrDefault(key, List.of());
    }

    @Override
    public void putFaultTimes(CounterKey key, List<Long> sortedTimes) {
        if (sortedTimes.isEmpty()) {
            counters.remove(key);
        } else {
            counters.put(key, List.copyOf(sortedTimes));
        }
    }

    @Override
    public int removeCountersIf(Predicate<List<Long>> matching) {
        int before = counters.size();
        counters.values().removeIf(matching);
        return before - counters.size();
    }

    @Override
    public Set<String> clustersWithCandidates() {
        return Set.copyOf(candidates.keySet());
    }

    @Override
    public void clearDevice(String clusterId, String nodeName, String deviceName) {
        counters.keySet()
                .removeIf(k -> k.clusterId().equals(clusterId)
                        && k.nodeName().equals(nodeName)
                        && k.deviceName().equals(deviceName));
    }

    @Override
    public NodeIsolationState node(String clusterId, String nodeName) {
        return nodes.getOrDefault(clusterId + "/" + nodeName, NodeIsolationState.empty(clusterId, nodeName));
    }

    @Override
    public void putNode(NodeIsolationState state) {
        if (state.isEmpty()) {
            nodes.remove(state.key());
        } else {
            nodes.put(state.key(), state);
        }
    }

    @Override
    public int isolatedDevices(String clusterId) {
        return nodes.values().stream()
                .filter(n -> n.clusterId().equals(clusterId))
                .mapToInt(n -> n.devices().size())
                .sum();
    }

    @Override
    public List<Candidate> candidates(String clusterId) {
        return candidates.getOrDefault(clusterId, List.of());
    }

    @Override
    public void putCandidates(String clusterId, List<Candidate> list) {
        if (list.isEmpty()) {
            candidates.remove(clusterId);
        } else {
            candidates.put(clusterId, new ArrayList<>(list));
        }
    }

    @Override
    public Map<String, Set<String>> listedByOthers(String clusterId) {
        return listedByOthers.getOrDefault(clusterId, Map.of());
    }

    @Override
    public void putListedByOthers(String clusterId, Map<String, Set<String>> byNode) {
        if (byNode.isEmpty()) {
            listedByOthers.remove(clusterId);
        } else {
            listedByOthers.put(clusterId, Map.copyOf(byNode));
        }
    }

    @Override
    public List<Released> released(String clusterId) {
        return released.getOrDefault(clusterId, List.of());
    }

    @Override
    public void putReleased(String clusterId, List<Released> list) {
        if (list.isEmpty()) {
            released.remove(clusterId);
        } else {
            released.put(clusterId, List.copyOf(list));
        }
    }

    @Override
    public Set<String> clustersWithReleased() {
        return Set.copyOf(released.keySet());
    }

    public Map<String, NodeIsolationState> nodes() {
        return Map.copyOf(nodes);
    }

    public Map<CounterKey, List<Long>> counters() {
        return Map.copyOf(counters);
    }

    public Map<String, List<Candidate>> candidates() {
        return Map.copyOf(candidates);
    }
}
