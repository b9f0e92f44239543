package io.falcon.scheduler.core;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.SupplyMode;
import java.time.Instant;
import java.util.Optional;

/**
 * A Falcon node pool in an edge cluster, and the job that holds it, if any. target is where the pool was created,
 * so that its deletion reaches it even after the clusters row moved or was deleted; deletingSince is when its
 * deletion was first asked for.
 */
public record NodePool(ClusterTarget target, String name, String topology, SupplyMode supplyMode, State state,
        Optional<String> heldBy, Optional<Instant> deletingSince) {

    public enum State { CREATING, READY, DELETING }

    public String clusterId() {
        return target.clusterId();
    }

    public PoolKey key() {
        return new PoolKey(target.clusterId(), name);
    }

    public NodePool with(State newState, Optional<String> holder) {
        return new NodePool(target, name, topology, supplyMode, newState, holder, deletingSince);
    }

    /** Being deleted, since the first time that was asked for. */
    public NodePool deleting(Instant now) {
        return new NodePool(target, name, topology, supplyMode, State.DELETING, Optional.empty(),
                Optional.of(deletingSince.orElse(now)));
    }

    public record PoolKey(String clusterId, String name) {
        public String asString() {
            return clusterId + "|" + name;
        }

        /** The inverse of asString (pool names never contain '|'). */
        public static PoolKey parse(String text) {
            int bar = text.lastIndexOf('|');
            return new PoolKey(text.substring(0, bar), text.substring(bar + 1));
        }
    }
}
