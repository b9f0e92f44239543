package io.falcon.faults.core;

import java.util.List;

/** The state the frequency stage reads and writes; stores in the topology, maps in tests. */
public interface CountingState {
    /** Sorted fault times of the counter; empty when none. */
    List<Long> faultTimes(CounterKey key);

    /** Stores the counter; an empty list deletes it. */
    void putFaultTimes(CounterKey key, List<Long> sortedTimes);

    /** Deletes every counter whose sorted times match, and returns how many. */
    int removeCountersIf(java.util.function.Predicate<List<Long>> matching);

    /** The clusters that hold budget candidates. */
    java.util.Set<String> clustersWithCandidates();

    /** Clears every counter of the device (all codes). */
    void clearDevice(String clusterId, String nodeName, String deviceName);

    /** The node's isolation state; empty state when nothing is isolated. */
    NodeIsolationState node(String clusterId, String nodeName);

    /** Stores the node's state; an empty state deletes it. */
    void putNode(NodeIsolationState state);

    /** How many devices of the cluster are isolated now. */
    int isolatedDevices(String clusterId);

    /** Budget candidates of the cluster, oldest first. */
    List<Candidate> candidates(String clusterId);

    void putCandidates(String clusterId, List<Candidate> candidates);

    /**
     * Devices the cluster's clusterd-manual-info-cm lists that Falcon did not write there, by node, as the executor
     * last read them (empty when none).
     */
    java.util.Map<String, java.util.Set<String>> listedByOthers(String clusterId);

    /** Replaces the cluster's devices listed by others; an empty map deletes them. */
    void putListedByOthers(String clusterId, java.util.Map<String, java.util.Set<String>> byNode);

    /** Devices of the cluster Falcon released, remembered against stale listings (empty when none). */
    List<Released> released(String clusterId);

    void putReleased(String clusterId, List<Released> released);

    /** The clusters that remember released devices. */
    java.util.Set<String> clustersWithReleased();
}
