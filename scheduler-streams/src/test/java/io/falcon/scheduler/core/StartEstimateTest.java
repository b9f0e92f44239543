package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.StartEstimate;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Start-time estimates of waiting jobs: from the queue's history, in the Message and the status, kept quiet. */
class StartEstimateTest {
    private static final Duration HOLD = Duration.ofMinutes(10);

    private final SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");

    /** Runs n jobs one after the other, each holding the slot for exactly HOLD before its pods run. */
    private void history(int n) {
        for (int i = 0; i < n; i++) {
            String id = "h" + i;
            f.submit(id, "hist");
            f.advance(HOLD);
            f.startRunning(id);
            f.succeeded(id);
        }
    }

    private static Optional<StartEstimate> estimateOf(TaskStatus status) {
        return status.estimatedStart();
    }

    @Test
    void withoutHistoryThereIsNoEstimateAndTheMessageIsThePositionAlone() {
        history(QueueHistory.MIN_SAMPLES - 1);
        f.submit("a1", "alice").submit("b1", "bob");
        assertThat(f.last("b1").message()).isEqualTo("队列位置 #2,前面有 1 个任务 (alice: name-a1)");
        assertThat(f.last("b1").estimatedStart()).isEmpty();
    }

    @Test
    void theEstimateAddsWhatRemainsOfTheHolderTheJobsAheadAndTheJobsOwnHold() {
        history(QueueHistory.MIN_SAMPLES);
        Instant now = f.now;
        f.submit("a1", "alice").submit("b1", "bob").submit("c1", "carol");
        // a1 just took the slot (10 min to go); b1 starts when a1's pods run plus its own 10 min; c1 10 min later.
        // Every hold was exactly 10 minutes: no spread, so the interval is a point.
        assertThat(estimateOf(f.last("b1")))
                .contains(new StartEstimate(now.plus(HOLD.multipliedBy(2)), now.plus(HOLD.multipliedBy(2))));
        assertThat(estimateOf(f.last("c1")))
                .contains(new StartEstimate(now.plus(HOLD.multipliedBy(3)), now.plus(HOLD.multipliedBy(3))));
        String clock = Messages.estimate(estimateOf(f.last("c1")), now, ZoneId.of("UTC"));
        assertThat(clock).isEqualTo(",预计 11:00-11:01 开始");
        assertThat(f.last("c1").message()).isEqualTo("队列位置 #3,前面有 2 个任务 (alice: name-a1, bob: name-b1)" + clock);
        assertThat(f.last("c1").reason()).contains(Reason.Waiting);
    }

    @Test
    void aHolderRunningAsExpectedMovesNoEstimateAndASlowOneMovesThemOnlyPastTheTolerance() {
        history(QueueHistory.MIN_SAMPLES);
        // a1's Kubernetes Job is created but its pods take long: no deadline fires within the test
        f.submit("a1", "alice").submit("b1", "bob").poolReady("a1").submitted("a1");
        int published = f.statuses.size();
        Instant shown = estimateOf(f.last("b1")).orElseThrow().earliest();
        // Within its usual 10 minutes the holder's remaining time shrinks as time passes: the start stays put.
        f.advance(Duration.ofMinutes(9));
        assertThat(f.statuses).hasSize(published);
        // Past its usual hold it is expected to end any moment: the start drifts later with time, but is
        // published again only once it moved more than the tolerance (5 minutes by default).
        f.advance(Duration.ofMinutes(5)); // 14 minutes held: expected 4 minutes later than shown
        assertThat(f.statuses).hasSize(published);
        f.advance(Duration.ofMinutes(2)); // 16 minutes held: 6 minutes later than shown
        assertThat(f.statuses).hasSize(published + 1);
        assertThat(estimateOf(f.last("b1")).orElseThrow().earliest()).isEqualTo(shown.plus(Duration.ofMinutes(6)));
    }

    @Test
    void theStatusOfAJobThatLeftTheQueueCarriesNoEstimate() {
        history(QueueHistory.MIN_SAMPLES);
        f.submit("a1", "alice").submit("b1", "bob");
        assertThat(estimateOf(f.last("b1"))).isPresent();
        f.startRunning("a1");
        assertThat(f.last("b1").reason()).contains(Reason.Provisioning);
        assertThat(estimateOf(f.last("b1"))).isEmpty();
    }

    @Test
    void theSpreadOfPastHoldsWidensTheInterval() {
        // (kept under the 15-minute provisioning backstop, which would fail a pool with no word for longer)
        Duration[] holds = {Duration.ofMinutes(4), Duration.ofMinutes(10), Duration.ofMinutes(14)};
        for (int i = 0; i < holds.length; i++) {
            f.submit("h" + i, "hist");
            f.advance(holds[i]);
            f.startRunning("h" + i);
            f.succeeded("h" + i);
        }
        Instant now = f.now;
        f.submit("a1", "alice").submit("b1", "bob");
        StartEstimate estimate = estimateOf(f.last("b1")).orElseThrow();
        Instant meanStart =
                now.plus(Duration.ofMinutes(4 + 10 + 14).multipliedBy(2).dividedBy(3));
        assertThat(estimate.earliest()).isBefore(meanStart);
        assertThat(estimate.latest()).isAfter(meanStart);
    }

    @Test
    void historyIsKeptPerSupplyModeAndBounded() {
        QueueHistory history = QueueHistory.empty();
        for (int i = 0; i < QueueHistory.SAMPLES + 7; i++) {
            history = history.withAcquire(i);
        }
        assertThat(history.acquireMillis()).hasSize(QueueHistory.SAMPLES);
        assertThat(history.acquireMillis().get(0)).isEqualTo(7L); // the oldest went first
        history(QueueHistory.MIN_SAMPLES);
        assertThat(f.scheduler.histories()).containsOnlyKeys(new HistoryKey("c1", "2x4", SupplyMode.FLEX_START));
        assertThat(f.scheduler.histories().values().iterator().next().runMillis())
                .hasSize(QueueHistory.MIN_SAMPLES);
    }

    @Test
    void aSlowHolderIsExpectedToTakeWhatThePastHoldsLongerThanItsOwnTook() {
        QueueHistory history = new QueueHistory(List.of(1000L, 2000L, 9000L, 11000L), List.of());
        QueueHistory.Spread remaining = history.remainingAcquire(5000).orElseThrow();
        assertThat(remaining.mean()).isEqualTo(5000.0); // (4000 + 6000) / 2
        assertThat(history.remainingAcquire(20_000).orElseThrow().mean()).isZero();
    }

    /** The history is in the store the shell persists, and a restored scheduler estimates as before. */
    @Test
    void theHistorySurvivesARestore() {
        MemoryStore memory = new MemoryStore();
        SchedulerFixture persisted =
                new SchedulerFixture().persistingTo(memory.store()).withCluster("c1", "v6e");
        for (int i = 0; i < QueueHistory.MIN_SAMPLES; i++) {
            persisted.submit("h" + i, "hist").advance(HOLD).startRunning("h" + i);
        }
        assertThat(memory.histories).hasSize(1);
        Scheduler restored = SchedulerStore.restore(
                memory.store(), SchedulerSettings.defaults().withAcquirersPerQueue(1));
        assertThat(restored.histories()).isEqualTo(persisted.scheduler.histories());
        SchedulerFixture after = new SchedulerFixture(restored);
        after.now = persisted.now;
        after.submit("a1", "alice").submit("b1", "bob");
        assertThat(after.last("b1").estimatedStart())
                .contains(
                        new StartEstimate(after.now.plus(HOLD.multipliedBy(2)), after.now.plus(HOLD.multipliedBy(2))));
    }

    /** Runs n jobs on the one active cluster, each holding the slot for the given time. */
    private static void historyOn(SchedulerFixture fixture, String prefix, int n, Duration hold) {
        for (int i = 0; i < n; i++) {
            String id = prefix + i;
            fixture.submit(id, "hist").advance(hold).startRunning(id).succeeded(id);
        }
    }

    private static void setStatus(SchedulerFixture fixture, String clusterId, String status) {
        fixture.record(fixture.scheduler.clusterUpserted(
                SchedulerFixture.cluster(clusterId, "v6e", status, Optional.empty()), fixture.now));
    }

    /**
     * c1 takes 12 minutes to hand its slot on, c2 2 minutes: new jobs go to c2 while they are expected to start there
     * sooner, where the seed's rule alone (shortest queue, then id) would send the first to c1 and the second too.
     */
    @Test
    void aNewJobGoesWhereItIsExpectedToStartSoonest() {
        SchedulerFixture two = new SchedulerFixture().withCluster("c1", "v6e").withCluster("c2", "v6e");
        setStatus(two, "c2", "maintenance");
        historyOn(two, "slow", QueueHistory.MIN_SAMPLES, Duration.ofMinutes(12));
        setStatus(two, "c2", "active");
        setStatus(two, "c1", "maintenance");
        historyOn(two, "fast", QueueHistory.MIN_SAMPLES, Duration.ofMinutes(2));
        setStatus(two, "c1", "active");

        two.submit("a1", "alice");
        assertThat(two.last("a1").clusterId()).contains("c2");
        // c2 now: 2 minutes left of a1's hold plus its own 2 = 4, still sooner than c1's 12
        two.submit("b1", "bob");
        assertThat(two.last("b1").clusterId()).contains("c2");
        // with k jobs waiting on c2 a newcomer waits 2 + 2k + 2 minutes: under c1's 12 up to k = 3
        for (String id : List.of("b2", "b3", "b4")) {
            two.submit(id, "bob");
            assertThat(two.last(id).clusterId()).contains("c2");
        }
        // k = 4: 12 minutes on either, so the seed's rule breaks the tie: the shorter queue, c1's
        two.submit("b5", "bob");
        assertThat(two.last("b5").clusterId()).contains("c1");
    }

    @Test
    void withoutHistoryOnEveryCandidateTheSeedsRuleDecides() {
        SchedulerFixture two = new SchedulerFixture().withCluster("c1", "v6e").withCluster("c2", "v6e");
        setStatus(two, "c1", "maintenance");
        historyOn(two, "fast", QueueHistory.MIN_SAMPLES, Duration.ofMinutes(2));
        setStatus(two, "c1", "active");
        // c1 has no history: shortest queue, then id, as before
        two.submit("a1", "alice");
        assertThat(two.last("a1").clusterId()).contains("c1");
        two.submit("b1", "bob");
        assertThat(two.last("b1").clusterId()).contains("c2");
    }

    /**
     * Both clusters hand their slot on in 14 minutes. H1 holds c1's slot, H2 c2's, and P waits on c1 (equal
     * expected starts: the smaller id). A minute later H2's pods run and c2's slot is free: P would start there
     * in 14 minutes instead of 27 here, a gain above the 10-minute move gain, so it moves (and starts) if its
     * priority is above 0.
     */
    private SchedulerFixture twoBusyClustersWithAWaitingJob(long priority) {
        SchedulerFixture two = new SchedulerFixture().withCluster("c1", "v6e").withCluster("c2", "v6e");
        setStatus(two, "c2", "maintenance");
        historyOn(two, "one", QueueHistory.MIN_SAMPLES, Duration.ofMinutes(14));
        setStatus(two, "c2", "active");
        setStatus(two, "c1", "maintenance");
        historyOn(two, "two", QueueHistory.MIN_SAMPLES, Duration.ofMinutes(14));
        setStatus(two, "c1", "active");
        two.submit("h1", "alice").submit("h2", "bob");
        assertThat(two.last("h1").clusterId()).contains("c1");
        assertThat(two.last("h2").clusterId()).contains("c2");
        two.submit(SchedulerFixture.request("p", "carol", "v6e", "2x4", SchedulerFixture.SPEC)
                .withPriority(priority));
        assertThat(two.last("p").clusterId()).contains("c1");
        two.advance(Duration.ofMinutes(1)).startRunning("h2");
        return two;
    }

    @Test
    void aWaitingHigherPriorityJobMovesToTheClusterWhereItStartsSoonerByMoreThanTheGain() {
        SchedulerFixture two = twoBusyClustersWithAWaitingJob(3);
        two.advance(Duration.ofMinutes(1));
        assertThat(two.last("p").clusterId()).contains("c2");
        assertThat(two.last("p").reason()).contains(Reason.Provisioning);
        assertThat(two.lastCommand(io.falcon.events.executor.ExecutorCommand.EnsureNodePool.class, "p")
                        .cluster()
                        .clusterId())
                .isEqualTo("c2");
    }

    @Test
    void aPriorityZeroJobStaysWhereItWasPlaced() {
        SchedulerFixture two = twoBusyClustersWithAWaitingJob(0);
        two.advance(Duration.ofMinutes(1));
        assertThat(two.last("p").clusterId()).contains("c1");
        assertThat(two.last("p").reason()).contains(Reason.Waiting);
    }

    @Test
    void aJobDoesNotMoveWithoutAGainAboveTheThreshold() {
        SchedulerFixture two = twoBusyClustersWithAWaitingJob(3);
        // c2's slot is taken at once by a new job: P would wait there as long as on c1 (13 + 14 against 12 + 14)
        two.submit("q1", "dave");
        assertThat(two.last("q1").clusterId()).contains("c2");
        assertThat(two.last("q1").reason()).contains(Reason.Provisioning);
        two.advance(Duration.ofMinutes(1));
        assertThat(two.last("p").clusterId()).contains("c1");
        assertThat(two.last("p").reason()).contains(Reason.Waiting);
    }

    /** A job that moved within the move interval (30 minutes) stays, whatever it would gain; after it, it may move. */
    @Test
    void aJobMovesAtMostOncePerMoveInterval() {
        SchedulerFixture recent = twoBusyClustersWithAWaitingJob(3);
        ScheduledJob p = recent.scheduler.job("p").orElseThrow();
        recent.scheduler.restoreJob(p.withMovedAt(recent.now.minus(Duration.ofMinutes(28))));
        recent.advance(Duration.ofMinutes(1)); // moved 29 minutes ago
        assertThat(recent.last("p").clusterId()).contains("c1");
        assertThat(recent.last("p").reason()).contains(Reason.Waiting);

        SchedulerFixture older = twoBusyClustersWithAWaitingJob(3);
        ScheduledJob q = older.scheduler.job("p").orElseThrow();
        older.scheduler.restoreJob(
                q.withMovedAt(older.now.minus(Duration.ofMinutes(29).plusSeconds(30))));
        older.advance(Duration.ofMinutes(1)); // moved 30.5 minutes ago
        assertThat(older.last("p").clusterId()).contains("c2");
    }

    /**
     * On a cluster with a reservation, past jobs held the slot 5 minutes and ran 60. R1 (with the given timeout) has
     * run 20 minutes when the holder finds the reservation short (ClusterBusy) and W queues behind it: W's estimate.
     */
    private static Optional<StartEstimate> behindAHolderShortOfCapacity(SchedulerFixture r, Optional<Long> r1Timeout) {
        r.record(r.scheduler.clusterUpserted(
                SchedulerFixture.cluster("c1", "v6e", "active", Optional.of("res-1")), r.now));
        for (int i = 0; i < QueueHistory.MIN_SAMPLES; i++) {
            r.submit("h" + i, "hist").advance(Duration.ofMinutes(5)).startRunning("h" + i);
            r.advance(Duration.ofMinutes(60)).succeeded("h" + i);
        }
        r.submit(new JobRequest(
                "r1",
                "alice",
                "r1",
                "v6e",
                "2x4",
                SchedulerFixture.SPEC,
                Optional.empty(),
                r1Timeout,
                Instant.parse("2026-12-02T09:00:00Z")));
        r.advance(Duration.ofMinutes(5)).startRunning("r1");
        r.advance(Duration.ofMinutes(20));
        r.submit("holder", "bob");
        r.observe(new io.falcon.events.executor.ExecutorEvent.ReservationShort(
                r.meta(), "holder", "c1", "v6e", SchedulerFixture.name("holder"), "res-1", 0, 2));
        assertThat(r.last("holder").reason()).contains(Reason.ClusterBusy);
        r.submit("w", "carol");
        return r.last("w").estimatedStart();
    }

    /**
     * The holder waits for R1 to end (40 more minutes, by the past runs), then its pool takes its usual 5 minutes,
     * then W's its own 5.
     */
    @Test
    void aHolderShortOfReservationCapacityWaitsForARunningJobToEnd() {
        SchedulerFixture r = new SchedulerFixture();
        Optional<StartEstimate> estimate = behindAHolderShortOfCapacity(r, Optional.empty());
        Instant expected = r.now.plus(Duration.ofMinutes(40 + 5 + 5));
        assertThat(estimate).contains(new StartEstimate(expected, expected));
    }

    /** With a 30-minute timeout R1 ends within 10 more minutes, whatever past runs took. */
    @Test
    void aRunningJobsTimeoutCapsWhatIsExpectedOfItsRun() {
        SchedulerFixture r = new SchedulerFixture();
        Optional<StartEstimate> estimate = behindAHolderShortOfCapacity(r, Optional.of(1800L));
        Instant expected = r.now.plus(Duration.ofMinutes(10 + 5 + 5));
        assertThat(estimate).contains(new StartEstimate(expected, expected));
    }
}
