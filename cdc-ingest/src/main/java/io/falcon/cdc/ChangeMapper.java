package io.falcon.cdc;

import io.falcon.events.ClusterStatus;
import io.falcon.events.DeadLetter;
import io.falcon.events.Json;
import io.falcon.events.Meta;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.cdc.SourcePosition;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Pure mapping of one binlog row change to a Falcon event: {@link JobChange} for the jobs table, {@link ClusterChange}
 * for the clusters table, or a dead letter with the reason when the change cannot be mapped (unknown table, missing
 * id, a required column NULL or missing, a column of an unexpected type). The spec column is passed through as the
 * raw string: a bad spec is the scheduler's business (InvalidSpec), not a CDC error.
 *
 * <p>The event id is deterministic ({@link Meta#deterministic}) over the binlog position (or the snapshot position),
 * the table and the row id, so a change delivered again after a restart carries the same id.
 */
public final class ChangeMapper {
    public static final String PRODUCER = "cdc-ingest";
    public static final String JOBS = "jobs";
    public static final String CLUSTERS = "clusters";

    private ChangeMapper() {}

    public static MappingDecision map(RawChange change) {
        String id = null;
        try {
            ChangeOp op = op(change.op());
            Optional<Map<String, Object>> rawBefore = change.before();
            Optional<Map<String, Object>> after = change.after();
            switch (op) {
                case SNAPSHOT, CREATE -> require(after.isPresent(), "op " + change.op() + " without an after row");
                case UPDATE -> require(after.isPresent(), "update without an after row");
                case DELETE -> require(rawBefore.isPresent(), "delete without a before row");
            }
            Optional<Map<String, Object>> before =
                    op == ChangeOp.SNAPSHOT || op == ChangeOp.CREATE ? Optional.empty() : rawBefore;
            if (op == ChangeOp.DELETE) {
                after = Optional.empty();
            }
            id = rowId(after.isPresent() ? after.get() : before.orElseThrow());
            if (before.isPresent() && after.isPresent()) {
                String beforeId = rowId(before.get());
                require(beforeId.equals(id), "primary key changed from '" + beforeId + "' to '" + id + "'");
            }
            SourcePosition position = position(change);
            Meta meta = Meta.deterministic(PRODUCER, occurredAt(change), identity(change, op, id));
            String table = change.table() == null ? "" : change.table();
            switch (table) {
                case JOBS -> {
                    return new MappingDecision.PublishJob(
                            id,
                            new JobChange(
                                    meta,
                                    op,
                                    before.map(ChangeMapper::jobRow),
                                    after.map(ChangeMapper::jobRow),
                                    position));
                }
                case CLUSTERS -> {
                    return new MappingDecision.PublishCluster(
                            id,
                            new ClusterChange(
                                    meta,
                                    op,
                                    before.map(ChangeMapper::clusterRow),
                                    after.map(ChangeMapper::clusterRow),
                                    position));
                }
                default -> throw new UnmappableException("unknown table " + change.qualifiedTable());
            }
        } catch (UnmappableException e) {
            return unmappable(change, id, e.getMessage(), e);
        } catch (RuntimeException e) {
            return unmappable(change, id, "unexpected " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /** The identity an event id is derived from: stable across redeliveries of the same binlog change. */
    static String identity(RawChange change, ChangeOp op, String id) {
        RawChange.Source s = change.source();
        String where = s.snapshot() ? "snapshot@" + s.file() + ":" + s.pos() : "binlog@" + s.position();
        return where + "|" + change.qualifiedTable() + "|" + id + "|" + op;
    }

    /**
     * A dead-letter decision for a change; also used by the record adapter when a Debezium record cannot even be
     * read into a {@link RawChange}.
     */
    public static MappingDecision.Unmappable unmappable(RawChange change, String rowId, String cause, Throwable error) {
        RawChange.Source s = change.source() == null ? new RawChange.Source("", 0, 0, 0, false) : change.source();
        String table = change.qualifiedTable();
        String reason = "cdc-ingest cannot map change of " + table + (rowId == null ? "" : " id=" + rowId)
                + " op=" + change.op() + " at " + (s.snapshot() ? "snapshot " : "binlog ") + s.position() + ": "
                + cause;
        String key = rowId == null ? table : rowId;
        Meta meta = Meta.deterministic(
                PRODUCER,
                occurredAt(change),
                "dead-letter|" + s.position() + "|" + s.snapshot() + "|" + table + "|" + key + "|" + change.op());
        DeadLetter letter = DeadLetter.of(
                meta,
                "binlog:" + table,
                -1,
                s.pos(),
                key.getBytes(StandardCharsets.UTF_8),
                payload(change, s),
                reason,
                error);
        return new MappingDecision.Unmappable(key, letter);
    }

    static ChangeOp op(String code) {
        if (code == null) {
            throw new UnmappableException("missing op");
        }
        return switch (code) {
            case "c" -> ChangeOp.CREATE;
            case "u" -> ChangeOp.UPDATE;
            case "d" -> ChangeOp.DELETE;
            case "r" -> ChangeOp.SNAPSHOT;
            default -> throw new UnmappableException("unsupported op '" + code + "'");
        };
    }

    static JobRow jobRow(Map<String, Object> r) {
        return new JobRow(
                rowId(r),
                requiredString(r, "actor"),
                requiredString(r, "name"),
                requiredString(r, "tpu_type"),
                requiredString(r, "topology"),
                requiredString(r, "spec"),
                optionalString(r, "supply_mode"),
                optionalLong(r, "timeout_seconds"),
                optionalLong(r, "priority"),
                requiredString(r, "status"),
                optionalString(r, "reason"),
                optionalString(r, "message"),
                optionalString(r, "cluster_id"),
                optionalString(r, "node_pool_name"),
                optionalString(r, "k8s_job_name"),
                optionalString(r, "job_uid"),
                optionalInstant(r, "created_at"),
                optionalInstant(r, "dispatched_at"),
                optionalInstant(r, "finished_at"),
                optionalInstant(r, "aborting_at"),
                optionalInstant(r, "aborted_at"),
                optionalInstant(r, "updated_at"),
                optionalLong(r, "max_retries"));
    }

    static ClusterRow clusterRow(Map<String, Object> r) {
        return new ClusterRow(
                rowId(r),
                requiredString(r, "name"),
                requiredString(r, "project"),
                requiredString(r, "location"),
                requiredString(r, "tpu_type"),
                requiredString(r, "gcs_bucket"),
                optionalString(r, "default_reservation"),
                ClusterStatus.fromWire(requiredString(r, "status")),
                optionalInstant(r, "created_at"),
                optionalString(r, "k8s_service_account"));
    }

    private static String rowId(Map<String, Object> row) {
        if (!row.containsKey("id") || row.get("id") == null) {
            throw new UnmappableException("missing id");
        }
        Object v = row.get("id");
        String id = v instanceof CharSequence cs
                ? cs.toString()
                : v instanceof Number n && isIntegral(n) ? n.toString() : null;
        if (id == null) {
            throw typeError("id", "a string", v);
        }
        if (id.isBlank()) {
            throw new UnmappableException("missing id (empty)");
        }
        return id;
    }

    private static String requiredString(Map<String, Object> row, String column) {
        return optionalString(row, column)
                .orElseThrow(() -> new UnmappableException(
                        "required column " + column + (row.containsKey(column) ? " is NULL" : " is missing")));
    }

    private static Optional<String> optionalString(Map<String, Object> row, String column) {
        Object v = row.get(column);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof CharSequence cs) {
            return Optional.of(cs.toString());
        }
        throw typeError(column, "a string", v);
    }

    private static Optional<Long> optionalLong(Map<String, Object> row, String column) {
        Object v = row.get(column);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return Optional.of(((Number) v).longValue());
        }
        try {
            if (v instanceof BigInteger b) {
                return Optional.of(b.longValueExact());
            }
            if (v instanceof BigDecimal d) {
                return Optional.of(d.longValueExact());
            }
        } catch (ArithmeticException e) {
            throw typeError(column, "an integer within 64 bits", v);
        }
        throw typeError(column, "an integer", v);
    }

    /**
     * A TIMESTAMP column arrives as Debezium's ZonedTimestamp (ISO-8601 with offset, "2024-05-01T10:00:00.123Z"); an
     * adapter may also hand an Instant or java.util.Date (DATETIME converted, taken as UTC); a string without an
     * offset is a DATETIME read as UTC.
     */
    private static Optional<Instant> optionalInstant(Map<String, Object> row, String column) {
        Object v = row.get(column);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof Instant i) {
            return Optional.of(i);
        }
        if (v instanceof java.util.Date d) {
            return Optional.of(d.toInstant());
        }
        if (v instanceof OffsetDateTime o) {
            return Optional.of(o.toInstant());
        }
        if (v instanceof CharSequence cs) {
            String text = cs.toString().trim();
            try {
                return Optional.of(OffsetDateTime.parse(text).toInstant());
            } catch (DateTimeParseException e) {
                try {
                    return Optional.of(LocalDateTime.parse(text).toInstant(ZoneOffset.UTC));
                } catch (DateTimeParseException e2) {
                    throw new UnmappableException("column " + column + ": expected a timestamp, got '" + text + "'");
                }
            }
        }
        throw typeError(column, "a timestamp", v);
    }

    private static boolean isIntegral(Number n) {
        return n instanceof Long
                || n instanceof Integer
                || n instanceof Short
                || n instanceof Byte
                || n instanceof BigInteger;
    }

    private static UnmappableException typeError(String column, String expected, Object v) {
        String shown = String.valueOf(v instanceof byte[] b ? "byte[" + b.length + "]" : v);
        if (shown.length() > 80) {
            shown = shown.substring(0, 80) + "...";
        }
        return new UnmappableException("column " + column + ": expected " + expected + ", got "
                + v.getClass().getSimpleName() + " '" + shown + "'");
    }

    private static void require(boolean condition, String reason) {
        if (!condition) {
            throw new UnmappableException(reason);
        }
    }

    private static SourcePosition position(RawChange change) {
        RawChange.Source s = change.source();
        return new SourcePosition(s.file(), s.pos(), s.row(), s.tsMs());
    }

    private static Instant occurredAt(RawChange change) {
        RawChange.Source s = change.source();
        if (s != null && s.tsMs() > 0 && !s.snapshot()) {
            return Instant.ofEpochMilli(s.tsMs());
        }
        if (change.envelopeTsMs() > 0) {
            return Instant.ofEpochMilli(change.envelopeTsMs());
        }
        return s != null && s.tsMs() > 0 ? Instant.ofEpochMilli(s.tsMs()) : Instant.EPOCH;
    }

    private static byte[] payload(RawChange change, RawChange.Source s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("database", change.database());
        m.put("table", change.table());
        m.put("op", change.op());
        m.put("before", change.before().orElse(null));
        m.put("after", change.after().orElse(null));
        m.put(
                "source",
                Map.of("file", s.file(), "pos", s.pos(), "row", s.row(), "tsMs", s.tsMs(), "snapshot", s.snapshot()));
        try {
            return Json.mapper().writeValueAsBytes(m);
        } catch (Exception e) {
            return String.valueOf(m).getBytes(StandardCharsets.UTF_8);
        }
    }

    /** The change cannot be mapped; the message is the reason. */
    static final class UnmappableException extends RuntimeException {
        UnmappableException(String message) {
            super(message, null, false, false);
        }
    }
}
