package io.falcon.scheduler.core;

import io.falcon.events.executor.SupplyMode;
import java.util.Optional;

/** A Falcon node pool in an edge cluster, and the job that holds it, if any. */
public record NodePool(String clusterId, String name, String topology, SupplyMode supplyMode, State state,
        Optional<String> heldBy) {

    public enum State { CREATING, READY, DELETING }

    public PoolKey key() {
        return new PoolKey(clusterId, name);
    }

    public NodePool with(State newState, Optional<String> holder) {
        return new NodePool(clusterId, name, topology, supplyMode, newState, holder);
    }

    public record PoolKey(String clusterId, String name) {
        public String asString() {
            return clusterId + "|" + name;
        }
    }
}
