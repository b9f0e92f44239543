package io.falcon.events.cdc;

import io.falcon.events.ClusterStatus;
import java.time.Instant;
import java.util.Optional;

/**
 * One row of the clusters table (owned by Falcon).
 *
 * @param k8sServiceAccount the Kubernetes service account the cluster's job pods run as (Workload Identity for its
 *     bucket), empty for the namespace's default
 */
public record ClusterRow(
        String id,
        String name,
        String project,
        String location,
        String tpuType,
        String gcsBucket,
        Optional<String> defaultReservation,
        ClusterStatus status,
        Optional<Instant> createdAt,
        Optional<String> k8sServiceAccount) {

    /** A row without a service account (the column is NULL). */
    public ClusterRow(
            String id,
            String name,
            String project,
            String location,
            String tpuType,
            String gcsBucket,
            Optional<String> defaultReservation,
            ClusterStatus status,
            Optional<Instant> createdAt) {
        this(id, name, project, location, tpuType, gcsBucket, defaultReservation, status, createdAt, Optional.empty());
    }

    /** The same row with another status (every other column kept). */
    public ClusterRow withStatus(ClusterStatus newStatus) {
        return new ClusterRow(
                id,
                name,
                project,
                location,
                tpuType,
                gcsBucket,
                defaultReservation,
                newStatus,
                createdAt,
                k8sServiceAccount);
    }

    /** What the executor needs of this row to reach the cluster and run its jobs: the one place it is copied. */
    public io.falcon.events.executor.ClusterTarget target() {
        return new io.falcon.events.executor.ClusterTarget(
                id, name, project, location, tpuType, gcsBucket, k8sServiceAccount);
    }

    public boolean isActive() {
        return status.schedulable();
    }
}
