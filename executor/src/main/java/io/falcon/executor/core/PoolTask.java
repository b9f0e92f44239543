package io.falcon.executor.core;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The executor's working memory of one node pool it was asked to create or delete. Only a cache: after a restart
 * it is rebuilt from the scheduler's re-sent command and from GKE (the pool's status and its falcon-created-at
 * label), so nothing here is needed for correctness, only for speed.
 *
 * @param create the command, for a creation; empty for a deletion
 * @param createdAt when the pool was asked for (this process's create RPC, else the pool's label): the create
 *     timeout counts from it, across restarts
 * @param createAcceptedAt when this process's create RPC was accepted (the flex-start create-visibility grace)
 * @param operation the GKE operation this process started, while it may still tell something
 * @param seen the pool has been seen to exist since this task began (a later NOT_FOUND means gone)
 * @param attempts failed attempts in a row (backoff)
 * @param lastNodes the node count last reported as WaitingForNodes
 * @param deleteFailures failed deletion attempts in a row (refused or failed operations, not "busy")
 * @param seenCreated GKE has shown the pool created (RUNNING, or RECONCILING: auto-repair, an upgrade, a resize):
 *     whatever it shows after that is no creation running late, so the create timeout no longer applies
 * @param lastWord when this process last told the scheduler the pool is in GKE's hands (NodePoolCreating), while
 *     it waits on a state without a deadline (RECONCILING), so that the scheduler's backstop does not take it for
 *     silent
 */
public record PoolTask(
        Kind kind,
        String jobId,
        ClusterTarget cluster,
        String pool,
        Optional<EnsureNodePool> create,
        Optional<Instant> createdAt,
        Optional<Instant> createAcceptedAt,
        Optional<String> operation,
        boolean seen,
        int attempts,
        Instant nextAttempt,
        String lastSeen,
        Optional<EdgeApi.NodeCount> lastNodes,
        int deleteFailures,
        boolean done,
        boolean seenCreated,
        Optional<Instant> lastWord) {

    public enum Kind {
        CREATE,
        DELETE
    }

    public static PoolTask create(EnsureNodePool command) {
        return new PoolTask(
                Kind.CREATE,
                command.jobId(),
                command.cluster(),
                command.nodePoolName(),
                Optional.of(command),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                0,
                Instant.MIN,
                "not looked at yet",
                Optional.empty(),
                0,
                false,
                false,
                Optional.empty());
    }

    public static PoolTask delete(String jobId, ClusterTarget cluster, String pool) {
        return new PoolTask(
                Kind.DELETE,
                jobId,
                cluster,
                pool,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                0,
                Instant.MIN,
                "not looked at yet",
                Optional.empty(),
                0,
                false,
                false,
                Optional.empty());
    }

    public String key() {
        return key(cluster, pool);
    }

    /** The key of the task of this pool on this cluster (one task per pool). */
    public static String key(ClusterTarget cluster, String pool) {
        return cluster.resourceName() + "/nodePools/" + pool;
    }

    /** A copy with the changes the consumer makes to a builder. */
    public PoolTask with(Consumer<Builder> change) {
        Builder b = new Builder(this);
        change.accept(b);
        return new PoolTask(
                kind,
                b.jobId,
                cluster,
                pool,
                b.create,
                b.createdAt,
                b.createAcceptedAt,
                b.operation,
                b.seen,
                b.attempts,
                b.nextAttempt,
                b.lastSeen,
                b.lastNodes,
                b.deleteFailures,
                b.done,
                b.seenCreated,
                b.lastWord);
    }

    /** The mutable fields of a task, for {@link #with}. */
    public static final class Builder {
        public String jobId;
        public Optional<EnsureNodePool> create;
        public Optional<Instant> createdAt;
        public Optional<Instant> createAcceptedAt;
        public Optional<String> operation;
        public boolean seen;
        public int attempts;
        public Instant nextAttempt;
        public String lastSeen;
        public Optional<EdgeApi.NodeCount> lastNodes;
        public int deleteFailures;
        public boolean done;
        public boolean seenCreated;
        public Optional<Instant> lastWord;

        Builder(PoolTask t) {
            jobId = t.jobId;
            create = t.create;
            createdAt = t.createdAt;
            createAcceptedAt = t.createAcceptedAt;
            operation = t.operation;
            seen = t.seen;
            attempts = t.attempts;
            nextAttempt = t.nextAttempt;
            lastSeen = t.lastSeen;
            lastNodes = t.lastNodes;
            deleteFailures = t.deleteFailures;
            done = t.done;
            seenCreated = t.seenCreated;
            lastWord = t.lastWord;
        }
    }
}
