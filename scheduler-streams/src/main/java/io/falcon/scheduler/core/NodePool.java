package io.falcon.scheduler.core;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.SupplyMode;
import java.time.Instant;
import java.util.Optional;

/**
 * A Falcon node pool in an edge cluster, and the job that holds it, if any. target is where the pool was created,
 * so that its deletion reaches it even after the clusters row moved or was deleted; since is when it became idle
 * (READY without a holder: the idle linger counts from it) or when its deletion was first asked for; lastHolder is
 * the job that held it last (a failing deletion is noted on that job's Message, also after it finished).
 */
public record NodePool(
        ClusterTarget target,
        String name,
        String topology,
        SupplyMode supplyMode,
        State state,
        Optional<String> heldBy,
        Optional<Instant> since,
        Optional<String> lastHolder) {

    public NodePool {
        // Records stored before lastHolder existed lack it; read them as "not known".
        lastHolder = lastHolder == null ? heldBy : lastHolder;
    }

    /** A pool as it is first known, with its holder (if any) also its last holder. */
    public static NodePool of(
            ClusterTarget target,
            String name,
            String topology,
            SupplyMode supplyMode,
            State state,
            Optional<String> heldBy,
            Optional<Instant> since) {
        return new NodePool(target, name, topology, supplyMode, state, heldBy, since, heldBy);
    }

    public enum State {
        CREATING,
        READY,
        DELETING
    }

    public String clusterId() {
        return target.clusterId();
    }

    public PoolKey key() {
        return new PoolKey(target.clusterId(), name);
    }

    public NodePool with(State newState, Optional<String> holder) {
        return new NodePool(target, name, topology, supplyMode, newState, holder, since, holder.or(() -> lastHolder));
    }

    /** Held by a job (the time no longer matters). */
    public NodePool heldBy(String jobId, State newState) {
        return new NodePool(
                target, name, topology, supplyMode, newState, Optional.of(jobId), Optional.empty(), Optional.of(jobId));
    }

    /** READY and held by nobody, from now on. */
    public NodePool idle(Instant now) {
        return new NodePool(
                target, name, topology, supplyMode, State.READY, Optional.empty(), Optional.of(now), lastHolder);
    }

    /** Being deleted, since the first time that was asked for. */
    public NodePool deleting(Instant now) {
        return new NodePool(
                target,
                name,
                topology,
                supplyMode,
                State.DELETING,
                Optional.empty(),
                Optional.of(state == State.DELETING ? since.orElse(now) : now),
                lastHolder);
    }

    /** Whether a job may run on this pool: an explicit supply_mode must match the pool's; none accepts any. */
    public boolean suits(ScheduledJob job) {
        return job.request().supplyMode().map(supplyMode::equals).orElse(true);
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
