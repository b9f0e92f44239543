package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.PriorityLimits;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.cdc.SourcePosition;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.testkit.builders.JobRowBuilder;
import io.falcon.testkit.builders.RowChangeBuilder;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What one tenant must not be able to do to another through the rows it writes (issue 31, items 3 and 4): jump the
 * queues, fill them, or exhaust the scheduler's heap.
 */
class TenancyTest {
    private static final Instant T = Instant.parse("2026-12-02T09:59:00Z");

    /** The row as cdc-ingest publishes its INSERT, committed at the binlog's time and position. */
    private static JobRequest inserted(JobRow row, Instant committedAt, long position) {
        JobChange change = RowChangeBuilder.inserted(row)
                .source(new SourcePosition("mysql-bin.000007", position, 0, committedAt.toEpochMilli()))
                .build();
        Intake.Submit submit =
                (Intake.Submit) Intake.classify(change, T.plusSeconds(600)).orElseThrow();
        return submit.request();
    }

    private static JobRowBuilder row(String id, String actor) {
        return JobRowBuilder.jobRow(id).actor(actor).tpuType("v6e").topology("2x4");
    }

    /** The slot holder's pods run: the queue's next job takes the slot by the pick rule. */
    private static String nextAfter(SchedulerFixture f, String holder, String... candidates) {
        f.startRunning(holder);
        for (String id : candidates) {
            if (f.last(id).reason().filter(Reason.Provisioning::equals).isPresent()) {
                return id;
            }
        }
        return "none";
    }

    @Test
    void item3_aRowBackdatedTo1970DoesNotJumpAheadOfSubmissionsCommittedBeforeIt() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
        f.submit(inserted(row("a1", "alice").build(), T, 100));
        f.submit(inserted(row("b1", "bob").build(), T.plusSeconds(1), 200));
        f.submit(inserted(row("m1", "mallory").createdAt(Instant.EPOCH).build(), T.plusSeconds(2), 300));

        assertThat(nextAfter(f, "a1", "b1", "m1")).isEqualTo("b1");
        // the row's created_at is kept for display and identity, not for order
        assertThat(f.scheduler.jobs().stream()
                        .filter(j -> j.id().equals("m1"))
                        .findFirst()
                        .orElseThrow()
                        .request()
                        .createdAt())
                .isEqualTo(Instant.EPOCH);
    }

    @Test
    void item3_submissionsCommittedInTheSameSecondGoInBinlogOrderNotByTheIdTheyChose() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
        f.submit(inserted(row("a1", "alice").build(), T, 100));
        // the binlog's times are whole seconds: bob's INSERT was first in that second, mallory picked an id that
        // sorts first
        f.submit(inserted(row("zz-bob", "bob").build(), T.plusSeconds(1), 200));
        f.submit(inserted(row("00-mallory", "mallory").build(), T.plusSeconds(1), 300));

        assertThat(nextAfter(f, "a1", "zz-bob", "00-mallory")).isEqualTo("zz-bob");
    }

    @Test
    void item3_aDatabaseClockAheadCannotPutAJobBehindLaterOnes() {
        assertThat(inserted(row("j1", "alice").build(), T.plusSeconds(3600), 1).submittedAt())
                .isEqualTo(T.plusSeconds(600));
    }

    @Test
    void item3_aPriorityBeyondItsActorsRangeIsRefusedNamingTheField() {
        PriorityLimits limits = PriorityLimits.parse("*=0..0,oncall=0..100");
        SchedulerFixture f = new SchedulerFixture(SchedulerSettings.defaults()
                        .withAcquirersPerQueue(1)
                        .withAdmission(Admission.defaults().withPriorityLimits(limits)))
                .withCluster("c1", "v6e");
        f.submit(inserted(row("m1", "mallory").priority(1000).build(), T, 1));
        f.submit(inserted(
                row("m2", "mallory")
                        .spec("{\"image\":\"i\",\"command\":[\"x\"],\"priority\":5}")
                        .build(),
                T,
                2));
        f.submit(inserted(row("o1", "oncall").priority(50).build(), T, 3));

        assertThat(f.last("m1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("m1").reason()).contains(Reason.InvalidSpec);
        assertThat(f.last("m1").message()).contains("priority must be between 0 and 0 for actor 'mallory'");
        assertThat(f.last("m2").message()).contains("spec.priority must be between 0 and 0");
        assertThat(f.last("o1").status()).isEqualTo(Status.Pending);
    }

    @Test
    void item3_aPriorityChangeBeyondItsActorsRangeIsRefusedVisibly() {
        PriorityLimits limits = PriorityLimits.parse("*=-5..5");
        SchedulerFixture f = new SchedulerFixture(SchedulerSettings.defaults()
                        .withAcquirersPerQueue(1)
                        .withAdmission(Admission.defaults().withPriorityLimits(limits)))
                .withCluster("c1", "v6e");
        f.submit("a1", "alice").submit("a2", "alice");
        f.record(f.scheduler.reprioritize("a2", Optional.of(1000L), f.now));
        assertThat(f.last("a2").message()).contains("refused").contains("between -5 and 5");
    }

    @Test
    void item4_aSpecOverTheLimitEndsInvalidSpecNamingTheLimit() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
        String big = "{\"image\":\"i\",\"command\":[\"x\"],\"args\":[\"" + "a".repeat(60_000) + "\"]}";
        f.submit(inserted(row("big", "alice").spec(big).build(), T, 1));
        assertThat(f.last("big").reason()).contains(Reason.InvalidSpec);
        assertThat(f.last("big").message())
                .contains("spec is " + (big.length()) + " bytes; at most 8192")
                .contains("falcon.scheduler.max-spec-bytes");
        assertThat(f.scheduler.jobs()).isEmpty();
    }

    @Test
    void item4_anActorAtItsCapHasItsNextSubmissionRefusedAndOthersAreNotTouched() {
        SchedulerFixture f = new SchedulerFixture(SchedulerSettings.defaults()
                        .withAcquirersPerQueue(1)
                        .withAdmission(Admission.defaults().withLiveJobCaps(3, 100)))
                .withCluster("c1", "v6e");
        for (int i = 0; i < 4; i++) {
            f.submit("m" + i, "mallory");
        }
        f.submit("a1", "alice");
        assertThat(f.last("m3").status()).isEqualTo(Status.Failed);
        assertThat(f.last("m3").reason()).contains(Reason.TooManyJobs);
        assertThat(f.last("m3").message()).contains("'mallory' already has 3 jobs");
        assertThat(f.last("a1").status()).isEqualTo(Status.Pending);

        // a redelivery of the refused INSERT once mallory's count dropped is a duplicate: it stays refused
        f.abort("m1").abort("m2");
        f.submit("m3", "mallory");
        assertThat(f.last("m3").reason()).contains(Reason.TooManyJobs);
        // a new submission is taken again
        f.submit("m4", "mallory");
        assertThat(f.last("m4").status()).isEqualTo(Status.Pending);
    }

    @Test
    void aWaitingJobsMessageNamesOtherTenantsJobsOnlyWhenTheOperatorLetsIt() {
        for (WhoIsAhead shown : WhoIsAhead.values()) {
            SchedulerFixture f = new SchedulerFixture(SchedulerSettings.defaults()
                            .withAcquirersPerQueue(1)
                            .withWhoIsAhead(shown))
                    .withCluster("c1", "v6e");
            f.submit("a1", "alice").submit("b1", "bob").submit("a2", "alice");
            String message = f.last("a2").message();
            assertThat(message).as(shown.name()).startsWith("队列位置 #3,前面有 2 个任务");
            switch (shown) {
                case NAMES -> assertThat(message).contains("alice: name-a1").contains("bob: name-b1");
                case OWN ->
                    assertThat(message)
                            .contains("alice: name-a1")
                            .contains("另有 1 个其他用户的任务")
                            .doesNotContain("bob");
                case COUNT -> assertThat(message).doesNotContain("alice").doesNotContain("bob");
            }
        }
    }

    @Test
    void item4_manyActorsTogetherStopAtTheOverallCap() {
        SchedulerFixture f = new SchedulerFixture(SchedulerSettings.defaults()
                        .withAcquirersPerQueue(1)
                        .withAdmission(Admission.defaults().withLiveJobCaps(10, 5)))
                .withCluster("c1", "v6e");
        for (int i = 0; i < 6; i++) {
            f.submit("j" + i, "actor-" + i);
        }
        assertThat(f.last("j5").reason()).contains(Reason.TooManyJobs);
        assertThat(f.last("j5").message()).contains("falcon.scheduler.max-live-jobs allows");
        assertThat(f.scheduler.jobs()).hasSize(5);
    }
}
