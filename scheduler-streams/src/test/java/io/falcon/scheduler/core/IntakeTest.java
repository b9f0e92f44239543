package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.TestRows;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.cdc.SourcePosition;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Only the upper components' two writes are intents; everything else is Falcon's own echo. */
class IntakeTest {
    private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");
    private final JobRow pending = TestRows.job("j1", "alice", "v6e", "2x4", TestRows.SPEC);

    @Test
    void anInsertSubmitsWithTheRowsCreationTime() {
        Optional<Intake.Intent> intent = Intake.classify(TestRows.inserted(pending), NOW);
        assertThat(intent).get().isInstanceOf(Intake.Submit.class);
        assertThat(((Intake.Submit) intent.get()).request().submittedAt()).isEqualTo(pending.createdAt().get());
    }

    @Test
    void theTransitionToAbortingAborts() {
        JobRow aborting = TestRows.withStatus(pending, "Aborting");
        assertThat(Intake.classify(TestRows.updated(pending, aborting), NOW)).get()
                .isEqualTo(new Intake.Abort("j1", aborting.abortingAt().get()));
    }

    @Test
    void statusSinkEchoesAreNotIntents() {
        JobRow running = TestRows.withStatus(pending, "Running");
        JobRow aborting = TestRows.withStatus(pending, "Aborting");
        assertThat(Intake.classify(TestRows.updated(pending, running), NOW)).isEmpty();
        assertThat(Intake.classify(TestRows.updated(aborting, aborting), NOW)).isEmpty();
        assertThat(Intake.classify(TestRows.updated(aborting, TestRows.withStatus(pending, "Aborted")), NOW))
                .isEmpty();
        assertThat(Intake.classify(change(ChangeOp.DELETE, Optional.of(pending), Optional.empty()), NOW)).isEmpty();
    }

    @Test
    void aSnapshotResubmitsLiveRowsOnlyAndAbortsAbortingOnes() {
        assertThat(Intake.classify(change(ChangeOp.SNAPSHOT, Optional.empty(), Optional.of(pending)), NOW)).get()
                .isInstanceOf(Intake.Submit.class);
        assertThat(Intake.classify(change(ChangeOp.SNAPSHOT, Optional.empty(),
                Optional.of(TestRows.withStatus(pending, "Succeeded"))), NOW)).isEmpty();
        assertThat(Intake.classify(change(ChangeOp.SNAPSHOT, Optional.empty(),
                Optional.of(TestRows.withStatus(pending, "Aborting"))), NOW)).get()
                .isInstanceOf(Intake.Abort.class);
    }

    private static JobChange change(ChangeOp op, Optional<JobRow> before, Optional<JobRow> after) {
        return new JobChange(Meta.of("test", NOW), op, before, after, new SourcePosition("f", 1, 0, 0));
    }
}
