package io.falcon.cdc;

import static io.falcon.cdc.CdcFixture.insertCluster;
import static io.falcon.cdc.CdcFixture.insertJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.ClusterStatus;
import io.falcon.events.DeadLetter;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.testkit.Await;
import io.falcon.testkit.kafka.TopicReader;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Real MariaDB binlog -> Debezium -> real Kafka, per test its own database and topics. */
class CdcIngestIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String SPEC =
            "{\"image\":\"gcr.io/p/train:1\",\"command\":[\"python\",\"train.py\"]," + "\"env\":{\"A\":\"b\"}}";

    private static List<JobChange> of(List<JobChange> changes, String id, ChangeOp op) {
        return changes.stream()
                .filter(c -> c.jobId().equals(id) && c.op() == op)
                .toList();
    }

    @Test
    void snapshotsExistingRowsThenStreamsInsertUpdateDeleteWithBeforeAndAfter() {
        try (CdcFixture f = new CdcFixture()) {
            f.sql(insertJob("pre-1", SPEC), insertJob("pre-2", "{not json at all"), insertCluster("c-1", "active"));

            CdcIngest ingest = f.startIngest();

            List<JobChange> snap = f.jobs()
                    .awaitValues(
                            "snapshot of pre-1 and pre-2",
                            WAIT,
                            v -> !of(v, "pre-1", ChangeOp.SNAPSHOT).isEmpty()
                                    && !of(v, "pre-2", ChangeOp.SNAPSHOT).isEmpty());
            JobChange pre1 = of(snap, "pre-1", ChangeOp.SNAPSHOT).get(0);
            assertThat(pre1.before()).isEmpty();
            JobRow row = pre1.after().orElseThrow();
            assertThat(row.spec()).isEqualTo(SPEC);
            assertThat(row.createdAt()).contains(Instant.parse("2025-03-01T10:15:30.123Z"));
            assertThat(row.updatedAt()).contains(Instant.parse("2025-03-01T10:15:30.123Z"));
            assertThat(row.status()).isEqualTo("Pending");
            assertThat(row.supplyMode()).isEmpty();
            assertThat(row.timeoutSeconds()).isEmpty();
            assertThat(row.dispatchedAt()).isEmpty();
            assertThat(pre1.meta().producer()).isEqualTo("cdc-ingest");
            assertThat(of(snap, "pre-2", ChangeOp.SNAPSHOT)
                            .get(0)
                            .after()
                            .orElseThrow()
                            .spec())
                    .isEqualTo("{not json at all");
            assertThat(f.jobs().records())
                    .allSatisfy(r -> assertThat(r.key()).isEqualTo(r.value().jobId()));

            List<ClusterChange> clusters = f.clusters().awaitValues("snapshot of c-1", WAIT, v -> !v.isEmpty());
            assertThat(clusters.get(0).op()).isEqualTo(ChangeOp.SNAPSHOT);
            assertThat(clusters.get(0).after().orElseThrow().createdAt())
                    .contains(Instant.parse("2025-01-02T03:04:05.006Z"));
            assertThat(clusters.get(0).after().orElseThrow().isActive()).isTrue();

            // streaming
            f.sql(insertJob("new-1", SPEC));
            f.sql("UPDATE jobs SET status = 'Aborting', aborting_at = '2025-03-01 10:30:00.456', "
                    + "timeout_seconds = 3600, supply_mode = 'flex-start' WHERE id = 'new-1'");
            f.sql("DELETE FROM jobs WHERE id = 'pre-2'");
            f.sql("UPDATE clusters SET status = 'maintenance' WHERE id = 'c-1'");
            f.sql(insertCluster("c-2", "offline"));

            List<JobChange> all = f.jobs()
                    .awaitValues(
                            "create/update of new-1 and delete of pre-2",
                            WAIT,
                            v -> !of(v, "new-1", ChangeOp.CREATE).isEmpty()
                                    && !of(v, "new-1", ChangeOp.UPDATE).isEmpty()
                                    && !of(v, "pre-2", ChangeOp.DELETE).isEmpty());
            JobChange created = of(all, "new-1", ChangeOp.CREATE).get(0);
            assertThat(created.before()).isEmpty();
            assertThat(created.after().orElseThrow().createdAt()).contains(Instant.parse("2025-03-01T10:15:30.123Z"));
            assertThat(created.source().binlogFile()).isNotBlank();
            assertThat(created.source().binlogPosition()).isPositive();

            JobChange updated = of(all, "new-1", ChangeOp.UPDATE).get(0);
            assertThat(updated.before().orElseThrow().status()).isEqualTo("Pending");
            assertThat(updated.before().orElseThrow().abortingAt()).isEmpty();
            assertThat(updated.after().orElseThrow().status()).isEqualTo("Aborting");
            assertThat(updated.after().orElseThrow().abortingAt()).contains(Instant.parse("2025-03-01T10:30:00.456Z"));
            assertThat(updated.after().orElseThrow().timeoutSeconds()).contains(3600L);
            assertThat(updated.after().orElseThrow().supplyMode()).contains("flex-start");
            assertThat(updated.source().binlogPosition())
                    .isGreaterThan(created.source().binlogPosition());

            JobChange deleted = of(all, "pre-2", ChangeOp.DELETE).get(0);
            assertThat(deleted.after()).isEmpty();
            assertThat(deleted.before().orElseThrow().spec()).isEqualTo("{not json at all");
            // no tombstones: every record on the topic has a value
            assertThat(f.jobs().records()).allSatisfy(r -> assertThat(r.value()).isNotNull());

            List<ClusterChange> cl = f.clusters()
                    .awaitValues(
                            "cluster update and insert",
                            WAIT,
                            v -> v.stream().anyMatch(c -> c.op() == ChangeOp.UPDATE)
                                    && v.stream().anyMatch(c -> c.op() == ChangeOp.CREATE));
            ClusterChange maint = cl.stream()
                    .filter(c -> c.op() == ChangeOp.UPDATE)
                    .findFirst()
                    .orElseThrow();
            assertThat(maint.before().orElseThrow().status()).isEqualTo(ClusterStatus.ACTIVE);
            assertThat(maint.after().orElseThrow().status()).isEqualTo(ClusterStatus.MAINTENANCE);
            ClusterChange c2 = cl.stream()
                    .filter(c -> c.op() == ChangeOp.CREATE)
                    .findFirst()
                    .orElseThrow();
            assertThat(c2.clusterId()).isEqualTo("c-2");
            assertThat(c2.after().orElseThrow().status()).isEqualTo(ClusterStatus.OFFLINE);

            assertThat(ingest.state()).isEqualTo(CdcIngest.State.RUNNING);
            assertThat(ingest.engineStarts()).isEqualTo(1);
        }
    }

    @Test
    void jobAndClusterChangesReachTheSchedulerInTheOrderTheDatabaseCommittedThem() {
        try (CdcFixture f = new CdcFixture();
                TopicReader<String, io.falcon.events.SchedulerInput> input = TopicReader.fromBeginning(
                        io.falcon.embedded.SharedInfra.kafka().bootstrapServers(),
                        io.falcon.events.Topics.SCHEDULER_INPUT)) {
            String cluster = "ord-c-" + Long.toHexString(System.nanoTime());
            String job = "ord-j-" + Long.toHexString(System.nanoTime());
            f.sql(insertCluster(cluster, "active"), insertJob(job, SPEC));
            f.startIngest();
            f.jobs()
                    .awaitValues(
                            "the snapshot",
                            WAIT,
                            v -> v.stream().anyMatch(c -> c.jobId().equals(job)));
            f.sql("UPDATE clusters SET status = 'maintenance' WHERE id = '" + cluster + "'");
            f.sql("UPDATE jobs SET message = 'a status write-back, not for the scheduler' WHERE id = '" + job + "'");
            f.sql("UPDATE jobs SET status = 'Aborting' WHERE id = '" + job + "'");
            f.sql("UPDATE clusters SET status = 'active' WHERE id = '" + cluster + "'");

            java.util.function.Function<io.falcon.events.SchedulerInput, String> describe = in -> {
                if (in instanceof io.falcon.events.SchedulerInput.ClusterChanged c
                        && c.change().clusterId().equals(cluster)) {
                    return "cluster "
                            + c.change().after().orElseThrow().status().wireName();
                }
                if (in instanceof io.falcon.events.SchedulerInput.JobChanged j
                        && j.change().jobId().equals(job)) {
                    return "job " + j.change().after().orElseThrow().status();
                }
                return "";
            };
            List<String> mine = input
                    .awaitValues(
                            "the four changes in order",
                            WAIT,
                            v -> v.stream()
                                            .map(describe)
                                            .filter(d -> !d.isEmpty())
                                            .count()
                                    >= 5)
                    .stream()
                    .map(describe)
                    .filter(d -> !d.isEmpty())
                    .toList();
            // the snapshot reads the clusters table before the jobs table (the scheduler must know a job's clusters
            // before it places it); from then on the binlog's commit order holds
            assertThat(mine.subList(0, 2)).containsExactly("cluster active", "job Pending");
            assertThat(mine.subList(2, mine.size()))
                    .containsExactly("cluster maintenance", "job Aborting", "cluster active");
            assertThat(input.records())
                    .filteredOn(r -> !describe.apply(r.value()).isEmpty())
                    .allSatisfy(r -> assertThat(r.key()).as("keyed by tpu_type").isEqualTo("v5e"));
        }
    }

    @Test
    void anUnmappableChangeGoesToTheDeadLetterTopicAndTheStreamGoesOn() {
        try (CdcFixture f = new CdcFixture()) {
            CdcIngest ingest = f.startIngest();
            f.sql(insertJob("ok-1", SPEC));
            f.jobs()
                    .awaitValues(
                            "ok-1",
                            WAIT,
                            v -> v.stream().anyMatch(c -> c.jobId().equals("ok-1")));

            // Someone changes a column's type: the row can no longer be mapped to a JobRow.
            f.sql("ALTER TABLE jobs MODIFY COLUMN timeout_seconds VARCHAR(32) NULL");
            f.sql(insertJob("bad-1", SPEC), "UPDATE jobs SET timeout_seconds = 'soon' WHERE id = 'bad-1'");
            f.sql(insertJob("ok-2", SPEC));

            List<DeadLetter> dead = f.deadLetters()
                    .awaitValues(
                            "dead letter for bad-1",
                            WAIT,
                            v -> v.stream().anyMatch(d -> d.key().equals(Optional.of("bad-1"))));
            DeadLetter letter = dead.stream()
                    .filter(d -> d.key().equals(Optional.of("bad-1")))
                    .findFirst()
                    .orElseThrow();
            assertThat(letter.reason())
                    .contains(f.name + ".jobs")
                    .contains("id=bad-1")
                    .contains("timeout_seconds")
                    .contains("soon")
                    .contains("binlog ");
            assertThat(letter.sourceTopic()).isEqualTo("binlog:" + f.name + ".jobs");
            assertThat(letter.offset()).isPositive();
            assertThat(letter.meta().producer()).isEqualTo("cdc-ingest");
            assertThat(letter.payloadBase64()).isNotEmpty();

            // the insert of bad-1 (timeout NULL) maps fine; the stream continues after the dead letter
            // (keyed by job id, the two may sit on different partitions: either may be read first)
            List<JobChange> jobs = f.jobs()
                    .awaitValues(
                            "ok-2 and the insert of bad-1 after the dead letter",
                            WAIT,
                            v -> v.stream().anyMatch(c -> c.jobId().equals("ok-2"))
                                    && v.stream()
                                            .anyMatch(c -> c.jobId().equals("bad-1") && c.op() == ChangeOp.CREATE));
            assertThat(jobs).noneMatch(c -> c.jobId().equals("bad-1") && c.op() == ChangeOp.UPDATE);
            // counters move when the batch is finished, a moment after the records became visible
            Await.until(
                    "the dead letter counted",
                    Duration.ofSeconds(10),
                    () -> ingest.publishedCounts().get("deadLetters") >= 1,
                    () -> "counts " + ingest.publishedCounts());
            assertThat(ingest.publishedCounts().get("deadLetters")).isEqualTo(1L);
            assertThat(ingest.engineStarts()).isEqualTo(1);
        }
    }

    @Test
    void closeRightAfterStartStopsPromptlyAndAClosedServiceCannotRestart() {
        try (CdcFixture f = new CdcFixture()) {
            CdcIngest ingest = f.startIngest();
            long t0 = System.nanoTime();
            ingest.close();
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(tookMs).isLessThan(20_000);
            assertThat(ingest.state()).isEqualTo(CdcIngest.State.CLOSED);
            assertThat(Thread.getAllStackTraces().keySet())
                    .noneMatch(t -> t.getName().equals("falcon-cdc-ingest-" + f.config.engineName()) && t.isAlive());
            org.assertj.core.api.Assertions.assertThatThrownBy(ingest::start).isInstanceOf(IllegalStateException.class);
            ingest.close(); // idempotent
        }
    }
}
