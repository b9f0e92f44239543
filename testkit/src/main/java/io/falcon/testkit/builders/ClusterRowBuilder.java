package io.falcon.testkit.builders;

import io.falcon.events.ClusterStatus;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ClusterTarget;
import java.time.Instant;
import java.util.Optional;

/**
 * A clusters row, active, changed only where a test says so: {@code clusterRow("c1").tpuType("v5p").build()}.
 * Its names follow the id (edge-ID in project proj-ID), so tests can tell clusters apart by them.
 */
public final class ClusterRowBuilder {
    private String id;
    private String name;
    private String project;
    private String location = "us-central1";
    private String tpuType = "v6e";
    private String gcsBucket;
    private Optional<String> defaultReservation = Optional.empty();
    private ClusterStatus status = ClusterStatus.ACTIVE;
    private Optional<Instant> createdAt = Optional.empty();

    private ClusterRowBuilder(String id) {
        this.id = id;
        this.name = "edge-" + id;
        this.project = "proj-" + id;
        this.gcsBucket = "bucket-" + id;
    }

    /** An active v6e cluster edge-ID in project proj-ID, us-central1, bucket-ID, without a default reservation. */
    public static ClusterRowBuilder clusterRow(String id) {
        return new ClusterRowBuilder(id);
    }

    /** The row of the cluster an executor command targets (the scheduler copies the target from the row). */
    public static ClusterRowBuilder of(ClusterTarget target) {
        return clusterRow(target.clusterId())
                .name(target.name())
                .project(target.project())
                .location(target.location())
                .tpuType(target.tpuType())
                .gcsBucket(target.gcsBucket());
    }

    public ClusterRowBuilder name(String value) {
        name = value;
        return this;
    }

    public ClusterRowBuilder project(String value) {
        project = value;
        return this;
    }

    public ClusterRowBuilder location(String value) {
        location = value;
        return this;
    }

    public ClusterRowBuilder tpuType(String value) {
        tpuType = value;
        return this;
    }

    public ClusterRowBuilder gcsBucket(String value) {
        gcsBucket = value;
        return this;
    }

    public ClusterRowBuilder defaultReservation(String value) {
        defaultReservation = Optional.of(value);
        return this;
    }

    /** The wire value: active, maintenance or offline (anything else reads as UNKNOWN, as from a row). */
    public ClusterRowBuilder status(String value) {
        status = ClusterStatus.fromWire(value);
        return this;
    }

    public ClusterRowBuilder status(ClusterStatus value) {
        status = value;
        return this;
    }

    public ClusterRowBuilder createdAt(Instant value) {
        createdAt = Optional.of(value);
        return this;
    }

    public ClusterRow build() {
        return new ClusterRow(id, name, project, location, tpuType, gcsBucket, defaultReservation, status, createdAt);
    }

    /** What an executor command carries about this cluster. */
    public ClusterTarget target() {
        return new ClusterTarget(id, name, project, location, tpuType, gcsBucket);
    }
}
