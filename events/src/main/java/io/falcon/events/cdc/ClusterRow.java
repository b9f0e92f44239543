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

    public boolean isActive() {
        return status.schedulable();
    }
}
