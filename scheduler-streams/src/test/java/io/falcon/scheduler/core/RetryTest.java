package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.decision.Decision;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.FailureCause;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Automatic retry: an attempt the fleet ended runs again under the job's id, on a fresh pool and Kubernetes Job,
 * once the last attempt's Job is gone and the backoff passed; a failure of the program never does.
 */
class RetryTest {
    private static final FailureCause PREEMPTED =
            FailureCause.infrastructure("DisruptionTarget: PreemptionByScheduler");
    private static final String RETRY_TWICE = "{\"image\":\"us-docker.pkg.dev/p/r/train:1\","
            + "\"command\":[\"python\",\"train.py\"],\"retry\":{\"max_retries\":2}}";

    private static SchedulerFixture fixture() {
        return new SchedulerFixture().withCluster("c1", "v6e");
    }

    private static JobRequest retried(String id, String spec) {
        return SchedulerFixture.request(id, "alice", "v6e", "2x4", spec);
    }

    /** The executor reports the running attempt's Job failed, with this cause. */
    private static void failed(SchedulerFixture f, String jobId, FailureCause cause, String message) {
        ExecutorCommand.EnsureJob ensure = f.lastCommand(ExecutorCommand.EnsureJob.class, jobId);
        f.observe(new ExecutorEvent.JobFailed(
                f.meta(), jobId, ensure.cluster().clusterId(), "v6e", ensure.k8sJobName(), message, cause));
    }

    /** The executor confirms the Job's deletion (the Job and its pods are gone). */
    private static void jobGone(SchedulerFixture f, String jobId, String k8sJobName) {
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), jobId, "c1", "v6e", k8sJobName));
    }

    @Test
    void anAttemptTheFleetEndedRunsAgainOnAFreshPoolOnceItsJobIsGoneAndTheBackoffPassed() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        String firstPool =
                f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").nodePoolName();
        String firstJob = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1").k8sJobName();

        failed(f, "j1", PREEMPTED, "Pod disrupted: DisruptionTarget: PreemptionByScheduler");

        TaskStatus retrying = f.last("j1");
        assertThat(retrying.status()).isEqualTo(Status.Pending);
        assertThat(retrying.reason()).contains(Reason.Retrying);
        assertThat(retrying.message())
                .startsWith("attempt 2 of 3 from ")
                .contains("the fleet ended attempt 1: Pod disrupted: DisruptionTarget: PreemptionByScheduler");
        // the attempt's Kubernetes Job is deleted; its pool goes once the Job is gone (pods may still terminate on
        // it), and is never handed on meanwhile
        assertThat(f.lastCommand(ExecutorCommand.EnsureJobDeleted.class, "j1").k8sJobName())
                .isEqualTo(firstJob);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class)).isEmpty();
        assertThat(f.ledger)
                .filteredOn(d -> d.kind() == Decision.Kind.RETRIED)
                .singleElement()
                .satisfies(d ->
                        assertThat(d.summary()).contains("the fleet's doing").contains("attempt 2 of 3"));

        // the backoff passes, but the last attempt's Job is not confirmed gone: nothing is placed
        int commandsBefore = f.commands.size();
        f.advanceTicking(Duration.ofMinutes(2));
        assertThat(f.commands.subList(commandsBefore, f.commands.size()))
                .noneMatch(c -> c instanceof ExecutorCommand.EnsureNodePool || c instanceof ExecutorCommand.EnsureJob);
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);

        // gone: the failed pool is deleted, and the second attempt placed, on a pool and Job of its own
        jobGone(f, "j1", firstJob);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .extracting(ExecutorCommand.EnsureNodePoolDeleted::nodePoolName)
                .containsExactly(firstPool);
        ExecutorCommand.EnsureNodePool second = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1");
        assertThat(second.nodePoolName()).isNotEqualTo(firstPool);
        f.poolReady("j1").submitted("j1");
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "j1").k8sJobName())
                .isNotEqualTo(firstJob);
        f.running("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        assertThat(f.last("j1").message()).contains("[attempt 2; earlier: attempt 1 on cluster c1: Pod disrupted");

        // the executor reports the running Job again (every few minutes): nothing new to publish, notes and all
        int published = f.of("j1").size();
        f.running("j1");
        assertThat(f.of("j1")).hasSize(published);

        f.succeeded("j1");
        TaskStatus done = f.last("j1");
        assertThat(done.status()).isEqualTo(Status.Succeeded);
        assertThat(done.message()).contains("attempt 1 on cluster c1: Pod disrupted");
    }

    @Test
    void aFailureOfTheProgramIsNeverRetried() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        failed(f, "j1", FailureCause.exited("exit code 1", 1), "Pod terminated: Error (exit code 1)");
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobFailed);
        assertThat(f.last("j1").message()).isEqualTo("Pod terminated: Error (exit code 1)");
        assertThat(f.ledger).noneMatch(d -> d.kind() == Decision.Kind.RETRIED);
    }

    @Test
    void aJobWithoutRetriesEndsFailedAsBeforeWhateverTheCause() {
        SchedulerFixture f = fixture().submit("j1", "alice").startRunning("j1");
        failed(f, "j1", PREEMPTED, "Pod disrupted: DisruptionTarget: PreemptionByScheduler");
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").message()).isEqualTo("Pod disrupted: DisruptionTarget: PreemptionByScheduler");
    }

    @Test
    void anExitCodeTheSpecNamesIsRetriedAsTheFleets() {
        String spec =
                "{\"image\":\"i:1\",\"command\":[\"python\"],\"retry\":{\"max_retries\":1,\"on_exit_codes\":[42]}}";
        SchedulerFixture f = fixture().submit(retried("j1", spec)).startRunning("j1");
        failed(f, "j1", FailureCause.exited("exit code 42", 42), "Pod terminated: Error (exit code 42)");
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);

        SchedulerFixture g = fixture().submit(retried("j2", spec)).startRunning("j2");
        failed(g, "j2", FailureCause.exited("exit code 1", 1), "Pod terminated: Error (exit code 1)");
        assertThat(g.last("j2").status()).isEqualTo(Status.Failed);
    }

    @Test
    void whenItsRetriesAreSpentTheJobEndsFailedListingItsAttempts() {
        String once = "{\"image\":\"i:1\",\"command\":[\"python\"],\"retry\":{\"max_retries\":1}}";
        SchedulerFixture f = fixture().submit(retried("j1", once)).startRunning("j1");
        String firstJob = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1").k8sJobName();
        failed(f, "j1", PREEMPTED, "Pod disrupted: preempted");
        jobGone(f, "j1", firstJob);
        f.advanceTicking(Duration.ofMinutes(1));
        f.startRunning("j1");
        failed(f, "j1", FailureCause.infrastructure("Evicted"), "Pod disrupted: Evicted");

        TaskStatus end = f.last("j1");
        assertThat(end.status()).isEqualTo(Status.Failed);
        assertThat(end.reason()).contains(Reason.JobFailed);
        assertThat(end.message())
                .startsWith("Pod disrupted: Evicted")
                .contains("[attempt 2; earlier: attempt 1 on cluster c1: Pod disrupted: preempted]");
        assertThat(f.ledger).filteredOn(d -> d.kind() == Decision.Kind.RETRIED).hasSize(1);
    }

    @Test
    void retriesSwitchedOffEndTheJobAsWithout() {
        SchedulerSettings off = SchedulerSettings.defaults()
                .withAcquirersPerQueue(1)
                .withRetries(new SchedulerSettings.Retries(3, Duration.ofSeconds(30), Duration.ofMinutes(10), false));
        SchedulerFixture f = new SchedulerFixture(off).withCluster("c1", "v6e");
        f.submit("j1", "alice").startRunning("j1");
        failed(f, "j1", PREEMPTED, "Pod disrupted");
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
    }

    @Test
    void theSchedulersDefaultRetriesApplyToAJobWhoseSpecSaysNothing() {
        SchedulerSettings twice = SchedulerSettings.defaults()
                .withAcquirersPerQueue(1)
                .withRetries(new SchedulerSettings.Retries(2, Duration.ofSeconds(30), Duration.ofMinutes(10), true));
        SchedulerFixture f = new SchedulerFixture(twice).withCluster("c1", "v6e");
        f.submit("j1", "alice").startRunning("j1");
        failed(f, "j1", PREEMPTED, "Pod disrupted");
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
        assertThat(f.last("j1").message()).startsWith("attempt 2 of 3");
    }

    @Test
    void anAbortWhileItWaitsEndsItAbortedOnceTheLastAttemptsJobIsGone() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        String firstJob = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1").k8sJobName();
        failed(f, "j1", PREEMPTED, "Pod disrupted");
        f.abort("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborting);
        jobGone(f, "j1", firstJob);
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborted);
        // and it is never placed again
        f.advanceTicking(Duration.ofMinutes(5));
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class)).hasSize(1);
    }

    @Test
    void aLateReportOfTheFailedAttemptChangesNothing() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        ExecutorCommand.EnsureJob first = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        failed(f, "j1", PREEMPTED, "Pod disrupted");
        jobGone(f, "j1", first.k8sJobName());
        f.advanceTicking(Duration.ofMinutes(1));
        f.poolReady("j1");
        int versions = f.of("j1").size();
        // the first attempt's Job reported running, and failed again, late: about a Job the job no longer counts on
        f.observe(new ExecutorEvent.JobRunning(
                f.meta(), "j1", "c1", "v6e", first.k8sJobName(), "uid-old", 2, 2, Optional.empty()));
        f.observe(new ExecutorEvent.JobFailed(f.meta(), "j1", "c1", "v6e", first.k8sJobName(), "again", PREEMPTED));
        assertThat(f.of("j1")).hasSize(versions);
        assertThat(f.last("j1").reason()).contains(Reason.Dispatching);
    }

    @Test
    void aPoolGkeCouldNotCreateIsRetriedWithoutAKubernetesJobToWaitFor() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE));
        String firstPool =
                f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").nodePoolName();
        f.observe(new ExecutorEvent.NodePoolCreateFailed(
                f.meta(), "j1", "c1", "v6e", firstPool, false, 0, "ZONE_RESOURCE_POOL_EXHAUSTED"));
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
        assertThat(f.last("j1").message()).contains("node pool 创建失败: ZONE_RESOURCE_POOL_EXHAUSTED");
        // no Kubernetes Job was ever asked for: only the backoff stands between it and its next attempt
        f.advanceTicking(Duration.ofSeconds(40));
        ExecutorCommand.EnsureNodePool second = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1");
        assertThat(second.nodePoolName()).isNotEqualTo(firstPool);
        assertThat(f.last("j1").reason()).contains(Reason.Provisioning);
    }

    @Test
    void aJobWhoseGkeClusterIsGoneRunsAgainOnceAnotherClusterCanTakeIt() {
        SchedulerFixture f = fixture().withCluster("c2", "v6e").submit(retried("j1", RETRY_TWICE));
        f.startRunning("j1");
        String where =
                f.lastCommand(ExecutorCommand.EnsureJob.class, "j1").cluster().clusterId();
        String gke =
                f.lastCommand(ExecutorCommand.EnsureJob.class, "j1").cluster().resourceName();
        f.observe(new ExecutorEvent.ClusterGone(f.meta(), "", where, "v6e", gke, "GKE answers NOT_FOUND"));
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
        // its Job went with the cluster: nothing to delete there, nothing to wait for but the backoff
        assertThat(f.commandsOf(ExecutorCommand.EnsureJobDeleted.class)).isEmpty();
        f.advanceTicking(Duration.ofSeconds(40));
        assertThat(f.last("j1").reason()).isNotEqualTo(Optional.of(Reason.Retrying));
        assertThat(f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").nodePoolName())
                .isNotEqualTo(SchedulerFixture.name("j1"));
    }

    @Test
    void aProgramFailureReadWhileTheJobWaitsToRunAgainEndsIt() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        ExecutorCommand.EnsureJob first = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        // an operator moves the cluster row to another GKE cluster: the attempt ends, by the fleet's doing
        f.record(f.scheduler.clusterUpserted(
                new io.falcon.events.cdc.ClusterRow(
                        "c1",
                        "edge-c1",
                        "proj-c1",
                        "us-east5",
                        "v6e",
                        "bucket-c1",
                        Optional.empty(),
                        io.falcon.events.ClusterStatus.ACTIVE,
                        Optional.empty()),
                f.now));
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
        // and only then is the program's own failure of that attempt read (it came first, in the fleet)
        f.observe(new ExecutorEvent.JobFailed(
                f.meta(),
                "j1",
                "c1",
                "v6e",
                first.k8sJobName(),
                "Pod terminated: OOMKilled (exit code 137)",
                FailureCause.exited("OOMKilled", 137)));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").message()).startsWith("Pod terminated: OOMKilled (exit code 137)");
        f.advanceTicking(Duration.ofMinutes(5));
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class)).hasSize(1);
    }

    @Test
    void aPoolGkeRefusesForItsConfigurationIsNotRetried() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE));
        String pool = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").nodePoolName();
        f.observe(new ExecutorEvent.NodePoolCreateFailed(
                f.meta(),
                "j1",
                "c1",
                "v6e",
                pool,
                false,
                0,
                "PERMISSION_DENIED: Required 'container.nodePools.create' permission"));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.NodePoolFailed);
    }

    private static io.falcon.events.fault.FaultVerdict isolated(String jobId, java.time.Instant received) {
        return new io.falcon.events.fault.FaultVerdict(
                io.falcon.events.Meta.of("fault-streams", received),
                "c1",
                "node-3",
                "accel1",
                "0x80E18403",
                Optional.of(jobId),
                received.toEpochMilli(),
                io.falcon.events.fault.FaultVerdict.Outcome.ISOLATED,
                new io.falcon.events.fault.FaultVerdict.Evidence(3, List.of(), 12, List.of(), "3 faults in 24h"));
    }

    @Test
    void aDeviceIsolatedUnderARunningAttemptEndsItAndTheJobRunsAgainOffThatChip() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        String firstJob = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1").k8sJobName();
        f.record(f.scheduler.faultNoted(isolated("j1", f.now), f.now));

        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
        assertThat(f.last("j1").message())
                .contains("device node-3/accel1 of its slice was isolated")
                .contains("hardware fault, the device is isolated");
        assertThat(f.lastCommand(ExecutorCommand.EnsureJobDeleted.class, "j1").k8sJobName())
                .isEqualTo(firstJob);
        jobGone(f, "j1", firstJob);
        f.advanceTicking(Duration.ofMinutes(1));
        f.startRunning("j1");
        f.succeeded("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
        assertThat(f.last("j1").message()).contains("attempt 1 on cluster c1: device node-3/accel1");

        // a late verdict about the first attempt's device does not end the second
        SchedulerFixture g = fixture().submit(retried("j2", RETRY_TWICE)).startRunning("j2");
        java.time.Instant firstRun = g.now.minusSeconds(1);
        failed(g, "j2", PREEMPTED, "Pod disrupted");
        jobGone(g, "j2", g.lastCommand(ExecutorCommand.EnsureJob.class, "j2").k8sJobName());
        g.advanceTicking(Duration.ofMinutes(1));
        g.startRunning("j2");
        g.record(g.scheduler.faultNoted(isolated("j2", firstRun), g.now));
        assertThat(g.last("j2").status()).isEqualTo(Status.Running);
    }

    @Test
    void withoutRetriesAnIsolationUnderARunningJobOnlyTellsIt() {
        SchedulerFixture f = fixture().submit("j1", "alice").startRunning("j1");
        f.record(f.scheduler.faultNoted(isolated("j1", f.now), f.now));
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        assertThat(f.last("j1").message()).contains("the device is isolated");
    }

    @Test
    void everyFailedAttemptIsCountedWithWhoseDoingItWasAndWhatCameOfIt() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        ExecutorCommand.EnsureJob ensure = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        Decisions retried = f.scheduler.observe(
                new ExecutorEvent.JobFailed(
                        f.meta(), "j1", "c1", "v6e", ensure.k8sJobName(), "Pod disrupted", PREEMPTED),
                f.now);
        assertThat(retried.retryOutcomes())
                .containsExactly(new Decisions.RetryOutcome("JobFailed", "infrastructure", "retried"));

        SchedulerFixture g = fixture().submit(retried("j2", RETRY_TWICE)).startRunning("j2");
        ExecutorCommand.EnsureJob other = g.lastCommand(ExecutorCommand.EnsureJob.class, "j2");
        Decisions ended = g.scheduler.observe(
                new ExecutorEvent.JobFailed(
                        g.meta(),
                        "j2",
                        "c1",
                        "v6e",
                        other.k8sJobName(),
                        "Pod terminated: Error (exit code 1)",
                        FailureCause.exited("exit code 1", 1)),
                g.now);
        assertThat(ended.retryOutcomes())
                .containsExactly(new Decisions.RetryOutcome("JobFailed", "application", "program"));
    }

    @Test
    void aClusterThatBreaksAttemptAfterAttemptSpendsItsHourlyBudget() {
        SchedulerSettings two = SchedulerSettings.defaults()
                .withAcquirersPerQueue(4)
                .withRetries(new SchedulerSettings.Retries(3, Duration.ofSeconds(30), Duration.ofMinutes(10), true, 2));
        SchedulerFixture f = new SchedulerFixture(two).withCluster("c1", "v6e");
        for (String id : List.of("a", "b", "c")) {
            f.submit(id, "alice").startRunning(id);
        }
        failed(f, "a", PREEMPTED, "Pod disrupted");
        failed(f, "b", PREEMPTED, "Pod disrupted");
        failed(f, "c", PREEMPTED, "Pod disrupted");
        assertThat(f.last("a").reason()).contains(Reason.Retrying);
        assertThat(f.last("b").reason()).contains(Reason.Retrying);
        // the third failure on c1 within the hour: past its budget of 2, it ends as without retries
        assertThat(f.last("c").status()).isEqualTo(Status.Failed);
        assertThat(f.ledger).filteredOn(d -> d.kind() == Decision.Kind.RETRIED).hasSize(2);
    }

    @Test
    void aFailureTheInventoryListsWithTheFleetsCauseIsRetriedAsItsLostReportWouldHaveBeen() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        ExecutorCommand.EnsureJob ensure = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        // the JobFailed was lost (the executor crash-looped); the inventory lists how the Job ended
        f.observe(new ExecutorEvent.JobInventory(
                f.meta(),
                "",
                "c1",
                "v6e",
                ensure.cluster().resourceName(),
                List.of(new ExecutorEvent.ObservedJob(
                        ensure.k8sJobName(),
                        "j1",
                        "uid-j1",
                        Optional.of(f.now.minusSeconds(600)),
                        true,
                        Optional.of(new ExecutorEvent.ObservedEnd(
                                false, "Pod disrupted: DisruptionTarget: DeletionByPodGC", PREEMPTED))))));
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
    }

    @Test
    void theWaitBetweenAttemptsDoublesUpToItsLongest() {
        SchedulerSettings.Retries r =
                new SchedulerSettings.Retries(5, Duration.ofSeconds(30), Duration.ofMinutes(2), true);
        assertThat(List.of(r.backoffBefore(0), r.backoffBefore(1), r.backoffBefore(2), r.backoffBefore(5)))
                .containsExactly(
                        Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(2), Duration.ofMinutes(2));
    }

    private static io.falcon.events.control.RetrySwitch switched(boolean on, SchedulerFixture f, String reason) {
        return new io.falcon.events.control.RetrySwitch(on, "ops", reason, f.now);
    }

    @Test
    void retriesSwitchedOffEndTheNextFailureAsItsCauseSaysAndOnAgainRetriesIt() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        f.record(f.scheduler.retriesSwitched(switched(false, f, "retry storm on c1"), f.now));

        failed(f, "j1", PREEMPTED, "Pod disrupted: DisruptionTarget: PreemptionByScheduler");

        TaskStatus ended = f.last("j1");
        assertThat(ended.status()).isEqualTo(Status.Failed);
        assertThat(ended.reason()).contains(Reason.JobFailed);
        assertThat(f.ledger).noneMatch(d -> d.kind() == Decision.Kind.RETRIED);

        // switched on again (later), the same failure of another job runs again
        f.advance(Duration.ofMinutes(1));
        f.record(f.scheduler.retriesSwitched(switched(true, f, "storm over"), f.now));
        f.submit(retried("j2", RETRY_TWICE)).startRunning("j2");
        failed(f, "j2", PREEMPTED, "Pod disrupted: DisruptionTarget: PreemptionByScheduler");
        assertThat(f.last("j2").reason()).contains(Reason.Retrying);
    }

    @Test
    void theSwitchWinsOverTheSettingAndAnOlderSwitchReadLateChangesNothing() {
        SchedulerFixture f = new SchedulerFixture(SchedulerSettings.defaults()
                        .withAcquirersPerQueue(1)
                        .withRetries(new SchedulerSettings.Retries(
                                0, Duration.ofSeconds(30), Duration.ofMinutes(10), false)))
                .withCluster("c1", "v6e");
        io.falcon.events.control.RetrySwitch older = switched(false, f, "old");
        f.advance(Duration.ofSeconds(5));
        f.record(f.scheduler.retriesSwitched(switched(true, f, "on despite the setting"), f.now));
        // the compacted topic read again, or a redelivery: the older switch must not win
        Decisions late = f.scheduler.retriesSwitched(older, f.now);
        assertThat(late.changedRetrySwitch()).isFalse();

        f.submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        failed(f, "j1", PREEMPTED, "Pod disrupted: DisruptionTarget: PreemptionByScheduler");
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
    }

    @Test
    void aJobWaitingToRunAgainWhenRetriesAreSwitchedOffNeverStartsItsNextAttempt() {
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        String firstJob = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1").k8sJobName();
        failed(f, "j1", PREEMPTED, "Pod disrupted: DisruptionTarget: PreemptionByScheduler");
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
        int poolsBefore = f.commandsOf(ExecutorCommand.EnsureNodePool.class).size();

        f.record(f.scheduler.retriesSwitched(switched(false, f, "retry storm on c1"), f.now));
        jobGone(f, "j1", firstJob);
        f.advanceTicking(Duration.ofMinutes(2));

        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class)).hasSize(poolsBefore);
        TaskStatus ended = f.last("j1");
        assertThat(ended.status()).isEqualTo(Status.Failed);
        // as the attempt that ended would have ended it, saying why it did not run again
        assertThat(ended.reason()).contains(Reason.JobFailed);
        assertThat(ended.message())
                .contains("not run again: retries are switched off by ops")
                .contains("retry storm on c1")
                .contains("attempt 1 on cluster c1: Pod disrupted");
    }

    @Test
    void theSwitchSurvivesARestart() {
        MemoryStore memory = new MemoryStore();
        SchedulerFixture f = fixture().persistingTo(memory.store());
        f.record(f.scheduler.retriesSwitched(switched(false, f, "maintenance"), f.now));

        Scheduler restored = SchedulerStore.restore(memory.store(), SchedulerSettings.defaults());

        assertThat(restored.retrySwitch()).hasValueSatisfying(s -> {
            assertThat(s.enabled()).isFalse();
            assertThat(s.reason()).isEqualTo("maintenance");
        });
    }

    @Test
    void aProgramFailureOfTheEndedAttemptReadAfterTheJobWasPlacedAgainEndsItBeforeItsNextJob() {
        // found by the simulation (seed 2751): a device isolated under attempt 1 ended it as its program failed; the
        // program's failure was read only once attempt 2 was placed, and attempt 2 must then never create its Job
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        ExecutorCommand.EnsureJob first = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        isolated(f, "j1");
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
        jobGone(f, "j1", first.k8sJobName());
        f.advanceTicking(Duration.ofMinutes(2));
        // placed again: its second pool is asked for, no Job yet
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class).stream()
                        .map(ExecutorCommand.EnsureNodePool::nodePoolName)
                        .distinct())
                .hasSize(2);
        int jobsBefore = f.commandsOf(ExecutorCommand.EnsureJob.class).size();

        f.observe(new ExecutorEvent.JobFailed(
                f.meta(),
                "j1",
                first.cluster().clusterId(),
                "v6e",
                first.k8sJobName(),
                "Pod terminated: OOMKilled (exit code 137)",
                FailureCause.exited("OOMKilled", 137)));

        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobFailed);
        f.poolReady("j1");
        assertThat(f.commandsOf(ExecutorCommand.EnsureJob.class)).hasSize(jobsBefore);
    }

    /** fault-streams isolates a device of the job's running attempt now. */
    private static void isolated(SchedulerFixture f, String jobId) {
        f.record(f.scheduler.faultNoted(isolated(jobId, f.now), f.now));
    }

    @Test
    void aSuccessOfTheEndedAttemptReadLateEndsTheJobSucceededWhereverItsNextAttemptIs() {
        // found by the simulation (seeds 5509, 5680, 5809): a device isolated under an attempt whose program had just
        // completed; the success was read once the job waited to run again, or was placed again
        for (boolean placedAgain : List.of(false, true)) {
            SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
            ExecutorCommand.EnsureJob first = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
            isolated(f, "j1");
            assertThat(f.last("j1").reason()).contains(Reason.Retrying);
            if (placedAgain) {
                jobGone(f, "j1", first.k8sJobName());
                f.advanceTicking(Duration.ofMinutes(2));
                assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class).stream()
                                .map(ExecutorCommand.EnsureNodePool::nodePoolName)
                                .distinct())
                        .hasSize(2);
            }
            int jobsBefore = f.commandsOf(ExecutorCommand.EnsureJob.class).size();

            f.observe(new ExecutorEvent.JobSucceeded(
                    f.meta(), "j1", first.cluster().clusterId(), "v6e", first.k8sJobName()));

            TaskStatus done = f.last("j1");
            assertThat(done.status()).as("placed again: %s", placedAgain).isEqualTo(Status.Succeeded);
            assertThat(done.message()).contains("had completed before the fleet ended it");
            f.poolReady("j1");
            assertThat(f.commandsOf(ExecutorCommand.EnsureJob.class)).hasSize(jobsBefore);
        }
    }

    @Test
    void aRemovedClusterKeepsTheRetriedJobsPoolUntilItsKubernetesJobIsGone() {
        // found by the simulation (seed 5340): the clusters row deleted under a running job with retries; its pool
        // must not go from under its Job's terminating pods (nor after an abort that follows)
        SchedulerFixture f = fixture()
                .withCluster("c2", "v6e")
                .submit(retried("j1", RETRY_TWICE))
                .startRunning("j1");
        ExecutorCommand.EnsureJob first = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        String firstPool =
                f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").nodePoolName();
        String cluster = first.cluster().clusterId();

        f.record(f.scheduler.clusterRemoved(cluster, f.now));
        assertThat(f.last("j1").reason()).contains(Reason.Retrying);
        f.abort("j1");
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .extracting(ExecutorCommand.EnsureNodePoolDeleted::nodePoolName)
                .doesNotContain(firstPool);

        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", cluster, "v6e", first.k8sJobName()));
        f.advanceTicking(Duration.ofMinutes(1));
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborted);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .extracting(ExecutorCommand.EnsureNodePoolDeleted::nodePoolName)
                .contains(firstPool);
    }

    @Test
    void aJobPlacedAgainThatWaitsForItsQueueEndsWhenRetriesAreSwitchedOff() {
        // found by the simulation's retry switch (seed 45): placed again behind another job, it began its attempt
        // minutes after the switch, when the slot passed to it
        SchedulerFixture f = fixture().submit(retried("j1", RETRY_TWICE)).startRunning("j1");
        ExecutorCommand.EnsureJob first = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        failed(f, "j1", PREEMPTED, "Pod disrupted: DisruptionTarget: PreemptionByScheduler");
        // another job takes the queue's slot meanwhile (one acquirer per queue)
        f.submit(SchedulerFixture.request("j2", "bob", "v6e", "2x4", RETRY_TWICE));
        jobGone(f, "j1", first.k8sJobName());
        f.advanceTicking(Duration.ofMinutes(2));
        assertThat(f.last("j1").reason()).contains(Reason.Waiting);
        assertThat(f.last("j1").message()).contains("#2");
        int poolsOfJ1 = (int) f.commandsOf(ExecutorCommand.EnsureNodePool.class).stream()
                .filter(c -> c.jobId().equals("j1"))
                .count();

        f.record(f.scheduler.retriesSwitched(switched(false, f, "retry storm"), f.now));

        TaskStatus ended = f.last("j1");
        assertThat(ended.status()).isEqualTo(Status.Failed);
        assertThat(ended.reason()).contains(Reason.JobFailed);
        assertThat(ended.message()).contains("not run again: retries are switched off by ops");
        // the slot passing later starts nothing for it
        f.startRunning("j2").succeeded("j2");
        f.advanceTicking(Duration.ofMinutes(2));
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class).stream()
                        .filter(c -> c.jobId().equals("j1")))
                .hasSize(poolsOfJ1);
    }
}
