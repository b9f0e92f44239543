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
 * A Job's end is reported again while the Job stays: a report lost on its way (a send that failed for good while
 * the process stayed up) would otherwise leave the job Running until its deadline, and a success would end as a
 * Timeout (found by the simulation's lost-report fault: 143 of seeds 2000001..2003000).
 */
class JobReportsAgainTest {
    private static final Instant NOW = Instant.parse("2026-04-15T10:05:00Z");
    private final JobReports reports =
            new JobReports(new Events("executor", Clock.fixed(NOW, ZoneOffset.UTC)), Duration.ofMinutes(2));

    private final Job succeeded = new JobBuilder(
                    new JobRenderer("default").render(Fixtures.ensureJob("job-1", "2x2x4", Fixtures.spec())))
            .editMetadata()
            .withUid("uid-1")
            .endMetadata()
            .withNewStatus()
            .addNewCondition()
            .withType("Complete")
            .withStatus("True")
            .endCondition()
            .endStatus()
            .build();

    private Optional<ExecutorEvent> evaluate(Instant at) {
        return reports.evaluate(
                Fixtures.cluster(),
                Fabric8Views.job(succeeded),
                List.of(),
                pool -> Optional.of(new EdgeApi.NodeCount(4, 4)),
                at);
    }

    @Test
    void theEndIsReportedOnceThenAgainAfterTheIntervalWhileTheJobStays() {
        assertThat(evaluate(NOW)).get().isInstanceOf(ExecutorEvent.JobSucceeded.class);
        assertThat(evaluate(NOW.plusSeconds(5)))
                .as("not at every informer event")
                .isEmpty();
        assertThat(evaluate(NOW.plus(JobReports.REPORT_AGAIN_AFTER).minusSeconds(1)))
                .isEmpty();
        Instant again = NOW.plus(JobReports.REPORT_AGAIN_AFTER);
        assertThat(evaluate(again)).get().isInstanceOf(ExecutorEvent.JobSucceeded.class);
        assertThat(evaluate(again.plusSeconds(5))).isEmpty();
    }

    @Test
    void aJobGoneAndForgottenIsReportedAfresh() {
        assertThat(evaluate(NOW)).isPresent();
        reports.forget("uid-1");
        assertThat(evaluate(NOW.plusSeconds(1))).isPresent();
    }
}
