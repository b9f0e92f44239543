package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.Events;
import io.falcon.executor.Fixtures;
import io.falcon.executor.core.EdgeApi;
import io.falcon.executor.core.JobReports;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What a Job's delete event reports: its end, when it had finished (a lost end, or one a short TTL overtook, still
 * reaches the scheduler), else that it was deleted before it finished, which ends a job that counts on it at once
 * rather than at its execution deadline (issue 30 item 3: a TPU Job deleted by hand left its slice idle for 24 h).
 */
class JobGoneTest {
    private static final Instant NOW = Instant.parse("2026-04-15T10:05:00Z");
    private final JobReports reports =
            new JobReports(new Events("executor", Clock.fixed(NOW, ZoneOffset.UTC)), Duration.ofMinutes(2));

    private static Job job(String condition) {
        JobBuilder b = new JobBuilder(
                        new JobRenderer("default").render(Fixtures.ensureJob("job-1", "2x2x4", Fixtures.spec())))
                .editMetadata()
                .withUid("uid-1")
                .endMetadata();
        if (condition != null) {
            b.withNewStatus()
                    .addNewCondition()
                    .withType(condition)
                    .withStatus("True")
                    .withReason("BackoffLimitExceeded")
                    .endCondition()
                    .endStatus();
        }
        return b.build();
    }

    private Optional<ExecutorEvent> gone(Job job, boolean unknown) {
        return reports.gone(Fixtures.cluster(), Fabric8Views.job(job), List.of(), unknown, NOW);
    }

    @Test
    void aJobDeletedBeforeItFinishedIsReportedFailedSayingItWasDeletedOutsideFalcon() {
        assertThat(gone(job(null), false)).get().isInstanceOfSatisfying(ExecutorEvent.JobFailed.class, f -> {
            assertThat(f.jobId()).isEqualTo("job-1");
            assertThat(f.clusterId()).isEqualTo("c-1");
            assertThat(f.k8sJobName()).isEqualTo("falcon-job-1");
            assertThat(f.message())
                    .isEqualTo("the Kubernetes Job falcon-job-1 was deleted outside Falcon before it finished;"
                            + " its pods are gone with it");
        });
    }

    @Test
    void aDeletionTheWatchMissedSaysTheLastStateWasNotSeen() {
        assertThat(gone(job(null), true))
                .get()
                .isInstanceOfSatisfying(
                        ExecutorEvent.JobFailed.class,
                        f -> assertThat(f.message()).contains("its last state was not seen"));
    }

    @Test
    void aFinishedJobRemovedHasItsEndReportedEvenRightAfterTheSameReport() {
        Job succeeded = job("Complete");
        assertThat(reports.evaluate(
                        Fixtures.cluster(),
                        Fabric8Views.job(succeeded),
                        List.of(),
                        pool -> Optional.of(new EdgeApi.NodeCount(4, 4)),
                        NOW))
                .get()
                .isInstanceOf(ExecutorEvent.JobSucceeded.class);
        // removed (TTL, or an operator) before the end was reported again: the report may have been lost
        assertThat(gone(succeeded, false)).get().isInstanceOf(ExecutorEvent.JobSucceeded.class);
        assertThat(gone(job("Failed"), false))
                .get()
                .isInstanceOfSatisfying(
                        ExecutorEvent.JobFailed.class,
                        f -> assertThat(f.message()).startsWith("Job failed: BackoffLimitExceeded"));
    }

    @Test
    void whatWasReportedOfADeletedJobIsSentAgainAfterAFailedSendForAnHourAndNoLonger() {
        // succeeded, then deleted by hand 4 s later: its success goes out once, and that send fails for good
        Optional<ExecutorEvent> success = gone(job("Complete"), false);
        assertThat(success).get().isInstanceOf(ExecutorEvent.JobSucceeded.class);
        reports.forgetAll();
        // the Job cannot be read again: only the report kept says it succeeded (the inventory only that it is gone)
        assertThat(reports.goneAgain(NOW.plusSeconds(30))).containsExactly(success.get());
        assertThat(reports.goneAgain(NOW.plus(JobReports.RETAIN_GONE).minusSeconds(1)))
                .containsExactly(success.get());
        assertThat(reports.goneAgain(NOW.plus(JobReports.RETAIN_GONE).plusSeconds(1)))
                .isEmpty();
    }

    @Test
    void aJobDeletedTwiceUnderOneNameKeepsItsLatestReport() {
        gone(job(null), false);
        Optional<ExecutorEvent> latest = gone(job("Failed"), false);
        assertThat(reports.goneAgain(NOW)).containsExactly(latest.get());
    }

    private ExecutorEvent.ObservedJob listed(Job job) {
        return reports.inventory(Fixtures.cluster(), List.of(Fabric8Views.job(job)), List.of())
                .jobs()
                .get(0);
    }

    @Test
    void theInventoryListsHowAFinishedJobEndedAsItsReportWouldSayIt() {
        assertThat(listed(job(null)).end()).as("still going").isEmpty();
        assertThat(listed(job("Complete")).end()).contains(new ExecutorEvent.ObservedEnd(true, ""));
        ExecutorEvent.ObservedJob failed = listed(job("Failed"));
        assertThat(failed.finished()).isTrue();
        assertThat(failed.end()).get().satisfies(end -> {
            assertThat(end.succeeded()).isFalse();
            assertThat(end.message()).isEqualTo("Job failed: BackoffLimitExceeded");
            // whose doing it was, as the JobFailed would have said: a listing ends a job as the lost report would have
            assertThat(end.cause().kind()).isEqualTo(io.falcon.events.executor.FailureCause.Kind.APPLICATION);
        });
    }
}
