package io.falcon.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.ClusterStatus;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.JobChange;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** Debezium-shaped Connect records (as the MariaDB/MySQL connectors emit them) through the adapter. */
class RecordAdapterTest {
    private static final Schema ZONED = SchemaBuilder.string()
            .name("io.debezium.time.ZonedTimestamp")
            .optional()
            .build();
    private static final Schema ZONED_REQUIRED =
            SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").build();

    private static final Schema JOB_ROW = SchemaBuilder.struct()
            .name("falcon.db.jobs.Value")
            .optional()
            .field("id", Schema.STRING_SCHEMA)
            .field("actor", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("tpu_type", Schema.STRING_SCHEMA)
            .field("topology", Schema.STRING_SCHEMA)
            .field("spec", Schema.STRING_SCHEMA)
            .field("supply_mode", Schema.OPTIONAL_STRING_SCHEMA)
            .field("timeout_seconds", Schema.OPTIONAL_INT64_SCHEMA)
            .field("status", Schema.STRING_SCHEMA)
            .field("reason", Schema.OPTIONAL_STRING_SCHEMA)
            .field("message", Schema.OPTIONAL_STRING_SCHEMA)
            .field("cluster_id", Schema.OPTIONAL_STRING_SCHEMA)
            .field("node_pool_name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("k8s_job_name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("job_uid", Schema.OPTIONAL_STRING_SCHEMA)
            .field("created_at", ZONED_REQUIRED)
            .field("dispatched_at", ZONED)
            .field("finished_at", ZONED)
            .field("aborting_at", ZONED)
            .field("aborted_at", ZONED)
            .field("updated_at", ZONED_REQUIRED)
            .build();

    private static final Schema SOURCE = SchemaBuilder.struct()
            .name("io.debezium.connector.mariadb.Source")
            .field("version", Schema.STRING_SCHEMA)
            .field("connector", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field(
                    "snapshot",
                    SchemaBuilder.string()
                            .optional()
                            .name("io.debezium.data.Enum")
                            .build())
            .field("db", Schema.STRING_SCHEMA)
            .field("table", Schema.OPTIONAL_STRING_SCHEMA)
            .field("server_id", Schema.INT64_SCHEMA)
            .field("file", Schema.STRING_SCHEMA)
            .field("pos", Schema.INT64_SCHEMA)
            .field("row", Schema.INT32_SCHEMA)
            .build();

    static final Schema ENVELOPE = SchemaBuilder.struct()
            .name("falcon.db.jobs.Envelope")
            .field("before", JOB_ROW)
            .field("after", JOB_ROW)
            .field("source", SOURCE)
            .field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .build();

    static Struct jobRow(String id, String status, Long timeout) {
        return new Struct(JOB_ROW)
                .put("id", id)
                .put("actor", "bob")
                .put("name", "n")
                .put("tpu_type", "v6e")
                .put("topology", "4x4")
                .put("spec", "{\"image\":\"i\"}")
                .put("timeout_seconds", timeout)
                .put("status", status)
                .put("created_at", "2025-06-01T00:00:00.250Z")
                .put("updated_at", "2025-06-01T00:00:01.750Z");
    }

    static Struct source(String snapshot, long pos, int row) {
        return new Struct(SOURCE)
                .put("version", "3.5.0.Final")
                .put("connector", "mariadb")
                .put("name", "falcon")
                .put("ts_ms", 1_750_000_000_000L)
                .put("snapshot", snapshot)
                .put("db", "db")
                .put("table", "jobs")
                .put("server_id", 1L)
                .put("file", "mysql-bin.000002")
                .put("pos", pos)
                .put("row", row);
    }

    static SourceRecord record(Struct envelope) {
        return new SourceRecord(
                Map.of("server", "falcon"), Map.of("pos", 1L), "falcon.db.jobs", null, null, null, ENVELOPE, envelope);
    }

    @Test
    void anUpdateEnvelopeBecomesAJobChangeWithInstants() {
        Struct env = new Struct(ENVELOPE)
                .put("before", jobRow("j1", "Pending", null))
                .put("after", jobRow("j1", "Running", 120L))
                .put("source", source("false", 9876, 1))
                .put("op", "u")
                .put("ts_ms", 1_750_000_000_123L);

        MappingDecision d = RecordAdapter.decide(record(env));

        assertThat(d).isInstanceOf(MappingDecision.PublishJob.class);
        JobChange c = ((MappingDecision.PublishJob) d).change();
        assertThat(c.op()).isEqualTo(ChangeOp.UPDATE);
        assertThat(c.before().orElseThrow().status()).isEqualTo("Pending");
        assertThat(c.before().orElseThrow().timeoutSeconds()).isEmpty();
        assertThat(c.after().orElseThrow().status()).isEqualTo("Running");
        assertThat(c.after().orElseThrow().timeoutSeconds()).contains(120L);
        assertThat(c.after().orElseThrow().createdAt()).contains(Instant.parse("2025-06-01T00:00:00.250Z"));
        assertThat(c.after().orElseThrow().updatedAt()).contains(Instant.parse("2025-06-01T00:00:01.750Z"));
        assertThat(c.after().orElseThrow().dispatchedAt()).isEmpty();
        assertThat(c.source().binlogFile()).isEqualTo("mysql-bin.000002");
        assertThat(c.source().binlogPosition()).isEqualTo(9876);
        assertThat(c.source().rowInEvent()).isEqualTo(1);
        assertThat(c.source().serverTimeMillis()).isEqualTo(1_750_000_000_000L);
    }

    @Test
    void snapshotFlagValuesAreRecognised() {
        for (String flag :
                new String[] {"true", "first", "last", "first_in_data_collection", "last_in_data_collection"}) {
            Struct env = new Struct(ENVELOPE)
                    .put("after", jobRow("j2", "Pending", null))
                    .put("source", source(flag, 4, 0))
                    .put("op", "r")
                    .put("ts_ms", 1L);
            RawChange raw = RecordAdapter.toRawChange(env);
            assertThat(raw.source().snapshot()).as(flag).isTrue();
        }
        Struct streaming = new Struct(ENVELOPE)
                .put("after", jobRow("j2", "Pending", null))
                .put("source", source(null, 4, 0))
                .put("op", "c");
        assertThat(RecordAdapter.toRawChange(streaming).source().snapshot()).isFalse();
    }

    @Test
    void tombstonesAndNonEnvelopesAreSkipped() {
        SourceRecord tombstone = new SourceRecord(Map.of(), Map.of(), "falcon.db.jobs", null, null, null, null, null);
        assertThat(RecordAdapter.decide(tombstone)).isInstanceOf(MappingDecision.Skip.class);

        Schema heartbeatSchema = SchemaBuilder.struct()
                .name("io.debezium.connector.common.Heartbeat")
                .field("ts_ms", Schema.INT64_SCHEMA)
                .build();
        SourceRecord heartbeat = new SourceRecord(
                Map.of(),
                Map.of(),
                "__debezium-heartbeat.falcon",
                null,
                null,
                null,
                heartbeatSchema,
                new Struct(heartbeatSchema).put("ts_ms", 1L));
        assertThat(RecordAdapter.decide(heartbeat)).isInstanceOf(MappingDecision.Skip.class);
    }

    @Test
    void logicalTypesBecomePlainJavaValues() {
        assertThat(RecordAdapter.plain(
                        SchemaBuilder.int64().name("io.debezium.time.Timestamp").build(), 1_700_000_000_123L))
                .isEqualTo(Instant.ofEpochMilli(1_700_000_000_123L));
        assertThat(RecordAdapter.plain(
                        SchemaBuilder.int64()
                                .name("io.debezium.time.MicroTimestamp")
                                .build(),
                        1_700_000_000_123_456L))
                .isEqualTo(Instant.parse("2023-11-14T22:13:20.123456Z"));
        assertThat(RecordAdapter.plain(
                        SchemaBuilder.int64()
                                .name("io.debezium.time.NanoTimestamp")
                                .build(),
                        1_700_000_000_123_456_789L))
                .isEqualTo(Instant.parse("2023-11-14T22:13:20.123456789Z"));
        assertThat(RecordAdapter.plain(
                        org.apache.kafka.connect.data.Timestamp.SCHEMA, java.util.Date.from(Instant.ofEpochMilli(5))))
                .isEqualTo(Instant.ofEpochMilli(5));
        assertThat(RecordAdapter.plain(
                        SchemaBuilder.int32().name("io.debezium.time.Date").build(), 1))
                .isEqualTo(LocalDate.of(1970, 1, 2));
        assertThat(RecordAdapter.plain(ZONED, "2025-01-01T00:00:00Z")).isEqualTo("2025-01-01T00:00:00Z");
        assertThat(RecordAdapter.plain(
                        SchemaBuilder.string().name("io.debezium.data.Json").build(), "{\"a\":1}"))
                .isEqualTo("{\"a\":1}");
        assertThat((byte[]) RecordAdapter.plain(Schema.BYTES_SCHEMA, ByteBuffer.wrap(new byte[] {7, 8})))
                .containsExactly(7, 8);
    }

    @Test
    void aDatetimeColumnArrivingAsEpochMillisMapsToTheSameInstant() {
        Schema row = SchemaBuilder.struct()
                .name("falcon.db.clusters.Value")
                .optional()
                .field("id", Schema.STRING_SCHEMA)
                .field("name", Schema.STRING_SCHEMA)
                .field("project", Schema.STRING_SCHEMA)
                .field("location", Schema.STRING_SCHEMA)
                .field("tpu_type", Schema.STRING_SCHEMA)
                .field("gcs_bucket", Schema.STRING_SCHEMA)
                .field("default_reservation", Schema.OPTIONAL_STRING_SCHEMA)
                .field(
                        "status",
                        SchemaBuilder.string().name("io.debezium.data.Enum").build())
                .field(
                        "created_at",
                        SchemaBuilder.int64().name("io.debezium.time.Timestamp").build())
                .build();
        Struct after = new Struct(row)
                .put("id", "c1")
                .put("name", "n")
                .put("project", "p")
                .put("location", "l")
                .put("tpu_type", "v5e")
                .put("gcs_bucket", "b")
                .put("status", "offline")
                .put("created_at", 1_700_000_000_001L);
        Map<String, Object> plain = RecordAdapter.row(after);
        var d = ChangeMapper.map(new RawChange(
                "db",
                "clusters",
                "c",
                java.util.Optional.empty(),
                java.util.Optional.of(plain),
                new RawChange.Source("f", 1, 0, 1, false),
                1));
        assertThat(d).isInstanceOf(MappingDecision.PublishCluster.class);
        var cluster = ((MappingDecision.PublishCluster) d).change().after().orElseThrow();
        assertThat(cluster.createdAt()).contains(Instant.ofEpochMilli(1_700_000_000_001L));
        assertThat(cluster.status()).isEqualTo(ClusterStatus.OFFLINE);
        assertThat(cluster.isActive()).isFalse();
    }
}
