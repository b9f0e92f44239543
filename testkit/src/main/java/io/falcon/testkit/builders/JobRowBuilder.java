package io.falcon.testkit.builders;

import io.falcon.events.cdc.JobRow;
import java.time.Instant;
import java.util.Optional;

/**
 * A jobs row as an upper component inserts it (Pending, nothing scheduled yet), changed only where a test says so:
 * {@code jobRow("j1").actor("bob").topology("2x2").build()}.
 */
public final class JobRowBuilder {
    /** A valid job spec: an image and a command. */
    public static final String SPEC =
            "{\"image\":\"us-docker.pkg.dev/p/r/train:1\",\"command\":[\"python\",\"train.py\"]}";

    public static final Instant CREATED_AT = Instant.parse("2026-12-02T09:00:00Z");

    private String id;
    private String actor = "alice";
    private String name;
    private String tpuType = "v6e";
    private String topology = "2x4";
    private String spec = SPEC;
    private Optional<String> supplyMode = Optional.empty();
    private Optional<Long> timeoutSeconds = Optional.empty();
    private Optional<Long> priority = Optional.empty();
    private String status = "Pending";
    private Optional<String> reason = Optional.empty();
    private Optional<String> message = Optional.empty();
    private Optional<String> clusterId = Optional.empty();
    private Optional<String> nodePoolName = Optional.empty();
    private Optional<String> k8sJobName = Optional.empty();
    private Optional<String> jobUid = Optional.empty();
    private Optional<Instant> createdAt = Optional.of(CREATED_AT);
    private Optional<Instant> dispatchedAt = Optional.empty();
    private Optional<Instant> finishedAt = Optional.empty();
    private Optional<Instant> abortingAt = Optional.empty();
    private Optional<Instant> abortedAt = Optional.empty();
    private Optional<Instant> updatedAt = Optional.empty();

    private JobRowBuilder(String id) {
        this.id = id;
        this.name = "name-" + id;
    }

    /** alice's 2x4 v6e job named name-ID with a valid spec, Pending, created at {@link #CREATED_AT}. */
    public static JobRowBuilder jobRow(String id) {
        return new JobRowBuilder(id);
    }

    /** A copy of the row to change, e.g. the after image of an update. */
    public static JobRowBuilder from(JobRow row) {
        JobRowBuilder b = new JobRowBuilder(row.id());
        b.actor = row.actor();
        b.name = row.name();
        b.tpuType = row.tpuType();
        b.topology = row.topology();
        b.spec = row.spec();
        b.supplyMode = row.supplyMode();
        b.timeoutSeconds = row.timeoutSeconds();
        b.priority = row.priority();
        b.status = row.status();
        b.reason = row.reason();
        b.message = row.message();
        b.clusterId = row.clusterId();
        b.nodePoolName = row.nodePoolName();
        b.k8sJobName = row.k8sJobName();
        b.jobUid = row.jobUid();
        b.createdAt = row.createdAt();
        b.dispatchedAt = row.dispatchedAt();
        b.finishedAt = row.finishedAt();
        b.abortingAt = row.abortingAt();
        b.abortedAt = row.abortedAt();
        b.updatedAt = row.updatedAt();
        return b;
    }

    public JobRowBuilder id(String value) {
        id = value;
        return this;
    }

    public JobRowBuilder actor(String value) {
        actor = value;
        return this;
    }

    public JobRowBuilder name(String value) {
        name = value;
        return this;
    }

    public JobRowBuilder tpuType(String value) {
        tpuType = value;
        return this;
    }

    public JobRowBuilder topology(String value) {
        topology = value;
        return this;
    }

    public JobRowBuilder spec(String value) {
        spec = value;
        return this;
    }

    /** The supply_mode column as written: reservation, on-demand or flex-start. */
    public JobRowBuilder supplyMode(String value) {
        supplyMode = Optional.of(value);
        return this;
    }

    public JobRowBuilder timeoutSeconds(long value) {
        timeoutSeconds = Optional.of(value);
        return this;
    }

    /** The priority column (NULL unless set). */
    public JobRowBuilder priority(long value) {
        priority = Optional.of(value);
        return this;
    }

    public JobRowBuilder status(String value) {
        status = value;
        return this;
    }

    /** What the upper components write to abort: status Aborting and the time they did. */
    public JobRowBuilder aborting(Instant at) {
        status = "Aborting";
        abortingAt = Optional.of(at);
        return this;
    }

    public JobRowBuilder reason(String value) {
        reason = Optional.of(value);
        return this;
    }

    public JobRowBuilder message(String value) {
        message = Optional.of(value);
        return this;
    }

    public JobRowBuilder clusterId(String value) {
        clusterId = Optional.of(value);
        return this;
    }

    public JobRowBuilder nodePoolName(String value) {
        nodePoolName = Optional.of(value);
        return this;
    }

    public JobRowBuilder k8sJobName(String value) {
        k8sJobName = Optional.of(value);
        return this;
    }

    public JobRowBuilder jobUid(String value) {
        jobUid = Optional.of(value);
        return this;
    }

    public JobRowBuilder createdAt(Instant value) {
        createdAt = Optional.of(value);
        return this;
    }

    public JobRowBuilder dispatchedAt(Instant value) {
        dispatchedAt = Optional.of(value);
        return this;
    }

    public JobRowBuilder finishedAt(Instant value) {
        finishedAt = Optional.of(value);
        return this;
    }

    public JobRowBuilder abortedAt(Instant value) {
        abortedAt = Optional.of(value);
        return this;
    }

    public JobRowBuilder updatedAt(Instant value) {
        updatedAt = Optional.of(value);
        return this;
    }

    public JobRow build() {
        return new JobRow(
                id,
                actor,
                name,
                tpuType,
                topology,
                spec,
                supplyMode,
                timeoutSeconds,
                priority,
                status,
                reason,
                message,
                clusterId,
                nodePoolName,
                k8sJobName,
                jobUid,
                createdAt,
                dispatchedAt,
                finishedAt,
                abortingAt,
                abortedAt,
                updatedAt);
    }
}
