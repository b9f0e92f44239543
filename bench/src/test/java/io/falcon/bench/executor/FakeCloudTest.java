package io.falcon.bench.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.TpuSlice;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.Events;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.core.ApiException;
import io.falcon.executor.core.EdgeApi;
import io.falcon.executor.core.GkeApi;
import io.falcon.executor.core.JobDriver;
import io.falcon.executor.core.NodePoolDriver;
import io.falcon.executor.core.Ownership;
import io.falcon.executor.core.PoolReconciler;
import io.falcon.executor.gke.NodePoolSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The fake GKE and Kubernetes APIs answer as the executor's reconciler and job driver need them to. */
class FakeCloudTest {
    private static final Instant NOW = Instant.parse("2026-05-04T10:00:00Z");
    private static final Duration POLL = Duration.ofMillis(200);

    private final ApiCalls calls = new ApiCalls();
    private final FakeGke gke =
            new FakeGke(CloudLatency.NONE, NodePoolSpec.ScaleDown.DEFAULT, Ownership.DEFAULT, calls);
    private final FakeEdge edges = new FakeEdge(CloudLatency.NONE, Ownership.DEFAULT, calls, gke);
    private final List<PlannedJob> plan = PlannedJob.plan("fake-test", 3, 2, Ownership.DEFAULT.installation());
    private final List<ExecutorEvent> emitted = new CopyOnWriteArrayList<>();
    private final Events events = new Events("executor", Clock.systemUTC());

    @Test
    void aCreatedPoolIsFoundRunningOwnedAndAtFullSizeWithItsOperationDone() {
        PlannedJob job = plan.get(1); // 2x4
        ExecutorCommand.EnsureNodePool command = job.ensureNodePool(SupplyMode.ON_DEMAND, NOW);
        int hosts = TpuSlice.resolve(PlannedJob.TPU_TYPE, job.topology()).vms();

        assertThat(gke.getPool(job.cluster(), job.nodePool())).isEmpty();
        String operation = gke.createPool(job.cluster(), command, NOW);

        GkeApi.PoolInfo pool = gke.getPool(job.cluster(), job.nodePool()).orElseThrow();
        assertThat(pool.name()).isEqualTo(job.nodePool());
        assertThat(pool.status()).isEqualTo(GkeApi.PoolStatus.RUNNING);
        assertThat(Ownership.DEFAULT.ownsPool(pool)).isTrue();
        assertThat(pool.creatorJobId()).contains(job.jobId());
        assertThat(pool.labels())
                .containsAllEntriesOf(Ownership.DEFAULT.labels(job.jobId(), job.topology()))
                .containsEntry(FalconLabels.CREATED_AT, Long.toString(NOW.getEpochSecond()));
        assertThat(pool.createdAt()).contains(NOW);
        assertThat(pool.expectedHosts()).isEqualTo(hosts);
        assertThat(gke.operation(job.cluster(), operation))
                .isEqualTo(new GkeApi.OperationInfo(true, Optional.empty(), "operation DONE"));
        assertThat(gke.operations(job.cluster(), job.nodePool()).lastCreate()).contains(NOW);
        assertThat(edges.nodes(job.cluster(), job.nodePool())).isEqualTo(new EdgeApi.NodeCount(hosts, hosts));
        assertThat(gke.listPools(job.cluster())).containsExactly(pool);
        assertThatThrownBy(() -> gke.createPool(job.cluster(), command, NOW))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.kind()).isEqualTo(ApiException.Kind.ALREADY_EXISTS));
    }

    @Test
    void aPoolNobodyCreatedIsAbsentWithNoNodesAndNoOperations() {
        PlannedJob job = plan.get(0);
        assertThat(gke.getPool(job.cluster(), job.nodePool())).isEmpty();
        assertThat(edges.nodes(job.cluster(), job.nodePool())).isEqualTo(new EdgeApi.NodeCount(0, 0));
        assertThat(gke.operations(job.cluster(), job.nodePool()))
                .isEqualTo(new GkeApi.PoolOperations(Optional.empty(), Optional.empty()));
        assertThatThrownBy(() -> gke.operation(job.cluster(), "projects/p/locations/l/operations/none"))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.kind()).isEqualTo(ApiException.Kind.NOT_FOUND));
    }

    @Test
    void aCreatedJobIsFoundAndOwnedByItsJobOnly() {
        PlannedJob job = plan.get(2); // 4x4
        String uid = edges.createJob(job.cluster(), job.ensureJob(NOW));

        EdgeApi.FoundJob found = edges.findJob(job.cluster(), job.k8sJob()).orElseThrow();
        assertThat(found.uid()).isEqualTo(uid);
        assertThat(Ownership.DEFAULT.ownsJob(found, job.jobId())).isTrue();
        assertThat(Ownership.DEFAULT.ownsJob(found, plan.get(0).jobId())).isFalse();
        assertThat(edges.jobCreatedNanos(job.jobId())).isPresent();
        assertThat(edges.findJob(plan.get(0).cluster(), plan.get(0).k8sJob())).isEmpty();
        assertThatThrownBy(() -> edges.createJob(job.cluster(), job.ensureJob(NOW)))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.kind()).isEqualTo(ApiException.Kind.ALREADY_EXISTS));
    }

    @Test
    void theRealPoolDriverGetsEveryKindOfPoolReadyOnItsSecondStep() {
        NodePoolDriver driver = new NodePoolDriver(
                gke,
                edges,
                new PoolReconciler(
                        new PoolReconciler.Settings(
                                Duration.ofMinutes(10), POLL, Duration.ofMinutes(2), Duration.ofMinutes(1)),
                        events,
                        () -> 0.5,
                        Ownership.DEFAULT),
                emitted::add,
                events);
        for (SupplyMode supply : SupplyMode.values()) {
            emitted.clear();
            List<PlannedJob> jobs =
                    PlannedJob.plan("fake-" + supply.wireName(), 3, 2, Ownership.DEFAULT.installation());
            jobs.forEach(job -> driver.ensure(job.ensureNodePool(supply, NOW), NOW));
            // a reservation pool's first step reads the reservation, and says what it read (ReservationSeen)
            assertThat(emitted.stream().filter(e -> !(e instanceof ExecutorEvent.ReservationSeen)))
                    .hasSize(3)
                    .allMatch(ExecutorEvent.NodePoolCreating.class::isInstance);
            assertThat(emitted.stream().filter(ExecutorEvent.ReservationSeen.class::isInstance))
                    .hasSize(supply == SupplyMode.RESERVATION ? 3 : 0);

            driver.tick(NOW.plus(POLL));

            assertThat(emitted.stream()
                            .filter(ExecutorEvent.NodePoolReady.class::isInstance)
                            .map(ExecutorEvent::jobId))
                    .as("NodePoolReady of the %s pools", supply.wireName())
                    .containsExactlyInAnyOrderElementsOf(
                            jobs.stream().map(PlannedJob::jobId).toList());
            assertThat(driver.inFlight()).isZero();
        }
    }

    @Test
    void theRealJobDriverSubmitsOnceAndAdoptsItsOwnJobOnARedelivery() {
        JobDriver driver = new JobDriver(edges, emitted::add, events, Ownership.DEFAULT);
        PlannedJob job = plan.get(0);

        driver.ensure(job.ensureJob(NOW));
        driver.ensure(job.ensureJob(NOW)); // redelivered: ALREADY_EXISTS, then adopted as this job's

        assertThat(emitted)
                .hasSize(2)
                .allSatisfy(event -> assertThat(event)
                        .isInstanceOfSatisfying(ExecutorEvent.JobSubmitted.class, submitted -> {
                            assertThat(submitted.jobId()).isEqualTo(job.jobId());
                            assertThat(submitted.jobUid())
                                    .isEqualTo(edges.findJob(job.cluster(), job.k8sJob())
                                            .orElseThrow()
                                            .uid());
                        }));
    }
}
