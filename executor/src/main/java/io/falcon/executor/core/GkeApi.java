package io.falcon.executor.core;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The part of GKE's ClusterManager and Compute's Reservations the executor uses, in plain Java. Implemented over
 * google-cloud-container / google-cloud-compute in production and in memory by the deterministic simulation.
 * Every method throws {@link ApiException} when the call does not succeed.
 */
public interface GkeApi {

    /** GKE's node pool status. */
    enum PoolStatus {
        PROVISIONING,
        RUNNING,
        RUNNING_WITH_ERROR,
        RECONCILING,
        STOPPING,
        ERROR,
        UNKNOWN
    }

    /**
     * One node pool as GKE reports it. createdAt is Falcon's falcon-created-at label (when it asked for the pool);
     * expectedHosts the pool's node count.
     */
    /**
     * A node pool as GKE shows it.
     *
     * @param labels its resource labels (Falcon's ownership labels among them)
     * @param creatorJobId the job id its node metadata names ({@code falcon-job-id}), unsanitized, if any
     */
    record PoolInfo(
            String name,
            PoolStatus status,
            String statusMessage,
            Map<String, String> labels,
            Optional<Instant> createdAt,
            int expectedHosts,
            Optional<String> creatorJobId) {
        public PoolInfo {
            labels = Map.copyOf(labels);
        }
    }

    /** A long-running GKE operation: done, and its error if it failed. */
    record OperationInfo(boolean done, Optional<String> error, String detail) {}

    /** count and inUseCount of a reservation, in hosts. */
    record Capacity(String path, long count, long inUse) {
        public long remaining() {
            return Math.max(0, count - inUse);
        }

        /** Whole slices of the given number of hosts the reservation can still hold. */
        public int freeSlices(int hostsPerSlice) {
            return hostsPerSlice <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, remaining() / hostsPerSlice);
        }
    }

    /** The pool, or empty when GKE answers NOT_FOUND. */
    Optional<PoolInfo> getPool(ClusterTarget cluster, String pool);

    /** Asks GKE to create the pool the command describes, labelled with createdAt; returns the operation name. */
    String createPool(ClusterTarget cluster, EnsureNodePool command, Instant createdAt);

    /** Asks GKE to delete the pool; returns the operation name. */
    String deletePool(ClusterTarget cluster, String pool);

    OperationInfo operation(ClusterTarget cluster, String operation);

    /** When the latest create and delete operations of a pool started, as far as GKE still lists them. */
    record PoolOperations(Optional<Instant> lastCreate, Optional<Instant> lastDelete) {
        /** A create started within the grace and not followed by a delete: the pool may exist unseen. */
        public boolean createdRecently(Instant now, java.time.Duration grace) {
            return lastCreate
                    .filter(c -> now.isBefore(c.plus(grace)))
                    .filter(c -> lastDelete.filter(d -> !d.isBefore(c)).isEmpty())
                    .isPresent();
        }
    }

    /**
     * The pool's latest CREATE_NODE_POOL and DELETE_NODE_POOL operations. A flex-start pool may be unreadable for a
     * while after its creation was accepted; its operation is not, so this is how a process that did not make the
     * request (or forgot it in a restart) knows that the pool's absence proves nothing yet.
     */
    PoolOperations operations(ClusterTarget cluster, String pool);

    List<PoolInfo> listPools(ClusterTarget cluster);

    /** The reservation's capacity; NOT_FOUND when it does not exist. */
    Capacity reservation(ClusterTarget cluster, String reservation);
}
