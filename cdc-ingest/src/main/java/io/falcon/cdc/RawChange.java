package io.falcon.cdc;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One row change as read from the binlog, free of Debezium and Kafka types: the input of {@link ChangeMapper}.
 * Row maps hold column name to a plain Java value (String, Long/Integer, Instant, a TIMESTAMP as Debezium's ISO
 * ZonedTimestamp string, byte[] ...); a SQL NULL is a present key with a null value.
 *
 * @param database     schema name (source.db)
 * @param table        table name (source.table)
 * @param op           Debezium op code: c, u, d, r (t for truncate)
 * @param before       row before the change, empty for inserts and snapshot reads
 * @param after        row after the change, empty for deletes
 * @param source       where in the binlog it came from
 * @param envelopeTsMs when Debezium processed it (envelope ts_ms), 0 if unknown
 */
public record RawChange(
        String database,
        String table,
        String op,
        Optional<Map<String, Object>> before,
        Optional<Map<String, Object>> after,
        Source source,
        long envelopeTsMs) {

    public RawChange {
        before = before == null ? Optional.empty() : before.map(RawChange::frozen);
        after = after == null ? Optional.empty() : after.map(RawChange::frozen);
    }

    private static Map<String, Object> frozen(Map<String, Object> row) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(row));
    }

    /** "db.table". */
    public String qualifiedTable() {
        return database + "." + table;
    }

    /**
     * Binlog coordinates of a change. For snapshot reads file/pos are the binlog position the snapshot was taken at
     * and {@code snapshot} is true.
     */
    public record Source(String file, long pos, long row, long tsMs, boolean snapshot) {
        public Source {
            file = file == null ? "" : file;
        }

        /** "file:pos:row", the change's identity in the binlog. */
        public String position() {
            return file + ":" + pos + ":" + row;
        }
    }
}
