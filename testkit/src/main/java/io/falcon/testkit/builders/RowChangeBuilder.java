package io.falcon.testkit.builders;

import io.falcon.events.Meta;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.cdc.SourcePosition;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;

/**
 * A row change as cdc-ingest publishes it, of a jobs row ({@code JobChange}) or a clusters row
 * ({@code ClusterChange}): {@code RowChangeBuilder.updated(before, after).at(now).build()}. By default produced by
 * "test" at the epoch, from a fixed binlog position.
 */
public final class RowChangeBuilder<R, C> {
    public static final SourcePosition SOURCE = new SourcePosition("mysql-bin.000001", 4, 0, 0);

    private final ChangeOp op;
    private final Optional<R> before;
    private final Optional<R> after;
    private final Assembler<R, C> assembler;
    private String producer = "test";
    private Instant at = Instant.EPOCH;
    private Optional<Meta> meta = Optional.empty();
    private SourcePosition source = SOURCE;

    @FunctionalInterface
    private interface Assembler<R, C> {
        C assemble(Meta meta, ChangeOp op, Optional<R> before, Optional<R> after, SourcePosition source);
    }

    private RowChangeBuilder(ChangeOp op, Optional<R> before, Optional<R> after, Assembler<R, C> assembler) {
        this.op = op;
        this.before = before;
        this.after = after;
        this.assembler = assembler;
    }

    public static RowChangeBuilder<JobRow, JobChange> inserted(JobRow row) {
        return new RowChangeBuilder<>(ChangeOp.CREATE, Optional.empty(), Optional.of(row), JobChange::new);
    }

    /** Read by Debezium's initial snapshot. */
    public static RowChangeBuilder<JobRow, JobChange> snapshotted(JobRow row) {
        return new RowChangeBuilder<>(ChangeOp.SNAPSHOT, Optional.empty(), Optional.of(row), JobChange::new);
    }

    public static RowChangeBuilder<JobRow, JobChange> updated(JobRow before, JobRow after) {
        return new RowChangeBuilder<>(ChangeOp.UPDATE, Optional.of(before), Optional.of(after), JobChange::new);
    }

    /** An update whose after image is the before image changed by the function. */
    public static RowChangeBuilder<JobRow, JobChange> updated(
            JobRow before, Function<JobRowBuilder, JobRowBuilder> change) {
        return updated(before, change.apply(JobRowBuilder.from(before)).build());
    }

    public static RowChangeBuilder<JobRow, JobChange> deleted(JobRow before) {
        return new RowChangeBuilder<>(ChangeOp.DELETE, Optional.of(before), Optional.empty(), JobChange::new);
    }

    public static RowChangeBuilder<ClusterRow, ClusterChange> inserted(ClusterRow row) {
        return new RowChangeBuilder<>(ChangeOp.CREATE, Optional.empty(), Optional.of(row), ClusterChange::new);
    }

    public static RowChangeBuilder<ClusterRow, ClusterChange> snapshotted(ClusterRow row) {
        return new RowChangeBuilder<>(ChangeOp.SNAPSHOT, Optional.empty(), Optional.of(row), ClusterChange::new);
    }

    public static RowChangeBuilder<ClusterRow, ClusterChange> updated(ClusterRow before, ClusterRow after) {
        return new RowChangeBuilder<>(ChangeOp.UPDATE, Optional.of(before), Optional.of(after), ClusterChange::new);
    }

    public static RowChangeBuilder<ClusterRow, ClusterChange> deleted(ClusterRow before) {
        return new RowChangeBuilder<>(ChangeOp.DELETE, Optional.of(before), Optional.empty(), ClusterChange::new);
    }

    /** When the change happened (the event's time). */
    public RowChangeBuilder<R, C> at(Instant value) {
        at = value;
        return this;
    }

    public RowChangeBuilder<R, C> producer(String value) {
        producer = value;
        return this;
    }

    /** The whole meta, e.g. to deliver the same change twice with one event id. */
    public RowChangeBuilder<R, C> meta(Meta value) {
        meta = Optional.of(value);
        return this;
    }

    public RowChangeBuilder<R, C> source(SourcePosition value) {
        source = value;
        return this;
    }

    public C build() {
        return assembler.assemble(meta.orElseGet(() -> Meta.of(producer, at)), op, before, after, source);
    }
}
