package io.falcon.scheduler.core;

import static io.falcon.testkit.builders.JobRowBuilder.jobRow;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.cdc.SourcePosition;
import io.falcon.testkit.builders.JobRowBuilder;
import io.falcon.testkit.builders.RowChangeBuilder;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Only the upper components' two writes are intents; everything else is Falcon's own echo. */
class IntakeTest {
    private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");
    private static final Instant ABORTING_AT = Instant.parse("2026-12-02T09:30:00Z");
    private final JobRow pending = jobRow("j1").build();

    @Test
    void anInsertSubmitsAtItsCommitTimeAndKeepsTheRowsCreationTimeForDisplay() {
        Instant committed = NOW.minusSeconds(5);
        Optional<Intake.Intent> intent = Intake.classify(
                RowChangeBuilder.inserted(pending)
                        .source(new io.falcon.events.cdc.SourcePosition(
                                "mysql-bin.000002", 1234, 1, committed.toEpochMilli()))
                        .build(),
                NOW);
        assertThat(intent).get().isInstanceOf(Intake.Submit.class);
        JobRequest request = ((Intake.Submit) intent.get()).request();
        assertThat(request.submittedAt()).isEqualTo(committed);
        assertThat(request.createdAt()).isEqualTo(pending.createdAt().get());
        assertThat(request.commitOrder()).isEqualTo(ValidRequest.commitOrderOf("mysql-bin.000002", 1234, 1));
    }

    @Test
    void aSnapshotRowHasNoCommitTimeAndSubmitsAtItsCreationTimeNeverLaterThanTheRead() {
        JobRow future =
                JobRowBuilder.from(pending).createdAt(NOW.plusSeconds(3600)).build();
        JobRequest request = ((Intake.Submit)
                        Intake.classify(RowChangeBuilder.snapshotted(pending).build(), NOW)
                                .orElseThrow())
                .request();
        assertThat(request.submittedAt()).isEqualTo(pending.createdAt().get());
        assertThat(request.commitOrder()).isZero();
        assertThat(((Intake.Submit) Intake.classify(
                                        RowChangeBuilder.snapshotted(future).build(), NOW)
                                .orElseThrow())
                        .request()
                        .submittedAt())
                .isEqualTo(NOW);
    }

    @Test
    void binlogPositionsOrderAsTheLogDoes() {
        assertThat(ValidRequest.commitOrderOf("mysql-bin.000002", 4, 0))
                .isGreaterThan(ValidRequest.commitOrderOf("mysql-bin.000001", 900_000_000, 7));
        assertThat(ValidRequest.commitOrderOf("mysql-bin.000002", 400, 0))
                .isGreaterThan(ValidRequest.commitOrderOf("mysql-bin.000002", 399, 4000));
        assertThat(ValidRequest.commitOrderOf("mysql-bin.000002", 400, 1))
                .isGreaterThan(ValidRequest.commitOrderOf("mysql-bin.000002", 400, 0));
    }

    @Test
    void theTransitionToAbortingAborts() {
        JobRow aborting = JobRowBuilder.from(pending).aborting(ABORTING_AT).build();
        assertThat(Intake.classify(updated(pending, aborting), NOW))
                .get()
                .isEqualTo(new Intake.Abort("j1", aborting.abortingAt().get()));
    }

    @Test
    void statusSinkEchoesAreNotIntents() {
        JobRow running = JobRowBuilder.from(pending).status("Running").build();
        JobRow aborting = JobRowBuilder.from(pending).aborting(ABORTING_AT).build();
        assertThat(Intake.classify(updated(pending, running), NOW)).isEmpty();
        assertThat(Intake.classify(updated(aborting, aborting), NOW)).isEmpty();
        assertThat(Intake.classify(
                        updated(
                                aborting,
                                JobRowBuilder.from(pending).status("Aborted").build()),
                        NOW))
                .isEmpty();
        assertThat(Intake.classify(change(ChangeOp.DELETE, Optional.of(pending), Optional.empty()), NOW))
                .isEmpty();
    }

    @Test
    void aSnapshotResubmitsLiveRowsOnlyAndAbortsAbortingOnes() {
        assertThat(Intake.classify(change(ChangeOp.SNAPSHOT, Optional.empty(), Optional.of(pending)), NOW))
                .get()
                .isInstanceOf(Intake.Submit.class);
        assertThat(Intake.classify(
                        change(
                                ChangeOp.SNAPSHOT,
                                Optional.empty(),
                                Optional.of(JobRowBuilder.from(pending)
                                        .status("Succeeded")
                                        .build())),
                        NOW))
                .isEmpty();
        assertThat(Intake.classify(
                        change(
                                ChangeOp.SNAPSHOT,
                                Optional.empty(),
                                Optional.of(JobRowBuilder.from(pending)
                                        .aborting(ABORTING_AT)
                                        .build())),
                        NOW))
                .get()
                .isInstanceOf(Intake.Abort.class);
    }

    @Test
    void item13_aSnapshotRowCarryingFalconsStatusIsMarkedSoAForgottenJobIsNotRunAgain() {
        JobRow waiting =
                JobRowBuilder.from(pending).reason("Waiting").message("队列位置 #1").build();
        JobRow running = JobRowBuilder.from(pending)
                .status("Running")
                .clusterId("c1")
                .dispatchedAt(ABORTING_AT)
                .build();
        for (JobRow written : java.util.List.of(waiting, running)) {
            assertThat(Intake.classify(change(ChangeOp.SNAPSHOT, Optional.empty(), Optional.of(written)), NOW))
                    .get()
                    .isInstanceOfSatisfying(
                            Intake.Submit.class,
                            s -> assertThat(s.rowWrittenByFalcon()).isTrue());
        }
        // a row no status of Falcon's has reached (inserted while cdc-ingest was away), and every insert, run
        assertThat(Intake.classify(change(ChangeOp.SNAPSHOT, Optional.empty(), Optional.of(pending)), NOW))
                .get()
                .isInstanceOfSatisfying(
                        Intake.Submit.class,
                        s -> assertThat(s.rowWrittenByFalcon()).isFalse());
        assertThat(Intake.classify(RowChangeBuilder.inserted(waiting).build(), NOW))
                .get()
                .isInstanceOfSatisfying(
                        Intake.Submit.class,
                        s -> assertThat(s.rowWrittenByFalcon()).isFalse());
    }

    @Test
    void item11_aStatusFalconNeverWritesIsARewriteToBeAnswered() {
        JobRow running = JobRowBuilder.from(pending).status("Running").build();
        JobRow succeeded = JobRowBuilder.from(pending).status("Succeeded").build();
        // back to Pending, from a job that ran or ended, and a value that is no status
        assertThat(Intake.classify(updated(running, pending), NOW)).contains(new Intake.Rewrite("j1", "Pending"));
        assertThat(Intake.classify(updated(succeeded, pending), NOW)).contains(new Intake.Rewrite("j1", "Pending"));
        assertThat(Intake.classify(
                        updated(
                                succeeded,
                                JobRowBuilder.from(pending).status("Cancelled").build()),
                        NOW))
                .contains(new Intake.Rewrite("j1", "Cancelled"));
        assertThat(Intake.classify(updated(succeeded, running), NOW)).contains(new Intake.Rewrite("j1", "Running"));
        // Falcon's own moves are not
        assertThat(Intake.classify(updated(pending, running), NOW)).isEmpty();
        assertThat(Intake.classify(updated(running, succeeded), NOW)).isEmpty();
        // nor is Falcon's answer to a rewrite: from a value that is no status back to the job's own
        assertThat(Intake.classify(
                        updated(JobRowBuilder.from(pending).status("Cancelled").build(), succeeded), NOW))
                .isEmpty();
    }

    @Test
    void item12_aChangedPriorityColumnIsAReprioritization() {
        JobRow raised = JobRowBuilder.from(pending).priority(7).build();
        assertThat(Intake.classify(updated(pending, raised), NOW))
                .contains(new Intake.Reprioritize("j1", Optional.of(7L)));
        // with an abort in the same write, the abort wins
        JobRow abortedAndRaised =
                JobRowBuilder.from(pending).priority(7).aborting(ABORTING_AT).build();
        assertThat(Intake.classify(updated(pending, abortedAndRaised), NOW))
                .get()
                .isInstanceOf(Intake.Abort.class);
    }

    private static JobChange updated(JobRow before, JobRow after) {
        return RowChangeBuilder.updated(before, after).build();
    }

    private static JobChange change(ChangeOp op, Optional<JobRow> before, Optional<JobRow> after) {
        return new JobChange(Meta.of("test", NOW), op, before, after, new SourcePosition("f", 1, 0, 0));
    }
}
