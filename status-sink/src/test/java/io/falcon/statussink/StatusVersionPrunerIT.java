package io.falcon.statussink;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StatusVersionPrunerIT {
    private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
    private static final Duration RETENTION = Duration.ofHours(24);

    private StatusDb db;

    @BeforeEach
    void database() throws Exception {
        db = new StatusDb();
    }

    private static StatusWriter writerAt(Instant now) {
        return new StatusWriter(Clock.fixed(now, ZoneOffset.UTC));
    }

    @Test
    void removesOnlyVersionsOfJobsTerminalForLongerThanTheRetention() throws Exception {
        List<String> old = List.of("old-1", "old-2", "old-3", "old-4", "old-5");
        for (String id : old) {
            db.insertJob(id, "Pending");
        }
        db.insertJob("running", "Pending");
        db.insertJob("recent", "Pending");
        try (Connection c = db.connectAtUtc()) {
            StatusWriter atT0 = writerAt(T0);
            atT0.write(c, List.of(StatusDb.status("running", 1, Status.Running, Optional.empty(), "")));
            for (String id : old) {
                atT0.write(c, List.of(StatusDb.status(id, 1, Status.Failed, Optional.of(Reason.JobFailed), "boom")));
            }
            writerAt(T0.plus(Duration.ofHours(23)))
                    .write(c, List.of(StatusDb.status("recent", 1, Status.Succeeded, Optional.empty(), "")));

            // batches of 2: five old versions take three statements
            int deleted = new StatusVersionPruner(RETENTION, 2)
                    .prune(c, T0.plus(RETENTION).plusSeconds(1));

            assertThat(deleted).isEqualTo(5);
        }
        assertThat(db.versionedJobs()).containsExactly("recent", "running");
    }

    @Test
    void aTerminalWriteAtTheCutoffIsKept() throws Exception {
        db.insertJob("j1", "Pending");
        try (Connection c = db.connectAtUtc()) {
            writerAt(T0).write(c, List.of(StatusDb.status("j1", 1, Status.Succeeded, Optional.empty(), "")));
            assertThat(new StatusVersionPruner(RETENTION, 10).prune(c, T0.plus(RETENTION)))
                    .isZero();
        }
        assertThat(db.versionedJobs()).containsExactly("j1");
    }

    @Test
    void anAmendedMessageRestartsTheRetention() throws Exception {
        db.insertJob("j1", "Pending");
        try (Connection c = db.connectAtUtc()) {
            writerAt(T0).write(c, List.of(StatusDb.status("j1", 5, Status.Succeeded, Optional.empty(), "")));
            writerAt(T0.plus(Duration.ofHours(20)))
                    .write(
                            c,
                            List.of(StatusDb.status(
                                    "j1", 6, Status.Succeeded, Optional.empty(), "(node pool 删除失败,重试中: quota)")));
            new StatusVersionPruner(RETENTION, 10).prune(c, T0.plus(Duration.ofHours(25)));
        }
        assertThat(db.versionedJobs()).containsExactly("j1");
    }

    @Test
    void aStaleEventAfterPruningLeavesTheTerminalRowAsItIs() throws Exception {
        db.insertJob("j1", "Pending");
        try (Connection c = db.connectAtUtc()) {
            StatusWriter writer = writerAt(T0);
            writer.write(c, List.of(StatusDb.status("j1", 1, Status.Pending, Optional.of(Reason.Provisioning), "")));
            writer.write(c, List.of(StatusDb.status("j1", 5, Status.Failed, Optional.of(Reason.JobFailed), "boom")));
            new StatusVersionPruner(RETENTION, 10).prune(c, T0.plus(Duration.ofHours(25)));
            assertThat(db.versionedJobs()).doesNotContain("j1");

            // Redelivered long after: an older event with the terminal status and reason (which a version would
            // have refused, and which the terminal-row guard alone would take for an amendment), and a Running one.
            StatusWriter.Outcome late = writerAt(T0.plus(Duration.ofHours(26)))
                    .write(
                            c,
                            List.of(
                                    StatusDb.status(
                                            "j1", 4, Status.Failed, Optional.of(Reason.JobFailed), "an older message"),
                                    StatusDb.status("j1", 3, Status.Running, Optional.empty(), "Pod 运行中")));

            assertThat(late.applied()).isZero();
            assertThat(late.guarded()).isEqualTo(2);
        }
        assertThat(db.column("j1", "status")).isEqualTo("Failed");
        assertThat(db.column("j1", "reason")).isEqualTo("JobFailed");
        assertThat(db.column("j1", "message")).isEqualTo("boom");
        // nothing applied, so no version comes back to be pruned again
        assertThat(db.versionedJobs()).doesNotContain("j1");
    }
}
