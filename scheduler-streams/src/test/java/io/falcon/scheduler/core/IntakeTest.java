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
    void anInsertSubmitsWithTheRowsCreationTime() {
        Optional<Intake.Intent> intent =
                Intake.classify(RowChangeBuilder.inserted(pending).build(), NOW);
        assertThat(intent).get().isInstanceOf(Intake.Submit.class);
        assertThat(((Intake.Submit) intent.get()).request().submittedAt())
                .isEqualTo(pending.createdAt().get());
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

    private static JobChange updated(JobRow before, JobRow after) {
        return RowChangeBuilder.updated(before, after).build();
    }

    private static JobChange change(ChangeOp op, Optional<JobRow> before, Optional<JobRow> after) {
        return new JobChange(Meta.of("test", NOW), op, before, after, new SourcePosition("f", 1, 0, 0));
    }
}
