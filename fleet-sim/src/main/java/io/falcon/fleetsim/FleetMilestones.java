package io.falcon.fleetsim;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The moments of a job's life as the fleet sees them, for an observer in the same JVM (the end-to-end load harness
 * measures Falcon's latency between them): each is announced once, right after the sim made it visible to its
 * clients, with the time it happened. Nothing is kept here: without a listener a milestone is dropped.
 */
public final class FleetMilestones {
    private static final Logger log = LoggerFactory.getLogger(FleetMilestones.class);

    /** What happened. */
    public enum Type {
        /** A CreateNodePool RPC was accepted; {@code name} is the pool. */
        NODE_POOL_CREATED,
        /** A DeleteNodePool RPC was accepted; {@code name} is the pool. */
        NODE_POOL_DELETED,
        /** The last node of a pool was registered Ready in Kubernetes; {@code name} is the pool. */
        NODES_READY,
        /** A Kubernetes Job POST was accepted; {@code name} is the Job, {@code pool} the node pool it selects. */
        K8S_JOB_POSTED,
        /** Every pod the Job asks for is Running (as written to the API server); {@code name} is the Job. */
        PODS_RUNNING,
        /** The Job's Complete or Failed condition was written; {@code name} is the Job. */
        K8S_JOB_FINISHED
    }

    /**
     * One milestone. {@code cluster} is the cluster's GKE name; {@code job} the Falcon job id when the resource names
     * it (the pool's {@code falcon-job-id} metadata, the Job's {@code falcon.io/job-id} annotation); {@code pool} the
     * node pool a Kubernetes Job selects.
     */
    public record Milestone(
            Instant at, Type type, String cluster, String name, Optional<String> job, Optional<String> pool) {}

    private final List<Consumer<Milestone>> listeners = new CopyOnWriteArrayList<>();

    /** Calls {@code listener} for every later milestone, on the sim's threads: it must be quick and thread-safe. */
    public void listen(Consumer<Milestone> listener) {
        listeners.add(listener);
    }

    public void announce(Milestone milestone) {
        for (Consumer<Milestone> listener : listeners) {
            try {
                listener.accept(milestone);
            } catch (RuntimeException e) {
                log.warn("a milestone listener failed on {}", milestone, e);
            }
        }
    }

    /** Whether anyone listens (lets callers skip building a milestone). */
    public boolean observed() {
        return !listeners.isEmpty();
    }
}
