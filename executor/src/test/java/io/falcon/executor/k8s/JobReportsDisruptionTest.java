package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.FailureCause;
import io.falcon.executor.Events;
import io.falcon.executor.Fixtures;
import io.falcon.executor.core.EdgeApi;
import io.falcon.executor.core.JobReports;
import io.falcon.executor.core.JobView;
import io.falcon.executor.core.PodView;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An evicted or preempted pod is deleted once it has terminated, and the Job's Failed condition says only
 * BackoffLimitExceeded: a Job read again after its JobFailed was lost (or listed by the inventory) must still read as
 * the fleet's doing, as first seen, and be retried (found by the simulation's eviction fault: seeds 115, 227, 677 and
 * 1666 of 1..2000 ended Failed/JobFailed "Job failed: BackoffLimitExceeded" instead of running again).
 */
class JobReportsDisruptionTest {
    private static final Instant NOW = Instant.parse("2026-04-15T10:05:00Z");
    private final JobReports reports =
            new JobReports(new Events("executor", Clock.fixed(NOW, ZoneOffset.UTC)), Duration.ofMinutes(2));

    /** The Job, failed as the Job controller marks it when a pod fails (backoffLimit 0, no podFailurePolicy). */
    private final JobView failed = Fabric8Views.job(
            new JobBuilder(new JobRenderer("default").render(Fixtures.ensureJob("job-1", "2x2x1", Fixtures.spec())))
                    .editMetadata()
                    .withUid("uid-1")
                    .endMetadata()
                    .withNewStatus()
                    .addNewCondition()
                    .withType("Failed")
                    .withStatus("True")
                    .withReason("BackoffLimitExceeded")
                    .withMessage("Job has reached the specified backoff limit")
                    .endCondition()
                    .endStatus()
                    .build());

    /** Its pod, evicted: terminating with DisruptionTarget, the workload's exit on SIGTERM. */
    private PodView evicted() {
        return new PodView(
                failed.name() + "-0",
                Optional.of(failed.name()),
                Optional.of(failed.uid()),
                "Failed",
                true,
                Optional.of(NOW),
                Optional.of(NOW),
                "",
                "",
                false,
                List.of(new PodView.Container(
                        Optional.of(new PodView.Terminated(143, "Error")), Optional.empty(), Optional.empty())),
                Optional.of("EvictionByEvictionAPI"));
    }

    private Optional<ExecutorEvent> evaluate(List<PodView> pods, Instant at) {
        return reports.evaluate(Fixtures.cluster(), failed, pods, pool -> Optional.of(new EdgeApi.NodeCount(1, 1)), at);
    }

    private static final FailureCause EVICTED = FailureCause.infrastructure("DisruptionTarget: EvictionByEvictionAPI");

    @Test
    void aFailureReadAgainAfterItsEvictedPodWasDeletedIsStillTheFleets() {
        ExecutorEvent first = evaluate(List.of(evicted()), NOW).orElseThrow();
        assertThat(((ExecutorEvent.JobFailed) first).cause()).isEqualTo(EVICTED);
        // the report's send failed for good: every Job is reported again, its pod deleted meanwhile
        reports.forgetAll();
        ExecutorEvent again = evaluate(List.of(), NOW.plusSeconds(30)).orElseThrow();
        assertThat(((ExecutorEvent.JobFailed) again).cause()).isEqualTo(EVICTED);
        assertThat(((ExecutorEvent.JobFailed) again).message())
                .isEqualTo("Pod disrupted: DisruptionTarget: EvictionByEvictionAPI"
                        + " (Job failed: BackoffLimitExceeded (Job has reached the specified backoff limit))");
        ExecutorEvent.ObservedEnd listed = reports.inventory(Fixtures.cluster(), List.of(failed), List.of())
                .jobs()
                .get(0)
                .end()
                .orElseThrow();
        assertThat(listed.cause()).isEqualTo(EVICTED);
    }

    @Test
    void aJobNeverSeenDisruptedReadsAsItsProgramsFailure() {
        ExecutorEvent failure = evaluate(List.of(), NOW).orElseThrow();
        assertThat(((ExecutorEvent.JobFailed) failure).cause().infrastructure()).isFalse();
    }

    @Test
    void whatWasSeenGoesWithTheJob() {
        evaluate(List.of(evicted()), NOW);
        reports.forget(failed.uid());
        ExecutorEvent failure = evaluate(List.of(), NOW.plusSeconds(30)).orElseThrow();
        assertThat(((ExecutorEvent.JobFailed) failure).cause().infrastructure()).isFalse();
    }
}
