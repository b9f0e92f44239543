package io.falcon.simulation;

import static io.falcon.simulation.JobPlans.job;
import static io.falcon.testkit.builders.ClusterRowBuilder.clusterRow;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.cdc.ClusterRow;
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
 * The cases of the recovery issue, each as a scripted run of the deterministic simulation: the real scheduler core
 * and executor logic, the fault injected at the moment the case describes, then every invariant of {@link Checks}
 * at quiescence plus the case's own expectation.
 */
class RecoveryRegressionTest {
    /** What Falcon names job j1's node pool and Kubernetes Job (the default installation). */
    private static final String J1_NAME =
            io.falcon.events.ResourceNames.nodePool(io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, "j1");

    private static final ClusterRow C0 = Scenario.row("c0", "v6e", Optional.empty());
    private static final Instant HEAL = Scenario.T0.plus(Duration.ofHours(8));
    private static final Instant LATE = HEAL.plus(Duration.ofHours(48));

    private static Simulation start(List<ClusterRow> clusters, Scenario.JobPlan... jobs) {
        Simulation sim = new Simulation(Scenario.scripted(clusters, List.of(jobs), HEAL));
        sim.start();
        return sim;
    }

    private static void await(Simulation sim, String jobId, Phase phase) {
        assertThat(sim.runUntil(() -> phaseOf(sim, jobId) == phase, LATE))
                .as(jobId + " reaches " + phase)
                .isTrue();
    }

    /** A flex-start stockout, and the job's Job submitted: its pods wait for the nodes of its pool. */
    private static void awaitPodsWaitingForNodesInAStockout(Simulation sim, String jobId) {
        sim.fleet().flexStockout(true);
        assertThat(sim.runUntil(
                        () -> phaseOf(sim, jobId) == Phase.DISPATCHING
                                && sim.job(jobId)
                                        .flatMap(ScheduledJob::reason)
                                        .filter(Reason.WaitingForNode::equals)
                                        .isPresent(),
                        LATE))
                .as(jobId + " waits for nodes")
                .isTrue();
    }

    private static Phase phaseOf(Simulation sim, String jobId) {
        return sim.job(jobId).map(ScheduledJob::phase).orElse(Phase.UNPLACED);
    }

    private static Simulation.Result quiesce(Simulation sim) {
        boolean quiet = sim.runUntil(sim::quiet, LATE);
        Simulation.Result result = sim.finish(quiet);
        assertThat(result.violations()).as("invariants").isEmpty();
        return result;
    }

    private static TaskStatus last(Simulation sim, String jobId) {
        List<TaskStatus> of = statuses(sim, jobId);
        return of.get(of.size() - 1);
    }

    private static List<TaskStatus> statuses(Simulation sim, String jobId) {
        return sim.logs().statuses.stream().filter(s -> s.jobId().equals(jobId)).toList();
    }

    private static <T extends ExecutorEvent> T lastEvent(Simulation sim, Class<T> type, String jobId) {
        List<ExecutorEvent> events = sim.logs().events;
        for (int i = events.size() - 1; i >= 0; i--) {
            if (type.isInstance(events.get(i)) && events.get(i).jobId().equals(jobId)) {
                return type.cast(events.get(i));
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " for " + jobId);
    }

    @Test
    void case1ExecutorRestartWhileDispatchingDoesNotDeleteThePoolUnderTheJob() {
        Simulation sim =
                start(List.of(C0), job("j1").runFor(Duration.ofMinutes(20)).build());
        await(sim, "j1", Phase.DISPATCHING);
        sim.executor().crash(Duration.ofSeconds(30));
        // what the old executor's recovery did: announce the pool ready again
        sim.logs().appendEvent(lastEvent(sim, ExecutorEvent.NodePoolReady.class, "j1"));

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
        assertThat(sim.fleet().jobCreates()).containsEntry("j1", 1);
    }

    @Test
    void case2AJobCreateRetryIsNotLostWithTheExecutorsMemory() {
        Simulation sim = start(List.of(C0), job("j1").build());
        sim.fleet().failNext("jobs.create", 1);
        // the failure report is lost with the process that would have retried
        sim.executor().holdBack(e -> e instanceof ExecutorEvent.JobSubmitFailed, Duration.ofDays(30));
        await(sim, "j1", Phase.DISPATCHING);
        assertThat(sim.runUntil(() -> sim.executor().idle(), LATE)).isTrue();
        sim.executor().crash(Duration.ofSeconds(5));

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
        assertThat(sim.fleet().jobCreates()).containsEntry("j1", 1);
    }

    @Test
    void case3WaitingForNodeSurvivesAnExecutorRestartPastTheCreateTimeout() {
        // an on-demand pool comes with its nodes (a flex-start one gets them for pending pods: the next case)
        Simulation sim =
                start(List.of(C0), job("j1").supply(SupplyMode.ON_DEMAND).build());
        sim.fleet().nodeDelay(Duration.ofMinutes(45));
        assertThat(sim.runUntil(
                        () -> sim.job("j1")
                                .flatMap(ScheduledJob::reason)
                                .filter(Reason.WaitingForNode::equals)
                                .isPresent(),
                        LATE))
                .isTrue();
        Instant waiting = sim.loop().now();
        sim.runUntil(() -> false, waiting.plus(Duration.ofMinutes(15))); // beyond the 10m create timeout
        sim.executor().crash(Duration.ofMinutes(1));
        sim.runUntil(() -> false, waiting.plus(Duration.ofMinutes(25)));

        // still waiting for its nodes (once the pool has been without nodes for its create timeout and its
        // consolidation delay, its Job is submitted and the wait goes on for the Job's pods)
        assertThat(last(sim, "j1").reason()).contains(Reason.WaitingForNode);
        quiesce(sim);
        assertThat(statuses(sim, "j1"))
                .noneMatch(
                        s -> s.reason().filter(Reason.NodePoolTimeout::equals).isPresent());
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void flexStartFromZeroSubmitsTheJobAndWaitsForNodeWithoutDeadlineAcrossARestart() {
        Simulation sim = start(
                List.of(C0),
                job("j1")
                        .supply(SupplyMode.FLEX_START)
                        .timeoutSeconds(600)
                        .runFor(Duration.ofMinutes(5))
                        .build());
        sim.fleet().flexStockout(true);
        assertThat(sim.runUntil(
                        () -> phaseOf(sim, "j1") == Phase.DISPATCHING
                                && sim.job("j1")
                                        .flatMap(ScheduledJob::reason)
                                        .filter(Reason.WaitingForNode::equals)
                                        .isPresent(),
                        LATE))
                .as("the Job is submitted to the RUNNING pool and its pods wait for nodes")
                .isTrue();
        assertThat(sim.fleet().jobCreates()).containsEntry("j1", 1);
        assertThat(last(sim, "j1").message())
                .isEqualTo("node pool " + J1_NAME + " control-plane RUNNING but 0/1 expected node(s) registered"
                        + " (Ready=0)...");
        Instant waiting = sim.loop().now();
        // past the job's 10-minute timeout and the dispatch deadline, with an executor restart in between
        sim.runUntil(() -> false, waiting.plus(Duration.ofMinutes(50)));
        sim.executor().crash(Duration.ofMinutes(1));
        sim.runUntil(() -> false, waiting.plus(Duration.ofHours(2)));
        assertThat(sim.job("j1").map(ScheduledJob::phase)).contains(Phase.DISPATCHING);
        assertThat(last(sim, "j1").reason()).contains(Reason.WaitingForNode);
        assertThat(last(sim, "j1").dispatchedAt())
                .as("no dispatch time while it waits")
                .isEmpty();

        Instant capacity = sim.loop().now();
        sim.fleet().flexStockout(false);
        quiesce(sim);
        TaskStatus done = last(sim, "j1");
        assertThat(done.status()).isEqualTo(Status.Succeeded);
        assertThat(done.dispatchedAt()).hasValueSatisfying(at -> assertThat(at).isAfter(capacity));
        assertThat(statuses(sim, "j1"))
                .noneMatch(s -> s.reason()
                        .filter(r -> r == Reason.Timeout || r == Reason.JobFailed)
                        .isPresent());
        assertThat(sim.fleet().jobCreates()).containsEntry("j1", 1);
    }

    @Test
    void aFlexStartPoolDeletedUnderItsWaitingJobIsAskedForAgain() {
        Simulation sim = start(
                List.of(C0),
                job("j1")
                        .supply(SupplyMode.FLEX_START)
                        .runFor(Duration.ofMinutes(5))
                        .build());
        awaitPodsWaitingForNodesInAStockout(sim, "j1");
        // the pool goes while its Job's pods wait for nodes: nothing would ever bring them
        sim.fleet().deleteOutOfBand(J1_NAME);
        sim.runUntil(() -> false, sim.loop().now().plus(Duration.ofMinutes(30)));
        assertThat(sim.fleet().livePools())
                .as("the waiting job's pool is asked for again")
                .isNotEmpty();
        sim.fleet().flexStockout(false);

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
        assertThat(sim.fleet().jobCreates()).containsEntry("j1", 1);
    }

    @Test
    void aFlexStartPoolThatCannotBeCreatedAgainUnderItsWaitingJobFailsTheJobAndFreesTheQueue() {
        Simulation sim = start(
                List.of(C0),
                job("j1")
                        .supply(SupplyMode.FLEX_START)
                        .runFor(Duration.ofMinutes(5))
                        .build(),
                job("j2")
                        .actor("bob")
                        .supply(SupplyMode.FLEX_START)
                        .runFor(Duration.ofMinutes(5))
                        .submittedAfter(Duration.ofMinutes(1))
                        .build());
        awaitPodsWaitingForNodesInAStockout(sim, "j1");
        // the pool goes while its Job's pods wait for nodes, and the project's quota no longer allows it
        sim.fleet().quotaExhausted(true);
        sim.fleet().deleteOutOfBand(J1_NAME);
        assertThat(sim.runUntil(
                        () -> phaseOf(sim, "j1") == Phase.DONE, sim.loop().now().plus(Duration.ofHours(1))))
                .as("the job whose pool cannot be created again ends instead of waiting for nodes forever")
                .isTrue();
        TaskStatus failed = last(sim, "j1");
        assertThat(failed.status()).isEqualTo(Status.Failed);
        assertThat(failed.reason()).contains(Reason.NodePoolFailed);
        assertThat(failed.message()).contains("Quota 'TPUS_PER_PROJECT' exceeded");
        sim.fleet().quotaExhausted(false);
        sim.fleet().flexStockout(false);

        quiesce(sim);
        assertThat(last(sim, "j2").status()).as("the queue goes on").isEqualTo(Status.Succeeded);
    }

    @Test
    void case4AnAbortRacingAJobCreateRetryLeavesNoKubernetesJob() {
        Simulation sim = start(
                List.of(C0),
                job("j1").runFor(Duration.ofHours(1)).build(),
                job("j2").actor("bob").submittedAfter(Duration.ofMinutes(2)).build());
        sim.fleet().failNext("jobs.create", 3);
        await(sim, "j1", Phase.DISPATCHING);
        assertThat(sim.runUntil(
                        () -> sim.logs().events.stream()
                                .anyMatch(e -> e instanceof ExecutorEvent.JobSubmitFailed f
                                        && f.jobId().equals("j1")
                                        && f.retryable()),
                        LATE))
                .isTrue();
        sim.logs().appendInput(new Logs.Abort("j1"));

        quiesce(sim); // includes: no Job created after its deletion, none left of a terminal job
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Aborted);
        assertThat(sim.fleet().jobCreates().getOrDefault("j1", 0)).isLessThanOrEqualTo(1);
        assertThat(last(sim, "j2").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void case5JobRunningBeforeJobSubmittedArmsTheDeadlineAndRecordsTheUid() {
        Simulation sim = start(
                List.of(C0),
                job("j1").timeoutSeconds(600).runFor(Duration.ofHours(2)).build());
        sim.executor().holdBack(e -> e instanceof ExecutorEvent.JobSubmitted, Duration.ofMinutes(5));

        quiesce(sim);
        TaskStatus end = last(sim, "j1");
        assertThat(end.status()).isEqualTo(Status.Failed);
        assertThat(end.reason()).contains(Reason.Timeout);
        assertThat(Duration.between(
                        end.dispatchedAt().orElseThrow(), end.finishedAt().orElseThrow()))
                // fired once the executor's heartbeat covered the deadline plus the observation slack (90 s), at most
                // a heartbeat interval later, and not before the held-back report was on the topic
                .isBetween(Duration.ofSeconds(600), Duration.ofSeconds(600).plus(Duration.ofMinutes(6)));
        assertThat(statuses(sim, "j1"))
                .filteredOn(s -> s.status() == Status.Running)
                .allSatisfy(s -> assertThat(s.jobUid()).isPresent());
    }

    @Test
    void case6ADeletedClusterRowEndsItsActiveJobsReroutesTheWaitingOnesAndDeletesItsPools() {
        ClusterRow c1 =
                clusterRow("c1").status("maintenance").createdAt(Scenario.T0).build();
        Simulation sim = start(
                List.of(C0, c1),
                job("j1").topology("4x4").runFor(Duration.ofHours(3)).build(),
                job("j2")
                        .topology("4x4")
                        .actor("bob")
                        .runFor(Duration.ofHours(3))
                        .submittedAfter(Duration.ofMinutes(1))
                        .build(),
                job("j3")
                        .topology("4x4")
                        .runFor(Duration.ofMinutes(10))
                        .submittedAfter(Duration.ofMinutes(2))
                        .build(),
                job("j4")
                        .topology("4x4")
                        .actor("bob")
                        .runFor(Duration.ofMinutes(10))
                        .submittedAfter(Duration.ofMinutes(3))
                        .build());
        await(sim, "j2", Phase.RUNNING);
        assertThat(sim.runUntil(() -> phaseOf(sim, "j3").holdsSlot(), LATE)).isTrue();
        assertThat(phaseOf(sim, "j4")).isEqualTo(Phase.WAITING);

        sim.deleteRow("c0");
        sim.upsert(clusterRow("c1").status("active").createdAt(Scenario.T0).build());

        quiesce(sim); // includes: no pool or Job left at c0
        for (String active : List.of("j1", "j2", "j3")) {
            assertThat(last(sim, active).status()).as(active).isEqualTo(Status.Failed);
            assertThat(last(sim, active).message()).as(active).contains("cluster edge-c0 (c0) was removed");
        }
        assertThat(last(sim, "j4").status()).isEqualTo(Status.Succeeded);
        assertThat(last(sim, "j4").clusterId()).contains("c1");
    }

    @Test
    void case7PodsThatNeverRunEndTheJobAndFreeTheQueue() {
        Simulation sim = start(
                List.of(C0),
                job("j1").outcome(Scenario.Outcome.NEVER_SCHEDULED).build(),
                job("j2").actor("bob").submittedAfter(Duration.ofMinutes(2)).build());

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Failed);
        assertThat(last(sim, "j1").reason()).contains(Reason.JobFailed);
        assertThat(last(sim, "j1").message()).startsWith("Pod 未能在 30m 内全部运行");
        assertThat(last(sim, "j2").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void case8ARestartWhileAJobRunsOnAnInheritedPoolKeepsThePool() {
        Simulation sim = start(
                List.of(C0),
                job("j1").runFor(Duration.ofMinutes(1)).build(),
                job("j2")
                        .actor("bob")
                        .runFor(Duration.ofHours(1))
                        .submittedAfter(Duration.ofSeconds(90))
                        .build());
        await(sim, "j2", Phase.RUNNING);
        assertThat(sim.job("j2").flatMap(ScheduledJob::nodePoolName))
                .as("j2 inherited j1's pool")
                .contains(J1_NAME);
        sim.executor().crash(Duration.ofSeconds(30));
        // what the old executor's recovery did: the pool's creator has no Kubernetes Job, so it is "ready"
        sim.logs().appendEvent(lastEvent(sim, ExecutorEvent.NodePoolReady.class, "j1"));

        quiesce(sim); // includes: no pool deleted under a live job's Kubernetes Job
        assertThat(last(sim, "j2").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void aKubernetesJobDeletedByHandWhileItRunsEndsTheJobAtOnceAndFreesThePool() {
        Simulation sim = start(
                List.of(C0),
                job("j1").runFor(Duration.ofHours(3)).build(),
                job("j2").actor("bob").submittedAfter(Duration.ofMinutes(2)).build());
        await(sim, "j1", Phase.RUNNING);
        Instant deleted = sim.loop().now();
        sim.fleet().deleteJobOutOfBand(J1_NAME);
        assertThat(sim.runUntil(() -> phaseOf(sim, "j1") == Phase.DONE, deleted.plus(Duration.ofMinutes(1))))
                .as("the informer's delete event ends the job within a minute, not at its 24h execution deadline")
                .isTrue();
        TaskStatus failed = last(sim, "j1");
        assertThat(failed.status()).isEqualTo(Status.Failed);
        assertThat(failed.reason()).contains(Reason.JobFailed);
        assertThat(failed.message()).contains("Kubernetes Job " + J1_NAME + " was deleted outside Falcon");

        quiesce(sim);
        assertThat(last(sim, "j2").status()).as("the queue goes on").isEqualTo(Status.Succeeded);
        assertThat(sim.fleet().jobCreates()).containsEntry("j1", 1);
    }

    @Test
    void aKubernetesJobDeletedByHandWhileTheExecutorIsDownEndsTheJobByTheInventory() {
        Simulation sim = start(
                List.of(C0),
                job("j1").runFor(Duration.ofHours(3)).build(),
                job("j2").actor("bob").submittedAfter(Duration.ofMinutes(2)).build());
        await(sim, "j1", Phase.RUNNING);
        sim.runUntil(() -> false, sim.loop().now().plus(Duration.ofMinutes(12))); // past the orphan grace
        sim.executor().crash(Duration.ofMinutes(2));
        Instant deleted = sim.loop().now();
        sim.fleet().deleteJobOutOfBand(J1_NAME); // no informer sees it go
        assertThat(sim.runUntil(() -> phaseOf(sim, "j1") == Phase.DONE, deleted.plus(Duration.ofMinutes(2))))
                .as("not while the executor is down")
                .isFalse();
        assertThat(sim.runUntil(() -> phaseOf(sim, "j1") == Phase.DONE, deleted.plus(Duration.ofMinutes(5))))
                .as("by the first inventory of the restarted executor")
                .isTrue();
        TaskStatus failed = last(sim, "j1");
        assertThat(failed.reason()).contains(Reason.JobFailed);
        assertThat(failed.message())
                .contains("Kubernetes Job " + J1_NAME + " was deleted outside Falcon")
                .contains("inventory of cluster c0 no longer lists it");

        quiesce(sim);
        assertThat(last(sim, "j2").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void aJobWhosePodsWaitForNodesIsNotCreatedAgainAfterAHandDeletionTheExecutorDidNotSee() {
        Simulation sim = start(
                List.of(C0),
                job("j1")
                        .supply(SupplyMode.FLEX_START)
                        .runFor(Duration.ofMinutes(5))
                        .build());
        awaitPodsWaitingForNodesInAStockout(sim, "j1");
        sim.executor().crash(Duration.ofSeconds(30));
        sim.fleet().deleteJobOutOfBand(J1_NAME);
        // the scheduler re-sends EnsureJob every minute while the pods wait for nodes
        assertThat(sim.runUntil(
                        () -> phaseOf(sim, "j1") == Phase.DONE, sim.loop().now().plus(Duration.ofMinutes(5))))
                .isTrue();
        assertThat(last(sim, "j1").message()).contains("Kubernetes Job " + J1_NAME + " was deleted outside Falcon");
        sim.fleet().flexStockout(false);

        quiesce(sim); // includes: no Kubernetes Job created again after its deletion
        assertThat(sim.fleet().jobCreates()).containsEntry("j1", 1);
    }

    @Test
    void aFinishedJobRemovedBeforeItsLostEndWasReportedAgainStillEndsSucceeded() {
        Simulation sim =
                start(List.of(C0), job("j1").runFor(Duration.ofMinutes(5)).build());
        await(sim, "j1", Phase.RUNNING);
        // its end is lost on the way (a send that failed for good), and the Job is removed (a short
        // ttlSecondsAfterFinished, or an operator cleaning up finished Jobs) before the report is made again
        sim.executor().holdBack(e -> e instanceof ExecutorEvent.JobSucceeded, Duration.ofDays(30));
        assertThat(sim.runUntil(() -> !sim.fleet().succeededJobs().isEmpty(), LATE))
                .isTrue();
        sim.runUntil(() -> false, sim.loop().now().plusSeconds(30));
        sim.executor().holdBack(e -> false, Duration.ZERO);
        sim.fleet().deleteJobOutOfBand(J1_NAME);

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void aSuccessSeenOnlyInTheDeleteEventWhoseSendFailedIsSentAgainBeforeTheHeartbeatMovesOn() {
        Simulation sim =
                start(List.of(C0), job("j1").runFor(Duration.ofMinutes(5)).build());
        await(sim, "j1", Phase.RUNNING);
        // the Job succeeds and is deleted by hand before the informers look again: only the delete event carries
        // the success, and its send fails for good
        assertThat(sim.runUntil(() -> !sim.fleet().succeededJobs().isEmpty(), LATE))
                .isTrue();
        sim.fleet().deleteJobOutOfBand(J1_NAME);
        sim.executor()
                .loseNext(e ->
                        e instanceof ExecutorEvent.JobSucceeded && e.jobId().equals("j1"));

        quiesce(sim);
        assertThat(last(sim, "j1").status())
                .as("not Failed because the inventory no longer lists the Job: "
                        + last(sim, "j1").message())
                .isEqualTo(Status.Succeeded);
    }

    @Test
    void anAbortedRunningJobsPoolGoesToTheNextJobOnlyOnceItsTerminatingPodsAreGone() {
        Simulation sim = start(
                List.of(C0),
                job("j1").runFor(Duration.ofHours(3)).build(),
                job("j2").actor("bob").submittedAfter(Duration.ofMinutes(2)).build());
        sim.fleet().podExitTime(Duration.ofSeconds(25)); // a checkpoint on SIGTERM, within the 30 s grace
        await(sim, "j1", Phase.RUNNING);
        Instant aborted = sim.loop().now();
        sim.logs().appendInput(new Logs.Abort("j1"));
        await(sim, "j1", Phase.DONE);
        assertThat(Duration.between(aborted, sim.loop().now()))
                .as("Aborted once the Job and its pods are gone")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(25));
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Aborted);

        quiesce(sim); // includes: no pods of j2 started on the pool while j1's were there
        assertThat(last(sim, "j2").status()).isEqualTo(Status.Succeeded);
        assertThat(sim.job("j2").flatMap(ScheduledJob::nodePoolName)).contains(J1_NAME);
    }

    @Test
    void aPoolOfAJobEndedByItsDeadlineGoesToTheNextJobOnlyOnceItsPodsAreGone() {
        Simulation sim = start(
                List.of(C0),
                job("j1")
                        .supply(SupplyMode.ON_DEMAND)
                        .timeoutSeconds(600)
                        .runFor(Duration.ofHours(3))
                        .build(),
                job("j2")
                        .supply(SupplyMode.ON_DEMAND)
                        .actor("bob")
                        .submittedAfter(Duration.ofMinutes(2))
                        .build());
        sim.fleet().podExitTime(Duration.ofSeconds(25));
        await(sim, "j1", Phase.RUNNING);
        // j2 takes the slot and its own pool waits for nodes: j1's pool goes to it when j1 times out
        sim.fleet().nodeDelay(Duration.ofHours(1));

        quiesce(sim); // includes: no pods of j2 started on the pool while j1's were terminating
        assertThat(last(sim, "j1").reason()).contains(Reason.Timeout);
        assertThat(last(sim, "j2").status()).isEqualTo(Status.Succeeded);
        assertThat(sim.job("j2").flatMap(ScheduledJob::nodePoolName)).contains(J1_NAME);
    }

    @Test
    void aFlexStartPodThatWaitedForItsVmsGetsTheImagePullGraceFromWhenItCouldPull() {
        Simulation sim = start(
                List.of(C0),
                job("j1")
                        .supply(SupplyMode.FLEX_START)
                        .runFor(Duration.ofMinutes(5))
                        .build());
        awaitPodsWaitingForNodesInAStockout(sim, "j1");
        sim.runUntil(() -> false, sim.loop().now().plus(Duration.ofMinutes(20))); // far past the 2 min grace
        sim.fleet().pullFailsFor(Duration.ofSeconds(60)); // the first pulls fail, the kubelet's retry succeeds
        sim.fleet().flexStockout(false);

        quiesce(sim); // includes: no job failed for a pull error its pods got past
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
        assertThat(sim.fleet().pulledLate()).contains("j1");
    }

    @Test
    void aMultiHostPoolScaledToZeroWhileItsJobWaitsForTheLastNodeComesBackForTheJob() {
        // a 4x4 slice: four VMs; three come, the fourth 40 minutes later. Their nodes sit unneeded (no Job yet), and
        // the autoscaler takes the slice back after the pool's 10-minute consolidation delay
        Simulation sim = start(
                List.of(C0),
                job("j1")
                        .supply(SupplyMode.ON_DEMAND)
                        .topology("4x4")
                        .runFor(Duration.ofMinutes(5))
                        .build());
        sim.fleet().lastNodeDelay(Duration.ofMinutes(40));

        quiesce(sim); // on the old code: stuck WaitingForNode at 0/4 forever
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
        assertThat(statuses(sim, "j1"))
                .anyMatch(s -> s.message().contains("0/4 expected node(s)")
                        || s.message().contains("/4"));
    }

    @Test
    void aMultiHostPoolScaledToZeroWhileTheExecutorWasDownComesBackForTheJob() {
        Simulation sim = start(
                List.of(C0),
                job("j1")
                        .supply(SupplyMode.ON_DEMAND)
                        .topology("4x4")
                        .runFor(Duration.ofMinutes(5))
                        .build());
        sim.fleet().lastNodeDelay(Duration.ofMinutes(40));
        assertThat(sim.runUntil(
                        () -> statuses(sim, "j1").stream()
                                .anyMatch(st -> st.message().contains("3/4 expected node(s) registered")),
                        LATE))
                .isTrue();
        // down while the autoscaler takes the slice back: the restarted process never saw the nodes go
        sim.executor().crash(Duration.ofMinutes(12));

        quiesce(sim);
        assertThat(last(sim, "j1").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void theSimulationFindsAPoolDeletedUnderALiveJob() {
        // The checks themselves can fail: a pool deleted behind Falcon's back under a running job is reported.
        Simulation sim =
                start(List.of(C0), job("j1").runFor(Duration.ofHours(1)).build());
        await(sim, "j1", Phase.RUNNING);
        ScheduledJob j1 = sim.job("j1").orElseThrow();
        sim.fleet().deletePool(j1.target().orElseThrow(), j1.nodePoolName().orElseThrow());
        Simulation.Result result = sim.finish(sim.runUntil(sim::quiet, LATE));
        assertThat(result.violations()).anyMatch(v -> v.contains("deleted") && v.contains("live job j1"));
    }
}
