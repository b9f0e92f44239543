package io.falcon.cdc;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Reads a Debezium change record (Kafka Connect {@link SourceRecord} with an Envelope struct value) into a
 * {@link RawChange} and hands it to {@link ChangeMapper}. Logical types are turned into plain Java values here:
 * ZonedTimestamp (TIMESTAMP columns) stays its ISO string, Timestamp/MicroTimestamp/NanoTimestamp (DATETIME columns)
 * and Connect Timestamp become {@link Instant} (DATETIME taken as UTC), Date becomes {@link LocalDate}, bytes become
 * byte[]; TEXT/JSON/ENUM stay strings.
 */
public final class RecordAdapter {
    private static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
    private static final String TIMESTAMP = "io.debezium.time.Timestamp";
    private static final String MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp";
    private static final String NANO_TIMESTAMP = "io.debezium.time.NanoTimestamp";
    private static final String DEBEZIUM_DATE = "io.debezium.time.Date";

    private RecordAdapter() {}

    /** Decides what to do with one record the engine delivered. */
    public static MappingDecision decide(SourceRecord record) {
        Object value = record.value();
        if (value == null) {
            return new MappingDecision.Skip("tombstone on " + record.topic());
        }
        Schema schema = record.valueSchema();
        if (!(value instanceof Struct envelope)
                || schema == null
                || schema.name() == null
                || !schema.name().endsWith(".Envelope")) {
            return new MappingDecision.Skip(
                    "not a row change (" + (schema == null ? "no schema" : schema.name()) + ") on " + record.topic());
        }
        RawChange change;
        try {
            change = toRawChange(envelope);
        } catch (RuntimeException e) {
            RawChange unknown = new RawChange(
                    String.valueOf(record.topic()),
                    "?",
                    "?",
                    Optional.empty(),
                    Optional.empty(),
                    new RawChange.Source("", 0, 0, 0, false),
                    0);
            return ChangeMapper.unmappable(unknown, null, "cannot read Debezium envelope: " + e, e);
        }
        try {
            return ChangeMapper.map(change);
        } catch (RuntimeException e) {
            return ChangeMapper.unmappable(change, null, "mapping failed: " + e, e);
        }
    }

    /** The envelope as a RawChange. */
    public static RawChange toRawChange(Struct envelope) {
        Struct source = envelope.getStruct("source");
        if (source == null) {
            throw new IllegalArgumentException("envelope without source");
        }
        String snapshot = stringField(source, "snapshot");
        boolean isSnapshot = snapshot != null && !snapshot.isEmpty() && !"false".equalsIgnoreCase(snapshot);
        RawChange.Source src = new RawChange.Source(
                stringField(source, "file"),
                longField(source, "pos"),
                longField(source, "row"),
                longField(source, "ts_ms"),
                isSnapshot);
        return new RawChange(
                stringField(source, "db"),
                stringField(source, "table"),
                stringField(envelope, "op"),
                Optional.ofNullable(structField(envelope, "before")).map(RecordAdapter::row),
                Optional.ofNullable(structField(envelope, "after")).map(RecordAdapter::row),
                src,
                longField(envelope, "ts_ms"));
    }

    /** A row struct as column name to plain Java value. */
    public static Map<String, Object> row(Struct struct) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Field f : struct.schema().fields()) {
            m.put(f.name(), plain(f.schema(), struct.get(f)));
        }
        return m;
    }

    static Object plain(Schema schema, Object v) {
        if (v == null) {
            return null;
        }
        String name = schema.name();
        if (name != null) {
            switch (name) {
                case ZONED_TIMESTAMP:
                    return v.toString();
                case TIMESTAMP:
                    return Instant.ofEpochMilli(((Number) v).longValue());
                case MICRO_TIMESTAMP:
                    return Instant.EPOCH.plus(((Number) v).longValue(), ChronoUnit.MICROS);
                case NANO_TIMESTAMP:
                    return Instant.EPOCH.plusNanos(((Number) v).longValue());
                case DEBEZIUM_DATE:
                    return LocalDate.ofEpochDay(((Number) v).longValue());
                case org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME:
                    return ((java.util.Date) v).toInstant();
                case org.apache.kafka.connect.data.Date.LOGICAL_NAME:
                    return LocalDate.ofEpochDay(((java.util.Date) v).getTime() / 86_400_000L);
                default:
                    break;
            }
        }
        if (v instanceof ByteBuffer bb) {
            ByteBuffer copy = bb.duplicate();
            byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            return bytes;
        }
        if (v instanceof Struct s) {
            return row(s);
        }
        if (v instanceof List<?> list && schema.type() == Schema.Type.ARRAY) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object o : list) {
                out.add(plain(schema.valueSchema(), o));
            }
            return out;
        }
        return v;
    }

    private static Struct structField(Struct s, String name) {
        return s.schema().field(name) == null ? null : s.getStruct(name);
    }

    private static String stringField(Struct s, String name) {
        if (s.schema().field(name) == null) {
            return null;
        }
        Object v = s.get(name);
        return v == null ? null : v.toString();
    }

    private static long longField(Struct s, String name) {
        if (s.schema().field(name) == null) {
            return 0;
        }
        Object v = s.get(name);
        return v instanceof Number n ? n.longValue() : 0;
    }
}
