package io.falcon.executor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.Events;
import io.falcon.executor.Fixtures;
import io.falcon.executor.RecordingSink;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The driver's tick on stepping threads: every due pool's step runs apart from the others, so that one pool's slow GKE
 * calls never hold up another's, and a step still under way is not queued again.
 */
class NodePoolDriverTest {
    private static final Duration POLL = Duration.ofSeconds(1);

    private final ExecutorService threads = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** GKE as far as a creation's steps see it: the pool is never listed yet, and reads can be made to block. */
    private static final class SlowGke implements GkeApi {
        final AtomicInteger readsUnderWay = new AtomicInteger();
        final AtomicInteger mostAtOnce = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();
        volatile CountDownLatch gate = new CountDownLatch(0);

        @Override
        public Optional<PoolInfo> getPool(ClusterTarget cluster, String pool) {
            reads.incrementAndGet();
            int now = readsUnderWay.incrementAndGet();
            mostAtOnce.accumulateAndGet(now, Math::max);
            try {
                gate.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                readsUnderWay.decrementAndGet();
            }
            return Optional.empty();
        }

        @Override
        public String createPool(ClusterTarget cluster, EnsureNodePool command, Instant createdAt) {
            return "operation-" + command.nodePoolName();
        }

        @Override
        public String deletePool(ClusterTarget cluster, String pool) {
            return "operation-delete-" + pool;
        }

        @Override
        public OperationInfo operation(ClusterTarget cluster, String operation) {
            return new OperationInfo(false, Optional.empty(), "RUNNING");
        }

        @Override
        public PoolOperations operations(ClusterTarget cluster, String pool) {
            return new PoolOperations(Optional.empty(), Optional.empty());
        }

        @Override
        public List<PoolInfo> listPools(ClusterTarget cluster) {
            return List.of();
        }

        @Override
        public Capacity reservation(ClusterTarget cluster, String reservation) {
            return new Capacity(reservation, 64, 0);
        }
    }

    private static final EdgeApi NO_NODES = new EdgeApi() {
        @Override
        public NodeCount nodes(ClusterTarget cluster, String pool) {
            return new NodeCount(0, 0);
        }

        @Override
        public String createJob(ClusterTarget cluster, io.falcon.events.executor.ExecutorCommand.EnsureJob command) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<FoundJob> findJob(ClusterTarget cluster, String name) {
            return Optional.empty();
        }

        @Override
        public boolean deleteJob(ClusterTarget cluster, String name) {
            return true;
        }

        @Override
        public int unfinishedPods(ClusterTarget cluster, String k8sJobName) {
            return 0;
        }
    };

    private static NodePoolDriver driver(GkeApi gke) {
        Clock clock = Clock.fixed(Fixtures.T0, ZoneOffset.UTC);
        Events events = new Events("executor", clock);
        PoolReconciler reconciler = new PoolReconciler(
                new PoolReconciler.Settings(Duration.ofMinutes(10), POLL, Duration.ofMinutes(2), Duration.ofMinutes(1)),
                events,
                () -> 0.5,
                Ownership.DEFAULT);
        return new NodePoolDriver(gke, NO_NODES, reconciler, new RecordingSink(), events);
    }

    /** Three creations accepted, so that each has a step due one poll interval later. */
    private static void threeCreations(NodePoolDriver driver) {
        for (String job : List.of("job-a", "job-b", "job-c")) {
            driver.ensure(Fixtures.ensurePool(job, "2x2", SupplyMode.ON_DEMAND, null), Fixtures.T0);
        }
        assertThat(driver.inFlight()).isEqualTo(3);
    }

    @Test
    void theDueStepsOfAPollRunAtOnceOnTheSteppingThreads() throws Exception {
        SlowGke gke = new SlowGke();
        NodePoolDriver driver = driver(gke);
        threeCreations(driver);
        CountDownLatch gate = new CountDownLatch(1);
        gke.gate = gate;
        gke.mostAtOnce.set(0);

        driver.tick(() -> Fixtures.T0.plus(POLL), threads);

        // every step is in its GKE read before any returns: one after another, the first would hold up the rest
        io.falcon.testkit.Await.until(
                "three steps reading GKE at once",
                Duration.ofSeconds(10),
                () -> gke.readsUnderWay.get() == 3,
                () -> "reading: " + gke.readsUnderWay.get());
        gate.countDown();
        io.falcon.testkit.Await.until(
                "the steps done",
                Duration.ofSeconds(10),
                () -> gke.readsUnderWay.get() == 0,
                () -> "reading: " + gke.readsUnderWay.get());
        assertThat(gke.mostAtOnce.get()).isEqualTo(3);
    }

    @Test
    void aStepStillUnderWayIsNotQueuedAgainByTheNextTick() throws Exception {
        SlowGke gke = new SlowGke();
        NodePoolDriver driver = driver(gke);
        threeCreations(driver);
        CountDownLatch gate = new CountDownLatch(1);
        gke.gate = gate;
        int before = gke.reads.get();

        driver.tick(() -> Fixtures.T0.plus(POLL), threads);
        io.falcon.testkit.Await.until(
                "three steps reading GKE",
                Duration.ofSeconds(10),
                () -> gke.readsUnderWay.get() == 3,
                () -> "reading: " + gke.readsUnderWay.get());
        driver.tick(() -> Fixtures.T0.plus(POLL.multipliedBy(2)), threads);
        driver.tick(() -> Fixtures.T0.plus(POLL.multipliedBy(3)), threads);
        gate.countDown();
        io.falcon.testkit.Await.until(
                "the steps done",
                Duration.ofSeconds(10),
                () -> gke.readsUnderWay.get() == 0,
                () -> "reading: " + gke.readsUnderWay.get());

        // one read per task: the two later ticks found every task's step still queued or running
        threads.shutdown();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(gke.reads.get() - before).isEqualTo(3);
    }

    @Test
    void withSteppingThreadsACommandReturnsBeforeItsFirstStepsGkeCalls() throws Exception {
        SlowGke gke = new SlowGke();
        CountDownLatch gate = new CountDownLatch(1);
        gke.gate = gate;
        NodePoolDriver driver = driver(gke).stepsOn(threads, () -> Fixtures.T0);

        // the command loop is not held by the look-ups and the create: the task is in memory, its step on its way
        driver.ensure(Fixtures.ensurePool("job-a", "2x2", SupplyMode.ON_DEMAND, null), Fixtures.T0);
        assertThat(driver.inFlight()).isEqualTo(1);
        io.falcon.testkit.Await.until(
                "the first step reading GKE on a stepping thread",
                Duration.ofSeconds(10),
                () -> gke.readsUnderWay.get() == 1,
                () -> "reading: " + gke.readsUnderWay.get());
        gate.countDown();
        io.falcon.testkit.Await.until(
                "the first step done",
                Duration.ofSeconds(10),
                () -> gke.readsUnderWay.get() == 0 && gke.reads.get() >= 1,
                () -> "reads: " + gke.reads.get());
    }

    /** GKE that counts creations. */
    private static final class CountingGke implements GkeApi {
        final AtomicInteger creates = new AtomicInteger();
        private final SlowGke inner = new SlowGke();

        @Override
        public Optional<PoolInfo> getPool(ClusterTarget cluster, String pool) {
            return Optional.empty();
        }

        @Override
        public String createPool(ClusterTarget cluster, EnsureNodePool command, Instant createdAt) {
            creates.incrementAndGet();
            return inner.createPool(cluster, command, createdAt);
        }

        @Override
        public String deletePool(ClusterTarget cluster, String pool) {
            return inner.deletePool(cluster, pool);
        }

        @Override
        public OperationInfo operation(ClusterTarget cluster, String operation) {
            return inner.operation(cluster, operation);
        }

        @Override
        public PoolOperations operations(ClusterTarget cluster, String pool) {
            return inner.operations(cluster, pool);
        }

        @Override
        public List<PoolInfo> listPools(ClusterTarget cluster) {
            return List.of();
        }

        @Override
        public Capacity reservation(ClusterTarget cluster, String reservation) {
            return inner.reservation(cluster, reservation);
        }
    }

    @Test
    void aCreationTakenBackBeforeItsFirstStepRanIsNeverMade() {
        CountingGke gke = new CountingGke();
        java.util.Queue<Runnable> held = new java.util.ArrayDeque<>();
        NodePoolDriver driver = driver(gke).stepsOn(held::add, () -> Fixtures.T0);

        driver.ensure(Fixtures.ensurePool("job-a", "2x2", SupplyMode.ON_DEMAND, null), Fixtures.T0);
        // the scheduler takes it back (the job was aborted) before a step thread got to the creation
        driver.ensureDeleted(Fixtures.deletePool("job-a"), Fixtures.T0);
        while (!held.isEmpty()) {
            held.poll().run();
        }

        assertThat(gke.creates.get()).isZero();
    }

    @Test
    void aReservationPoolsCapacityCheckReportsTheReservationAsReadThenCreatesThePool() {
        Clock clock = Clock.fixed(Fixtures.T0, ZoneOffset.UTC);
        Events events = new Events("executor", clock);
        RecordingSink sink = new RecordingSink();
        NodePoolDriver driver = new NodePoolDriver(
                new SlowGke(),
                NO_NODES,
                new PoolReconciler(
                        new PoolReconciler.Settings(
                                Duration.ofMinutes(10), POLL, Duration.ofMinutes(2), Duration.ofMinutes(1)),
                        events,
                        () -> 0.5,
                        Ownership.DEFAULT),
                sink,
                events);

        driver.ensure(Fixtures.ensurePool("job-a", "2x2", SupplyMode.RESERVATION, "res-a"), Fixtures.T0);

        assertThat(sink.all()).hasSize(2);
        assertThat(sink.all().get(0))
                .isInstanceOfSatisfying(io.falcon.events.executor.ExecutorEvent.ReservationSeen.class, seen -> {
                    assertThat(seen.jobId()).isEqualTo("job-a");
                    assertThat(seen.reservation()).isEqualTo("res-a");
                    assertThat(seen.count())
                            .as("the reservation's count as GKE's fake answers it")
                            .isEqualTo(64);
                    assertThat(seen.inUse()).isZero();
                });
        assertThat(sink.all().get(1)).isInstanceOf(io.falcon.events.executor.ExecutorEvent.NodePoolCreating.class);
    }
}
