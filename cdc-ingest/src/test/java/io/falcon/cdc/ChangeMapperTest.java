package io.falcon.cdc;

import static io.falcon.cdc.Rows.binlog;
import static io.falcon.cdc.Rows.change;
import static io.falcon.cdc.Rows.cluster;
import static io.falcon.cdc.Rows.job;
import static io.falcon.cdc.Rows.snapshot;
import static io.falcon.cdc.Rows.with;
import static io.falcon.cdc.Rows.without;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.ClusterStatus;
import io.falcon.events.DeadLetter;
import io.falcon.events.Json;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.cdc.SourcePosition;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChangeMapperTest {

    private static JobChange asJob(MappingDecision d) {
        assertThat(d).isInstanceOf(MappingDecision.PublishJob.class);
        return ((MappingDecision.PublishJob) d).change();
    }

    private static ClusterChange asCluster(MappingDecision d) {
        assertThat(d).isInstanceOf(MappingDecision.PublishCluster.class);
        return ((MappingDecision.PublishCluster) d).change();
    }

    private static MappingDecision.Unmappable dead(MappingDecision d) {
        assertThat(d).isInstanceOf(MappingDecision.Unmappable.class);
        return (MappingDecision.Unmappable) d;
    }

    @Test
    void insertOfAJobBecomesCreateWithAfterOnly() {
        MappingDecision d = ChangeMapper.map(change("jobs", "c", null, job("j-1"), binlog(1200, 0)));

        assertThat(((MappingDecision.PublishJob) d).key()).isEqualTo("j-1");
        JobChange c = asJob(d);
        assertThat(c.op()).isEqualTo(ChangeOp.CREATE);
        assertThat(c.before()).isEmpty();
        assertThat(c.jobId()).isEqualTo("j-1");
        JobRow row = c.after().orElseThrow();
        assertThat(row.actor()).isEqualTo("alice");
        assertThat(row.name()).isEqualTo("train-j-1");
        assertThat(row.tpuType()).isEqualTo("v5e");
        assertThat(row.topology()).isEqualTo("2x4");
        assertThat(row.status()).isEqualTo("Pending");
        assertThat(row.spec()).isEqualTo("{\"image\":\"gcr.io/x/y:1\",\"command\":[\"python\",\"train.py\"]}");
        assertThat(c.source()).isEqualTo(new SourcePosition("mysql-bin.000003", 1200, 0, 1_740_824_130_000L));
        assertThat(c.meta().producer()).isEqualTo("cdc-ingest");
        assertThat(c.meta().occurredAt()).isEqualTo(Instant.ofEpochMilli(1_740_824_130_000L));
    }

    @Test
    void nullableColumnsBecomeEmptyAndFilledOnesPresent() {
        JobRow empty = asJob(ChangeMapper.map(change("jobs", "c", null, job("j-2"), binlog(1, 0))))
                .after()
                .orElseThrow();
        assertThat(empty.supplyMode()).isEmpty();
        assertThat(empty.timeoutSeconds()).isEmpty();
        assertThat(empty.reason()).isEmpty();
        assertThat(empty.message()).isEmpty();
        assertThat(empty.clusterId()).isEmpty();
        assertThat(empty.nodePoolName()).isEmpty();
        assertThat(empty.k8sJobName()).isEmpty();
        assertThat(empty.jobUid()).isEmpty();
        assertThat(empty.dispatchedAt()).isEmpty();
        assertThat(empty.finishedAt()).isEmpty();
        assertThat(empty.abortingAt()).isEmpty();
        assertThat(empty.abortedAt()).isEmpty();

        Map<String, Object> full = with(
                job("j-3"),
                "supply_mode",
                "flex-start",
                "timeout_seconds",
                3600L,
                "status",
                "Running",
                "reason",
                "",
                "message",
                "running on c-1",
                "cluster_id",
                "c-1",
                "node_pool_name",
                "falcon-j3",
                "k8s_job_name",
                "falcon-j3",
                "job_uid",
                "uid-3",
                "dispatched_at",
                "2025-03-01T10:20:00Z",
                "finished_at",
                "2025-03-01T11:00:00.5Z",
                "aborting_at",
                "2025-03-01T10:59:00.001Z",
                "aborted_at",
                "2025-03-01T11:00:00.999Z");
        JobRow row = asJob(ChangeMapper.map(change("jobs", "c", null, full, binlog(2, 0))))
                .after()
                .orElseThrow();
        assertThat(row.supplyMode()).contains("flex-start");
        assertThat(row.timeoutSeconds()).contains(3600L);
        assertThat(row.reason()).contains("");
        assertThat(row.message()).contains("running on c-1");
        assertThat(row.clusterId()).contains("c-1");
        assertThat(row.nodePoolName()).contains("falcon-j3");
        assertThat(row.k8sJobName()).contains("falcon-j3");
        assertThat(row.jobUid()).contains("uid-3");
        assertThat(row.dispatchedAt()).contains(Instant.parse("2025-03-01T10:20:00Z"));
        assertThat(row.finishedAt()).contains(Instant.parse("2025-03-01T11:00:00.500Z"));
        assertThat(row.abortingAt()).contains(Instant.parse("2025-03-01T10:59:00.001Z"));
        assertThat(row.abortedAt()).contains(Instant.parse("2025-03-01T11:00:00.999Z"));
    }

    @Test
    void timestampsKeepMillisecondsInEveryShapeAnAdapterMayHand() {
        Instant expected = Instant.parse("2025-03-01T10:15:30.123Z");
        for (Object shape : new Object[] {
            "2025-03-01T10:15:30.123Z",
            "2025-03-01T11:15:30.123+01:00",
            "2025-03-01T10:15:30.123",
            expected,
            java.util.Date.from(expected)
        }) {
            JobRow row = asJob(ChangeMapper.map(
                            change("jobs", "c", null, with(job("t"), "created_at", shape), binlog(3, 0))))
                    .after()
                    .orElseThrow();
            assertThat(row.createdAt()).as("shape %s", shape).contains(expected);
        }
        JobRow integerTimeout = asJob(ChangeMapper.map(
                        change("jobs", "c", null, with(job("t"), "timeout_seconds", 60), binlog(3, 1))))
                .after()
                .orElseThrow();
        assertThat(integerTimeout.timeoutSeconds()).contains(60L);
    }

    @Test
    void thePriorityColumnIsReadWhenSetAndAbsentWhenNullOrMissing() {
        JobRow prioritized = asJob(
                        ChangeMapper.map(change("jobs", "c", null, with(job("p"), "priority", -7), binlog(5, 0))))
                .after()
                .orElseThrow();
        assertThat(prioritized.priority()).contains(-7L);
        JobRow nullPriority = asJob(
                        ChangeMapper.map(change("jobs", "c", null, with(job("p"), "priority", null), binlog(5, 1))))
                .after()
                .orElseThrow();
        assertThat(nullPriority.priority()).isEmpty();
        // a table without the column (the reference DDL before issue 17) reads as NULL
        Map<String, Object> withoutColumn = job("p");
        withoutColumn.remove("priority");
        JobRow older = asJob(ChangeMapper.map(change("jobs", "c", null, withoutColumn, binlog(5, 2))))
                .after()
                .orElseThrow();
        assertThat(older.priority()).isEmpty();
    }

    @Test
    void theMaxRetriesColumnIsReadWhenSetAndAbsentWhenNullOrMissing() {
        JobRow retried = asJob(
                        ChangeMapper.map(change("jobs", "c", null, with(job("r"), "max_retries", 2), binlog(6, 0))))
                .after()
                .orElseThrow();
        assertThat(retried.maxRetries()).contains(2L);
        JobRow nullColumn = asJob(
                        ChangeMapper.map(change("jobs", "c", null, with(job("r"), "max_retries", null), binlog(6, 1))))
                .after()
                .orElseThrow();
        assertThat(nullColumn.maxRetries()).isEmpty();
        // a table without the column reads as NULL
        JobRow older = asJob(ChangeMapper.map(change("jobs", "c", null, job("r"), binlog(6, 2))))
                .after()
                .orElseThrow();
        assertThat(older.maxRetries()).isEmpty();
    }

    @Test
    void updateCarriesBeforeAndAfter() {
        Map<String, Object> before = job("j-4");
        Map<String, Object> after = with(before, "status", "Aborting", "aborting_at", "2025-03-01T10:30:00.000Z");
        JobChange c = asJob(ChangeMapper.map(change("jobs", "u", before, after, binlog(5000, 2))));

        assertThat(c.op()).isEqualTo(ChangeOp.UPDATE);
        assertThat(c.before().orElseThrow().status()).isEqualTo("Pending");
        assertThat(c.before().orElseThrow().abortingAt()).isEmpty();
        assertThat(c.after().orElseThrow().status()).isEqualTo("Aborting");
        assertThat(c.after().orElseThrow().abortingAt()).contains(Instant.parse("2025-03-01T10:30:00Z"));
        assertThat(c.source().rowInEvent()).isEqualTo(2);
    }

    @Test
    void deleteCarriesBeforeOnly() {
        JobChange c = asJob(ChangeMapper.map(change("jobs", "d", job("j-5"), null, binlog(6000, 0))));
        assertThat(c.op()).isEqualTo(ChangeOp.DELETE);
        assertThat(c.after()).isEmpty();
        assertThat(c.before().orElseThrow().id()).isEqualTo("j-5");
        assertThat(c.jobId()).isEqualTo("j-5");
    }

    @Test
    void snapshotReadBecomesSnapshotWithAfterOnly() {
        JobChange c = asJob(ChangeMapper.map(change("jobs", "r", null, job("j-6"), snapshot())));
        assertThat(c.op()).isEqualTo(ChangeOp.SNAPSHOT);
        assertThat(c.before()).isEmpty();
        assertThat(c.after().orElseThrow().id()).isEqualTo("j-6");
        assertThat(c.source().binlogFile()).isEqualTo("mysql-bin.000003");
        assertThat(c.source().binlogPosition()).isEqualTo(4711);
        // snapshot reads take their time from the envelope (when Debezium read the row)
        assertThat(c.meta().occurredAt()).isEqualTo(Instant.ofEpochMilli(1_740_824_131_000L));
    }

    @Test
    void clustersInsertUpdateDeleteSnapshot() {
        ClusterChange created =
                asCluster(ChangeMapper.map(change("clusters", "c", null, cluster("c-1"), binlog(1, 0))));
        assertThat(created.op()).isEqualTo(ChangeOp.CREATE);
        assertThat(created.clusterId()).isEqualTo("c-1");
        var row = created.after().orElseThrow();
        assertThat(row.name()).isEqualTo("edge-c-1");
        assertThat(row.project()).isEqualTo("proj-1");
        assertThat(row.location()).isEqualTo("us-central2-b");
        assertThat(row.tpuType()).isEqualTo("v5e");
        assertThat(row.gcsBucket()).isEqualTo("gs://bucket-c-1");
        assertThat(row.defaultReservation()).isEmpty();
        assertThat(row.status()).isEqualTo(ClusterStatus.ACTIVE);
        assertThat(row.isActive()).isTrue();
        assertThat(row.createdAt()).contains(Instant.parse("2025-01-02T03:04:05.006Z"));

        ClusterChange updated = asCluster(ChangeMapper.map(change(
                "clusters",
                "u",
                cluster("c-1"),
                with(cluster("c-1"), "status", "maintenance", "default_reservation", "res-a"),
                binlog(2, 0))));
        assertThat(updated.op()).isEqualTo(ChangeOp.UPDATE);
        assertThat(updated.before().orElseThrow().status()).isEqualTo(ClusterStatus.ACTIVE);
        assertThat(updated.after().orElseThrow().status()).isEqualTo(ClusterStatus.MAINTENANCE);
        assertThat(updated.after().orElseThrow().defaultReservation()).contains("res-a");
        assertThat(updated.after().orElseThrow().k8sServiceAccount())
                .as("a row from before migration V4 has no such column")
                .isEmpty();

        ClusterChange withAccount = asCluster(ChangeMapper.map(change(
                "clusters",
                "u",
                cluster("c-1"),
                with(cluster("c-1"), "k8s_service_account", "falcon-jobs"),
                binlog(2, 1))));
        assertThat(withAccount.after().orElseThrow().k8sServiceAccount()).contains("falcon-jobs");

        ClusterChange deleted =
                asCluster(ChangeMapper.map(change("clusters", "d", cluster("c-1"), null, binlog(3, 0))));
        assertThat(deleted.op()).isEqualTo(ChangeOp.DELETE);
        assertThat(deleted.after()).isEmpty();

        ClusterChange snap = asCluster(ChangeMapper.map(change("clusters", "r", null, cluster("c-2"), snapshot())));
        assertThat(snap.op()).isEqualTo(ChangeOp.SNAPSHOT);
    }

    @Test
    void aBadSpecIsPassedThroughNotDeadLettered() {
        JobChange c =
                asJob(ChangeMapper.map(change("jobs", "c", null, with(job("j-7"), "spec", "{not json"), binlog(7, 0))));
        assertThat(c.after().orElseThrow().spec()).isEqualTo("{not json");
    }

    @Test
    void eventIdIsDeterministicPerBinlogChangeAndDiffersBetweenChanges() {
        var first = asJob(ChangeMapper.map(change("jobs", "c", null, job("j-8"), binlog(800, 0))));
        var again = asJob(ChangeMapper.map(change("jobs", "c", null, job("j-8"), binlog(800, 0))));
        var otherRow = asJob(ChangeMapper.map(change("jobs", "c", null, job("j-8"), binlog(800, 1))));
        var otherPos = asJob(ChangeMapper.map(change("jobs", "u", job("j-8"), job("j-8"), binlog(900, 0))));
        var otherId = asJob(ChangeMapper.map(change("jobs", "c", null, job("j-9"), binlog(800, 0))));
        var snap1 = asJob(ChangeMapper.map(change("jobs", "r", null, job("j-8"), snapshot())));
        var snap2 = asJob(ChangeMapper.map(change("jobs", "r", null, job("j-9"), snapshot())));

        assertThat(again.meta().eventId()).isEqualTo(first.meta().eventId());
        assertThat(java.util.Set.of(
                        first.meta().eventId(),
                        otherRow.meta().eventId(),
                        otherPos.meta().eventId(),
                        otherId.meta().eventId(),
                        snap1.meta().eventId(),
                        snap2.meta().eventId()))
                .hasSize(6);
    }

    @Test
    void eventsSurviveTheTopicSerdeRoundTrip() {
        JobChange c = asJob(ChangeMapper.map(change(
                "jobs",
                "u",
                job("j-10"),
                with(job("j-10"), "timeout_seconds", 5L, "dispatched_at", "2025-03-01T10:20:00.007Z"),
                binlog(10, 0))));
        byte[] bytes = Topics.CDC_JOBS.valueSerde().serializer().serialize("t", c);
        assertThat(Topics.CDC_JOBS.valueSerde().deserializer().deserialize("t", bytes))
                .isEqualTo(c);

        ClusterChange k = asCluster(ChangeMapper.map(change("clusters", "c", null, cluster("c-9"), binlog(11, 0))));
        byte[] kb = Topics.CDC_CLUSTERS.valueSerde().serializer().serialize("t", k);
        assertThat(Topics.CDC_CLUSTERS.valueSerde().deserializer().deserialize("t", kb))
                .isEqualTo(k);
    }

    // ---- unmappable changes -> dead-letter decisions with a reason

    @Test
    void missingIdIsDeadLettered() {
        var d = dead(ChangeMapper.map(change("jobs", "c", null, without(job("x"), "id"), binlog(100, 3))));
        assertThat(d.key()).isEqualTo("falcon.jobs");
        assertThat(d.reason()).contains("falcon.jobs").contains("missing id").contains("mysql-bin.000003:100:3");
        var nullId = dead(ChangeMapper.map(change("jobs", "c", null, with(job("x"), "id", null), binlog(100, 4))));
        assertThat(nullId.reason()).contains("missing id");
    }

    @Test
    void unexpectedColumnTypeIsDeadLetteredWithTheColumnAndTheRowId() {
        var d = dead(ChangeMapper.map(
                change("jobs", "c", null, with(job("j-11"), "timeout_seconds", "soon"), binlog(200, 0))));
        assertThat(d.key()).isEqualTo("j-11");
        assertThat(d.reason())
                .contains("id=j-11")
                .contains("timeout_seconds")
                .contains("soon")
                .contains("binlog mysql-bin.000003:200:0");

        var ts = dead(ChangeMapper.map(
                change("clusters", "c", null, with(cluster("c-3"), "created_at", "yesterday"), binlog(201, 0))));
        assertThat(ts.reason()).contains("created_at").contains("yesterday");

        var bytes = dead(ChangeMapper.map(
                change("jobs", "c", null, with(job("j-12"), "spec", new byte[] {1, 2}), binlog(202, 0))));
        assertThat(bytes.reason()).contains("spec").contains("byte[2]");
    }

    @Test
    void requiredColumnNullOrMissingIsDeadLettered() {
        var nullSpec = dead(ChangeMapper.map(change("jobs", "c", null, with(job("j-13"), "spec", null), binlog(1, 0))));
        assertThat(nullSpec.reason()).contains("required column spec is NULL");
        var noActor = dead(ChangeMapper.map(change("jobs", "c", null, without(job("j-14"), "actor"), binlog(1, 0))));
        assertThat(noActor.reason()).contains("required column actor is missing");
    }

    @Test
    void missingNullableColumnIsEmptyAndUnknownColumnsAreIgnored() {
        JobRow row = asJob(ChangeMapper.map(
                        change("jobs", "c", null, with(without(job("j-15"), "job_uid"), "priority", 7), binlog(1, 0))))
                .after()
                .orElseThrow();
        assertThat(row.jobUid()).isEmpty();
    }

    @Test
    void unknownTableAndUnsupportedOpsAreDeadLettered() {
        var table = dead(ChangeMapper.map(change("users", "c", null, Map.of("id", "u1"), binlog(300, 0))));
        assertThat(table.reason()).contains("unknown table falcon.users");
        assertThat(table.key()).isEqualTo("u1");

        var truncate = dead(ChangeMapper.map(change("jobs", "t", null, null, binlog(301, 0))));
        assertThat(truncate.reason()).contains("unsupported op 't'");

        var createWithoutAfter = dead(ChangeMapper.map(change("jobs", "c", null, null, binlog(302, 0))));
        assertThat(createWithoutAfter.reason()).contains("without an after row");

        var deleteWithoutBefore = dead(ChangeMapper.map(change("jobs", "d", null, null, binlog(303, 0))));
        assertThat(deleteWithoutBefore.reason()).contains("delete without a before row");

        var keyChange = dead(ChangeMapper.map(change("jobs", "u", job("a"), job("b"), binlog(304, 0))));
        assertThat(keyChange.reason()).contains("primary key changed");
    }

    @Test
    void deadLetterCarriesPositionAndTheChangeAsJsonPayload() throws Exception {
        var d = dead(ChangeMapper.map(
                change("jobs", "u", job("j-16"), with(job("j-16"), "timeout_seconds", "soon"), binlog(400, 1))));
        DeadLetter letter = d.letter();
        assertThat(letter.sourceTopic()).isEqualTo("binlog:falcon.jobs");
        assertThat(letter.offset()).isEqualTo(400);
        assertThat(letter.partition()).isEqualTo(-1);
        assertThat(letter.key()).contains("j-16");
        assertThat(letter.meta().producer()).isEqualTo("cdc-ingest");
        assertThat(letter.errorClass()).isNotBlank();
        var payload = Json.mapper()
                .readTree(new String(Base64.getDecoder().decode(letter.payloadBase64()), StandardCharsets.UTF_8));
        assertThat(payload.get("table").asText()).isEqualTo("jobs");
        assertThat(payload.get("op").asText()).isEqualTo("u");
        assertThat(payload.get("after").get("timeout_seconds").asText()).isEqualTo("soon");
        assertThat(payload.get("source").get("pos").asLong()).isEqualTo(400);
        // redelivery of the same unmappable change is recognisable
        var again = dead(ChangeMapper.map(
                change("jobs", "u", job("j-16"), with(job("j-16"), "timeout_seconds", "soon"), binlog(400, 1))));
        assertThat(again.letter().meta().eventId()).isEqualTo(letter.meta().eventId());
        // and the envelope round-trips through the topic serde
        byte[] bytes = Topics.DEAD_LETTER.valueSerde().serializer().serialize("t", letter);
        assertThat(Topics.DEAD_LETTER.valueSerde().deserializer().deserialize("t", bytes))
                .isEqualTo(letter);
        assertThat(Optional.of(letter.reason()))
                .hasValueSatisfying(r -> assertThat(r).contains("400"));
    }
}
