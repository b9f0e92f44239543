package io.falcon.simulation;

import static io.falcon.simulation.JobPlans.job;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.scheduler.core.Phase;
import io.falcon.scheduler.core.ScheduledJob;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The ordinary production events of issue 30, each as a scripted run of the deterministic simulation (the real
 * scheduler core and executor logic against the simulated fleet), then every invariant at quiescence plus the
 * case's own expectation. The simulation's random runs draw the same events ({@link Reality}, {@link Scenario}).
 */
class ProductionRealityRegressionTest {
    private static final ClusterRow C0 = Scenario.row("c0", "v6e", Optional.empty());
    private static final Instant HEAL = Scenario.T0.plus(Duration.ofHours(8));
    private static final Instant LATE = HEAL.plus(Duration.ofHours(48));

    private static Simulation start(Scenario.JobPlan... jobs) {
        Simulation sim = new Simulation(Scenario.scripted(List.of(C0), List.of(jobs), HEAL));
        sim.start();
        return sim;
    }

    private static void await(Simulation sim, String jobId, Phase phase) {
        assertThat(sim.runUntil(() -> sim.job(jobId).map(ScheduledJob::phase).orElse(Phase.UNPLACED) == phase, LATE))
                .as(jobId + " reaches " + phase)
                .isTrue();
    }

    private static TaskStatus last(Simulation sim, String jobId) {
        List<TaskStatus> of = sim.logs().statuses.stream()
                .filter(s -> s.jobId().equals(jobId))
                .toList();
        return of.get(of.size() - 1);
    }

    private static void quiesce(Simulation sim) {
        Simulation.Result result = sim.finish(sim.runUntil(sim::quiet, LATE));
        assertThat(result.violations()).as("invariants").isEmpty();
    }

    @Test
    void item1_anEditOfTheClustersBucketAndServiceAccountLeavesItsRunningJobAlone() {
        Simulation sim = start(
                job("j1").runFor(Duration.ofMinutes(30)).build(),
                job("j2").submittedAfter(Duration.ofMinutes(2)).build());
        await(sim, "j1", Phase.RUNNING);
        sim.upsert(Simulation.edited(
                sim.row("c0").orElseThrow(),
                new Scenario.ClusterEdited(sim.loop().now(), "c0", "bucket-new", Optional.of("runner"))));

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
        assertThat(last(sim, "j2").status()).isEqualTo(Status.Succeeded);
        // the job dispatched after the edit runs with the new columns
        assertThat(sim.logs().commands.stream()
                        .filter(c -> c instanceof ExecutorCommand.EnsureJob
                                && c.jobId().equals("j2"))
                        .map(c -> c.cluster().gcsBucket()))
                .isNotEmpty()
                .allMatch("bucket-new"::equals);
    }

    @Test
    void item2_aPoolReconcilingWhileItsJobWaitsForNodesPastTheCreateTimeoutIsNoTimeout() {
        Simulation sim = start(job("j1").supply(SupplyMode.ON_DEMAND).build());
        sim.fleet().nodeDelay(Duration.ofMinutes(40));
        assertThat(sim.runUntil(
                        () -> sim.job("j1")
                                .flatMap(ScheduledJob::reason)
                                .filter(Reason.WaitingForNode::equals)
                                .isPresent(),
                        LATE))
                .isTrue();
        sim.runUntil(() -> false, sim.loop().now().plus(Duration.ofMinutes(12)));
        sim.fleet()
                .reconcileNow(
                        io.falcon.events.ResourceNames.nodePool(
                                io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, "j1"),
                        Duration.ofMinutes(20)); // GKE auto-repair, past the 10m timeout
        sim.fleet().failNext("getNodePool", 3); // and a few lookups fail meanwhile

        quiesce(sim);
        assertThat(sim.logs().statuses.stream().filter(s -> s.jobId().equals("j1")))
                .noneMatch(
                        s -> s.reason().filter(Reason.NodePoolTimeout::equals).isPresent());
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void item5_aClusterThatRefusesEveryCreationForAnHourIsSentAFewProbesAndTheRestRunElsewhere() {
        ClusterRow c1 = Scenario.row("c1", "v6e", Optional.empty());
        List<Scenario.JobPlan> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < 24; i++) {
            jobs.add(job(String.format("j%02d", i))
                    .actor("actor" + (i % 3))
                    .supply(SupplyMode.ON_DEMAND)
                    .submittedAfter(Duration.ofMinutes(2L * i))
                    .runFor(Duration.ofMinutes(3))
                    .build());
        }
        Simulation sim = new Simulation(Scenario.scripted(List.of(C0, c1), jobs, HEAL));
        sim.start();
        Instant from = sim.loop().now();
        sim.fleet().refuseCreates(C0.target(), from, from.plus(Duration.ofHours(1)));

        // the invariants include the outage's own bound: 3 refusals to trip, 1 queue in flight, 2 probe rounds
        quiesce(sim);
        List<String> refused = sim.fleet().refusedDuringOutages().stream()
                .map(SimFleet.Refused::falconJobId)
                .distinct()
                .toList();
        assertThat(refused).hasSizeBetween(3, 6);
        for (String id : refused) {
            assertThat(last(sim, id).status()).isEqualTo(Status.Failed);
            assertThat(last(sim, id).reason()).contains(Reason.NodePoolFailed);
            assertThat(last(sim, id).message()).contains("PERMISSION_DENIED");
        }
        jobs.stream()
                .map(Scenario.JobPlan::id)
                .filter(id -> !refused.contains(id))
                .forEach(id -> assertThat(last(sim, id).status()).as(id).isEqualTo(Status.Succeeded));
    }

    @Test
    void item6_aSchedulerStalledPastTheExecutionDeadlineReadsTheSuccessBeforeItFiresTheDeadline() {
        // the job succeeds after 10 of its 15 minutes, while the scheduler is stalled for an hour
        Simulation sim = start(
                job("j1").timeoutSeconds(900).runFor(Duration.ofMinutes(10)).build());
        await(sim, "j1", Phase.RUNNING);
        sim.scheduler().stall(Duration.ofHours(1));

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void item6_anExecutorDownPastTheExecutionDeadlineDoesNotTurnASuccessIntoATimeout() {
        Simulation sim = start(
                job("j1").timeoutSeconds(900).runFor(Duration.ofMinutes(10)).build());
        await(sim, "j1", Phase.RUNNING);
        sim.executor().crash(Duration.ofMinutes(40));

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void item6_aJobThatReallyOverranWhileTheSchedulerWasStalledStillTimesOut() {
        Simulation sim =
                start(job("j1").timeoutSeconds(600).runFor(Duration.ofHours(3)).build());
        await(sim, "j1", Phase.RUNNING);
        sim.scheduler().stall(Duration.ofMinutes(30));

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Failed);
        assertThat(last(sim, "j1").reason()).contains(Reason.Timeout);
    }

    @Test
    void item10_aJobCreateRefusedForGoodEndsJobSubmitFailedAndTheNextJobRuns() {
        Simulation sim = start(
                job("j1").supply(SupplyMode.FLEX_START).build(),
                job("j2")
                        .actor("bob")
                        .supply(SupplyMode.FLEX_START)
                        .submittedAfter(Duration.ofMinutes(1))
                        .build());
        sim.fleet().refuseJobCreates(true);
        assertThat(sim.runUntil(
                        () -> sim.job("j1").map(ScheduledJob::phase).orElse(Phase.UNPLACED) == Phase.DONE, LATE))
                .isTrue();
        sim.fleet().refuseJobCreates(false);

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Failed);
        assertThat(last(sim, "j1").reason()).contains(Reason.JobSubmitFailed);
        assertThat(last(sim, "j1").message()).contains("forbidden");
        assertThat(last(sim, "j2").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void item10_aJobWhosePodsCannotBeCreatedOnAFlexStartPoolEndsAtTheDispatchDeadline() {
        // a missing service account: the Job exists, its pods never do, so no pod ever asks for the pool's nodes;
        // the re-sent EnsureJob's node count (0 of N) used to make it wait for nodes for ever
        Simulation sim = start(
                job("j1").supply(SupplyMode.FLEX_START).build(),
                job("j2")
                        .actor("bob")
                        .supply(SupplyMode.FLEX_START)
                        .submittedAfter(Duration.ofMinutes(1))
                        .build());
        sim.fleet().refusePods(true);
        // the first JobSubmitted is late, so the Job is asked for again and the answer carries the pool's count
        sim.executor().holdBack(e -> e instanceof ExecutorEvent.JobSubmitted, Duration.ofMinutes(3));
        await(sim, "j1", Phase.DISPATCHING);
        sim.runUntil(() -> sim.fleet().jobCreates().containsKey("j1"), LATE);
        sim.fleet().refusePods(false);

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Failed);
        assertThat(last(sim, "j1").reason()).contains(Reason.JobFailed);
        assertThat(last(sim, "j2").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void item11_everyWriteOutsideTheContractGetsATerminalAnswerAndTheRowEqualsTheLastStatus() {
        Simulation sim = start(
                job("done").runFor(Duration.ofMinutes(5)).build(),
                job("run")
                        .actor("bob")
                        .runFor(Duration.ofHours(1))
                        .submittedAfter(Duration.ofMinutes(1))
                        .build());
        await(sim, "done", Phase.DONE);
        await(sim, "run", Phase.RUNNING);
        Instant now = sim.loop().now();
        sim.abort("done"); // after it ended
        sim.disrupt(new Scenario.StatusWritten(now, "run", "Pending")); // back to Pending while it runs
        sim.disrupt(new Scenario.InsertedAborting(now, "ghost")); // never submitted
        sim.disrupt(new Scenario.IdReused(now, "done")); // a new row under an ended job's id

        quiesce(sim); // includes checkRows: every row terminal and equal to its job's last status
        assertThat(last(sim, "done").status()).isEqualTo(Status.Succeeded);
        assertThat(last(sim, "run").status()).isEqualTo(Status.Succeeded);
        assertThat(last(sim, "ghost").status()).isEqualTo(Status.Aborted);
        assertThat(sim.fleet().jobCreates()).containsEntry("done", 1);
    }

    @Test
    void item12_aPriorityRaisedWhileWaitingIsHonoured() {
        Simulation sim = start(
                job("holder").runFor(Duration.ofMinutes(30)).build(),
                job("first").actor("bob").submittedAfter(Duration.ofMinutes(1)).build(),
                job("second")
                        .actor("carol")
                        .submittedAfter(Duration.ofMinutes(2))
                        .build());
        await(sim, "second", Phase.WAITING);
        assertThat(sim.job("holder").map(ScheduledJob::phase)).isNotEqualTo(Optional.of(Phase.RUNNING));
        sim.disrupt(new Scenario.PriorityChanged(sim.loop().now(), "second", 9));
        await(sim, "holder", Phase.RUNNING); // it releases the slot: the raised job takes it, not the earlier one
        assertThat(sim.job("second").map(ScheduledJob::phase)).isNotEqualTo(Optional.of(Phase.WAITING));
        assertThat(sim.job("first").map(ScheduledJob::phase)).contains(Phase.WAITING);

        quiesce(sim);
    }

    @Test
    void item14_clocksAMinuteApartFireNoDeadlineEarlyAndLeakNoPool() {
        // the scheduler's clock 30 s behind true time, the executor's 30 s ahead: a minute apart, the way that makes
        // the executor's heartbeats look as if they covered a deadline a minute sooner than they do
        Reality skewed = new Reality(0, Duration.ofSeconds(-30), Duration.ofSeconds(30), 0, 0);
        Simulation sim = new Simulation(Scenario.scripted(
                        List.of(C0),
                        List.of(job("j1")
                                .timeoutSeconds(600)
                                .runFor(Duration.ofSeconds(590))
                                .build()),
                        HEAL)
                .withReality(skewed));
        // the success, ten seconds before the deadline, reaches the topic only a minute later (another thread's send)
        sim.executor().holdBack(e -> e instanceof ExecutorEvent.JobSucceeded, Duration.ofSeconds(60));
        sim.start();
        quiesce(sim); // includes: no pool or Job left, no deadline overrun, the Reason matches the cause
        assertThat(last(sim, "j1").status()).as("a run within its timeout").isEqualTo(Status.Succeeded);

        Simulation overrun = new Simulation(Scenario.scripted(
                        List.of(C0),
                        List.of(job("j1")
                                .timeoutSeconds(600)
                                .runFor(Duration.ofMinutes(30))
                                .build()),
                        HEAL)
                .withReality(skewed));
        overrun.start();
        quiesce(overrun);
        assertThat(last(overrun, "j1").reason()).contains(Reason.Timeout);
    }
}
