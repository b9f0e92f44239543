package io.falcon.faults.topology;

import io.falcon.faults.core.Candidate;
import io.falcon.faults.core.CounterKey;
import io.falcon.faults.core.CountingState;
import io.falcon.faults.core.NodeIsolationState;
import io.falcon.faults.core.Released;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * CountingState over the counting stage's changelogged stores, so counts and isolations survive restarts. The
 * nodes with isolated devices (read for every counted fault) are held decoded in memory, loaded from the store when
 * the task initialises; a changed node is written to the store at the commit ({@link CommitTimeStore}).
 */
final class StoreCountingState implements CountingState {
    private final KeyValueStore<String, StoredValues.FaultTimes> counters;
    private final CommitTimeStore<NodeIsolationState> nodes;
    private final KeyValueStore<String, StoredValues.Candidates> candidates;
    private final KeyValueStore<String, StoredValues.Listed> listed;
    private final Map<String, NodeIsolationState> isolatedNodes = new HashMap<>();
    private final Map<String, Integer> isolatedByCluster = new HashMap<>();

    StoreCountingState(
            KeyValueStore<String, StoredValues.FaultTimes> counters,
            CommitTimeStore<NodeIsolationState> nodes,
            KeyValueStore<String, StoredValues.Candidates> candidates,
            KeyValueStore<String, StoredValues.Listed> listed) {
        this.counters = counters;
        this.nodes = nodes;
        this.candidates = candidates;
        this.listed = listed;
        try (KeyValueIterator<String, NodeIsolationState> it = nodes.all()) {
            it.forEachRemaining(kv -> cache(kv.key, kv.value));
        }
    }

    private void cache(String key, NodeIsolationState state) {
        NodeIsolationState before = state.isEmpty() ? isolatedNodes.remove(key) : isolatedNodes.put(key, state);
        int delta =
                state.devices().size() - (before == null ? 0 : before.devices().size());
        isolatedByCluster.merge(state.clusterId(), delta, Integer::sum);
    }

    /** The store key of the counter read last: a counted fault reads and then writes the same key. */
    private CounterKey lastKey;

    private String lastStoreKey;

    private String storeKey(CounterKey key) {
        if (key != lastKey) {
            lastStoreKey = StoreKeys.counter(key);
            lastKey = key;
        }
        return lastStoreKey;
    }

    @Override
    public List<Long> faultTimes(CounterKey key) {
        StoredValues.FaultTimes times = counters.get(storeKey(key));
        return times == null ? List.of() : times.times();
    }

    @Override
    public void putFaultTimes(CounterKey key, List<Long> sortedTimes) {
        if (sortedTimes.isEmpty()) {
            counters.delete(storeKey(key));
        } else {
            counters.put(storeKey(key), new StoredValues.FaultTimes(sortedTimes));
        }
    }

    @Override
    public int removeCountersIf(Predicate<List<Long>> matching) {
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, StoredValues.FaultTimes> it = counters.all()) {
            it.forEachRemaining(kv -> {
                if (matching.test(kv.value.times())) {
                    keys.add(kv.key);
                }
            });
        }
        keys.forEach(counters::delete);
        return keys.size();
    }

    @Override
    public Set<String> clustersWithCandidates() {
        Set<String> clusters = new TreeSet<>();
        try (KeyValueIterator<String, StoredValues.Candidates> it = candidates.all()) {
            it.forEachRemaining(kv -> clusters.add(kv.key));
        }
        return clusters;
    }

    @Override
    public void clearDevice(String clusterId, String nodeName, String deviceName) {
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, StoredValues.FaultTimes> it = counters.prefixScan(
                StoreKeys.devicePrefix(clusterId, nodeName, deviceName),
                Serdes.String().serializer())) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        keys.forEach(counters::delete);
    }

    @Override
    public NodeIsolationState node(String clusterId, String nodeName) {
        NodeIsolationState state = isolatedNodes.get(StoreKeys.node(clusterId, nodeName));
        return state == null ? NodeIsolationState.empty(clusterId, nodeName) : state;
    }

    @Override
    public void putNode(NodeIsolationState state) {
        String key = StoreKeys.node(state.clusterId(), state.nodeName());
        // written at the commit: a busy node's last fault time changes with every fault of its isolated devices
        nodes.writeAtCommit(key, () -> state.isEmpty() ? Optional.empty() : Optional.of(state));
        cache(key, state);
    }

    @Override
    public int isolatedDevices(String clusterId) {
        return isolatedByCluster.getOrDefault(clusterId, 0);
    }

    @Override
    public List<Candidate> candidates(String clusterId) {
        StoredValues.Candidates stored = candidates.get(clusterId);
        return stored == null ? List.of() : stored.candidates();
    }

    @Override
    public void putCandidates(String clusterId, List<Candidate> list) {
        if (list.isEmpty()) {
            candidates.delete(clusterId);
        } else {
            candidates.put(clusterId, new StoredValues.Candidates(list));
        }
    }

    private StoredValues.Listed listed(String clusterId) {
        StoredValues.Listed stored = listed.get(clusterId);
        return stored == null ? new StoredValues.Listed(Map.of(), List.of()) : stored;
    }

    private void putListed(String clusterId, StoredValues.Listed value) {
        if (value.isEmpty()) {
            listed.delete(clusterId);
        } else {
            listed.put(clusterId, value);
        }
    }

    @Override
    public Map<String, Set<String>> listedByOthers(String clusterId) {
        Map<String, Set<String>> byNode = new HashMap<>();
        listed(clusterId).byOthers().forEach((node, devices) -> byNode.put(node, Set.copyOf(devices)));
        return byNode;
    }

    @Override
    public void putListedByOthers(String clusterId, Map<String, Set<String>> byNode) {
        Map<String, List<String>> devices = new HashMap<>();
        byNode.forEach((node, listedDevices) -> devices.put(node, List.copyOf(new TreeSet<>(listedDevices))));
        putListed(clusterId, new StoredValues.Listed(devices, listed(clusterId).released()));
    }

    @Override
    public List<Released> released(String clusterId) {
        return listed(clusterId).released();
    }

    @Override
    public void putReleased(String clusterId, List<Released> released) {
        putListed(clusterId, new StoredValues.Listed(listed(clusterId).byOthers(), released));
    }

    @Override
    public Set<String> clustersWithReleased() {
        Set<String> clusters = new TreeSet<>();
        try (KeyValueIterator<String, StoredValues.Listed> it = listed.all()) {
            it.forEachRemaining(kv -> {
                if (!kv.value.released().isEmpty()) {
                    clusters.add(kv.key);
                }
            });
        }
        return clusters;
    }
}
