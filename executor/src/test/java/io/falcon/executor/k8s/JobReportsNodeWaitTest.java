package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * WaitingForNode of a submitted Job (issue 19): its pods Unschedulable on a pool with fewer Ready nodes than the
 * slice's VMs, as the informers see the rendered Job and its pods (through {@link Fabric8Views}).
 */
class JobReportsNodeWaitTest {
    private static final Instant NOW = Instant.parse("2026-04-15T10:05:00Z");
    private final JobReports reports =
            new JobReports(new Events("executor", Clock.fixed(NOW, ZoneOffset.UTC)), Duration.ofMinutes(2));
    /** v7x 2x2x4: four VMs, four pods, on pool falcon-job-1. */
    private final Job job = new JobBuilder(
                    new JobRenderer("default").render(Fixtures.ensureJob("job-1", "2x2x4", Fixtures.spec())))
            .editMetadata()
            .withUid("uid-1")
            .endMetadata()
            .build();

    private Optional<ExecutorEvent> evaluate(List<Pod> pods, Function<String, Optional<EdgeApi.NodeCount>> nodes) {
        return reports.evaluate(
                Fixtures.cluster(),
                Fabric8Views.job(job),
                pods.stream().map(Fabric8Views::pod).toList(),
                nodes,
                NOW);
    }

    private static Function<String, Optional<EdgeApi.NodeCount>> count(int registered, int ready) {
        return pool -> pool.equals("falcon-job-1")
                ? Optional.of(new EdgeApi.NodeCount(registered, ready))
                : Optional.of(new EdgeApi.NodeCount(99, 99));
    }

    @Test
    void theRenderedJobNamesItsPoolAndAnUnschedulablePodIsSeen() {
        assertThat(Fabric8Views.job(job).nodePool()).contains("falcon-job-1");
        assertThat(Fabric8Views.pod(pod("p0", "Unschedulable")).unschedulable()).isTrue();
        assertThat(Fabric8Views.pod(pod("p0", "SchedulerError")).unschedulable())
                .isFalse();
        assertThat(Fabric8Views.pod(pod("p0", null)).unschedulable()).isFalse();
    }

    @Test
    void unschedulablePodsReportThePoolsCountOncePerChangeThenTheEndOfTheWaitOnce() {
        List<Pod> waiting = pods("Unschedulable");
        assertThat(evaluate(waiting, count(0, 0)))
                .get()
                .isInstanceOfSatisfying(ExecutorEvent.NodePoolWaitingForNodes.class, w -> {
                    assertThat(w.jobId()).isEqualTo("job-1");
                    assertThat(w.nodePoolName()).isEqualTo("falcon-job-1");
                    assertThat(List.of(w.registered(), w.ready(), w.expected())).containsExactly(0, 0, 4);
                });
        assertThat(evaluate(waiting, count(0, 0))).as("the same count again").isEmpty();
        assertThat(evaluate(waiting, count(4, 2)))
                .get()
                .isInstanceOfSatisfying(
                        ExecutorEvent.NodePoolWaitingForNodes.class,
                        w -> assertThat(w.ready()).isEqualTo(2));

        List<Pod> scheduled = pods(null);
        assertThat(evaluate(scheduled, count(4, 4)))
                .as("the wait is over")
                .get()
                .isInstanceOfSatisfying(
                        ExecutorEvent.NodePoolWaitingForNodes.class,
                        w -> assertThat(w.ready()).isEqualTo(4));
        assertThat(evaluate(scheduled, count(4, 4))).isEmpty();
    }

    @Test
    void pendingPodsThatAreNotUnschedulableAskForNoCountAndReportNothing() {
        AtomicInteger asked = new AtomicInteger();
        assertThat(evaluate(pods(null), pool -> {
                    asked.incrementAndGet();
                    return Optional.of(new EdgeApi.NodeCount(0, 0));
                }))
                .isEmpty();
        assertThat(asked).hasValue(0);
    }

    @Test
    void anUnschedulablePodOnAPoolWithAllItsNodesReadyIsNoWaitForNodes() {
        // not bound yet, or unschedulable for another reason: the dispatch deadline decides, nothing is reported
        assertThat(evaluate(pods("Unschedulable"), count(4, 4))).isEmpty();
        assertThat(evaluate(pods("Unschedulable"), count(4, 4))).isEmpty();
        assertThat(evaluate(pods("Unschedulable"), count(4, 3)))
                .as("a node went")
                .isPresent();
    }

    @Test
    void withoutACountNothingIsReportedUntilOneCanBeMade() {
        List<Pod> waiting = pods("Unschedulable");
        assertThat(evaluate(waiting, pool -> Optional.empty())).isEmpty();
        assertThat(evaluate(waiting, count(0, 0))).isPresent();
    }

    private List<Pod> pods(String unschedulableReason) {
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            pods.add(pod("falcon-job-1-" + i, unschedulableReason));
        }
        return pods;
    }

    /** A Pending pod of the Job; with a reason, its PodScheduled condition is False for it. */
    private Pod pod(String name, String unschedulableReason) {
        PodBuilder pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("job-name", job.getMetadata().getName())
                .addNewOwnerReference()
                .withKind("Job")
                .withName(job.getMetadata().getName())
                .withUid("uid-1")
                .endOwnerReference()
                .endMetadata();
        if (unschedulableReason == null) {
            return pod.withNewStatus().withPhase("Pending").endStatus().build();
        }
        return pod.withNewStatus()
                .withPhase("Pending")
                .addNewCondition()
                .withType("PodScheduled")
                .withStatus("False")
                .withReason(unschedulableReason)
                .withMessage("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.")
                .endCondition()
                .endStatus()
                .build();
    }
}
