package io.falcon.statussink;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StatusWriterIT {
    private StatusDb db;
    private final StatusWriter writer = new StatusWriter();

    @BeforeEach
    void database() throws Exception {
        db = new StatusDb();
    }

    @Test
    void writesStatusReasonMessageAndSchedulingColumnsWithUtcTimes() throws Exception {
        db.insertJob("j1", "Pending");
        try (Connection c = db.connect()) {
            c.createStatement().execute("SET time_zone = '+00:00'");
            writer.write(c, List.of(StatusDb.status("j1", 5, Status.Succeeded, Optional.empty(), "")));
        }
        assertThat(db.column("j1", "status")).isEqualTo("Succeeded");
        assertThat(db.column("j1", "reason")).isNull();
        assertThat(db.column("j1", "cluster_id")).isEqualTo("c1");
        assertThat(db.column("j1", "node_pool_name")).isEqualTo("falcon-j1");
        long epoch = java.time.Instant.parse("2026-12-02T10:05:00Z").getEpochSecond();
        assertThat(db.column("j1", "UNIX_TIMESTAMP(finished_at)")).isEqualTo(epoch + ".123");
    }

    @Test
    void dispatchedAtIsWrittenAsTheStatusCarriesItAlsoWhenItIsGone() throws Exception {
        db.insertJob("j9", "Pending");
        Instant submitted = Instant.parse("2026-12-02T10:00:00Z");
        Instant nodesCame = Instant.parse("2026-12-02T13:00:00Z");
        try (Connection c = db.connectAtUtc()) {
            writer.write(
                    c,
                    List.of(taskStatus("j9")
                            .version(3)
                            .status(Status.Pending, Reason.Dispatching)
                            .message("K8s Job falcon-j9 已提交,等待 Pod 运行 (0/1 active)...")
                            .clusterId("c1")
                            .dispatchedAt(submitted)
                            .build()));
            assertThat(db.column("j9", "UNIX_TIMESTAMP(dispatched_at)"))
                    .startsWith(Long.toString(submitted.getEpochSecond()));
            // its pods wait for the flex-start pool's nodes: no dispatch time until they come
            writer.write(
                    c,
                    List.of(taskStatus("j9")
                            .version(4)
                            .status(Status.Pending, Reason.WaitingForNode)
                            .message(
                                    "node pool falcon-j9 control-plane RUNNING but 0/1 expected node(s) registered (Ready=0)...")
                            .clusterId("c1")
                            .build()));
            assertThat(db.column("j9", "dispatched_at")).isNull();
            assertThat(db.column("j9", "cluster_id"))
                    .as("the other columns are kept")
                    .isEqualTo("c1");
            writer.write(
                    c,
                    List.of(taskStatus("j9")
                            .version(5)
                            .status(Status.Pending, Reason.Dispatching)
                            .message("K8s Job falcon-j9 已提交,等待 Pod 运行 (0/1 active)...")
                            .dispatchedAt(nodesCame)
                            .build()));
        }
        assertThat(db.column("j9", "UNIX_TIMESTAMP(dispatched_at)"))
                .startsWith(Long.toString(nodesCame.getEpochSecond()));
        assertThat(db.column("j9", "cluster_id")).isEqualTo("c1");
    }

    @Test
    void aTerminalRowIsNeverOverwritten() throws Exception {
        db.insertJob("j1", "Pending");
        try (Connection c = db.connect()) {
            writer.write(c, List.of(StatusDb.status("j1", 5, Status.Failed, Optional.of(Reason.JobFailed), "boom")));
            StatusWriter.Outcome late = writer.write(
                    c, List.of(StatusDb.status("j1", 4, Status.Running, Optional.empty(), "Pod 运行中 (1/1 active)")));
            assertThat(late.guarded()).isEqualTo(1);
            assertThat(late.unknownJobs()).isEmpty();
        }
        assertThat(db.column("j1", "status")).isEqualTo("Failed");
        assertThat(db.column("j1", "message")).isEqualTo("boom");
    }

    @Test
    void aTerminalRowKeepsItsStatusButItsMessageMayBeAmended() throws Exception {
        db.insertJob("j2", "Pending");
        try (Connection c = db.connect()) {
            writer.write(c, List.of(StatusDb.status("j2", 5, Status.Succeeded, Optional.empty(), "")));
            // a newer event that would change the terminal status or reason changes nothing
            StatusWriter.Outcome other = writer.write(
                    c, List.of(StatusDb.status("j2", 6, Status.Failed, Optional.of(Reason.JobFailed), "late")));
            assertThat(other.guarded()).isEqualTo(1);
            // the same status with an amended message (a pool deletion that keeps failing) is written
            StatusWriter.Outcome amended = writer.write(
                    c,
                    List.of(StatusDb.status(
                            "j2", 7, Status.Succeeded, Optional.empty(), "(node pool falcon-j2 删除失败,重试中: quota)")));
            assertThat(amended.applied()).isEqualTo(1);
        }
        assertThat(db.column("j2", "status")).isEqualTo("Succeeded");
        assertThat(db.column("j2", "message")).isEqualTo("(node pool falcon-j2 删除失败,重试中: quota)");
    }

    @Test
    void anAbortingRowOnlyMovesOnToATerminalStatus() throws Exception {
        db.insertJob("j1", "Aborting");
        try (Connection c = db.connect()) {
            writer.write(c, List.of(StatusDb.status("j1", 3, Status.Running, Optional.empty(), "running")));
            assertThat(db.column("j1", "status")).isEqualTo("Aborting");
            writer.write(c, List.of(StatusDb.status("j1", 4, Status.Aborted, Optional.empty(), "用户中止")));
        }
        assertThat(db.column("j1", "status")).isEqualTo("Aborted");
        assertThat(db.column("j1", "aborted_at")).isNotNull();
    }

    @Test
    void aBatchReplayedAfterACrashNeverMovesTheRowBack() throws Exception {
        db.insertJob("j1", "Pending");
        var batch = List.of(
                StatusDb.status("j1", 1, Status.Pending, Optional.of(Reason.Provisioning), "creating"),
                StatusDb.status("j1", 2, Status.Pending, Optional.of(Reason.Dispatching), "submitting"),
                StatusDb.status("j1", 3, Status.Running, Optional.empty(), "Pod 运行中 (1/1 active)"));
        try (Connection c = db.connect()) {
            writer.write(c, batch);
            // the crash came between the database commit and the offset commit: the same batch again
            StatusWriter.Outcome replay = writer.write(c, batch.subList(0, 2));
            assertThat(replay.applied()).isZero();
            assertThat(db.column("j1", "status")).isEqualTo("Running");
            writer.write(c, batch);
        }
        assertThat(db.column("j1", "status")).isEqualTo("Running");
        assertThat(db.column("j1", "message")).isEqualTo("Pod 运行中 (1/1 active)");
    }

    @Test
    void theAbortingRaceKeepsAborting() throws Exception {
        db.insertJob("j1", "Pending");
        try (Connection c = db.connect()) {
            writer.write(c, List.of(StatusDb.status("j1", 1, Status.Pending, Optional.of(Reason.Dispatching), "")));
            // the upper component aborts while the Running event is on its way
            c.createStatement()
                    .executeUpdate("UPDATE jobs SET status = 'Aborting', aborting_at = NOW(3) WHERE id = 'j1'");
            writer.write(c, List.of(StatusDb.status("j1", 2, Status.Running, Optional.empty(), "running")));
            assertThat(db.column("j1", "status")).isEqualTo("Aborting");
            writer.write(
                    c,
                    List.of(
                            StatusDb.status("j1", 3, Status.Aborting, Optional.empty(), "正在中止"),
                            StatusDb.status("j1", 4, Status.Aborted, Optional.empty(), "用户中止")));
        }
        assertThat(db.column("j1", "status")).isEqualTo("Aborted");
        assertThat(db.column("j1", "aborted_at")).isNotNull();
    }

    @Test
    void theTransitionsOfAJobWithinOneBatchAreGuardedInVersionOrder() throws Exception {
        db.insertJob("j1", "Pending");
        try (Connection c = db.connect()) {
            StatusWriter.Outcome outcome = writer.write(
                    c,
                    List.of(
                            StatusDb.status("j1", 1, Status.Pending, Optional.of(Reason.Provisioning), "creating"),
                            StatusDb.status("j1", 3, Status.Running, Optional.empty(), "running"),
                            // reordered on the way: older than the Running one just before it in the same batch
                            StatusDb.status("j1", 2, Status.Pending, Optional.of(Reason.Dispatching), "submitting")));
            assertThat(outcome.applied()).isEqualTo(2);
            assertThat(outcome.guarded()).isEqualTo(1);
        }
        assertThat(db.column("j1", "status")).isEqualTo("Running");
        assertThat(db.column("j1", "message")).isEqualTo("running");
    }

    @Test
    void aTerminalStatusAndItsAmendmentInOneBatchAreBothWritten() throws Exception {
        db.insertJob("j1", "Pending");
        try (Connection c = db.connect()) {
            StatusWriter.Outcome outcome = writer.write(
                    c,
                    List.of(
                            StatusDb.status("j1", 1, Status.Failed, Optional.of(Reason.NodePoolFailed), "quota"),
                            StatusDb.status(
                                    "j1",
                                    2,
                                    Status.Failed,
                                    Optional.of(Reason.NodePoolFailed),
                                    "quota (node pool falcon-j1 删除失败,重试中)")));
            assertThat(outcome.applied()).isEqualTo(2);
        }
        assertThat(db.column("j1", "message")).isEqualTo("quota (node pool falcon-j1 删除失败,重试中)");
    }

    @Test
    void aTerminalRowWithoutAVersionIsSealed() throws Exception {
        // terminal without any version Falcon wrote: pruned after the retention (or written by someone else)
        db.insertJob("j1", "Aborted");
        try (Connection c = db.connect()) {
            StatusWriter.Outcome outcome =
                    writer.write(c, List.of(StatusDb.status("j1", 9, Status.Aborted, Optional.empty(), "用户中止")));
            assertThat(outcome.guarded()).isEqualTo(1);
        }
        assertThat(db.column("j1", "message")).isNull();
        assertThat(db.column("j1", "aborted_at")).isNull();
    }

    @Test
    void eventsForUnknownJobsAreReportedNotWritten() throws Exception {
        try (Connection c = db.connect()) {
            StatusWriter.Outcome outcome = writer.write(
                    c, List.of(StatusDb.status("ghost", 1, Status.Pending, Optional.of(Reason.Waiting), "")));
            assertThat(outcome.unknownJobs()).extracting(s -> s.jobId()).containsExactly("ghost");
        }
    }
}
