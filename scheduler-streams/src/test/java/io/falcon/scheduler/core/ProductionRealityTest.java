package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.ClusterStatus;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Ordinary production events that once killed healthy jobs (issue 30), each as its own case on the pure core. The
 * same events run at random in the simulation (docs/reliability.md).
 */
class ProductionRealityTest {
    private final SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");

    private JobRequest timed(String id, long timeoutSeconds) {
        return new JobRequest(
                id,
                "alice",
                "n",
                "v6e",
                "2x4",
                SchedulerFixture.SPEC,
                Optional.empty(),
                Optional.of(timeoutSeconds),
                Instant.EPOCH);
    }

    private static ClusterRow edited(ClusterRow row, String bucket, String serviceAccount) {
        return new ClusterRow(
                row.id(),
                row.name(),
                row.project(),
                row.location(),
                row.tpuType(),
                bucket,
                row.defaultReservation(),
                row.status(),
                row.createdAt(),
                Optional.of(serviceAccount));
    }

    // ---- item 1: a clusters row edit that names the same GKE cluster moves nothing ----

    @Test
    void item1_anEditOfTheBucketOrServiceAccountKeepsRunningJobsAndAppliesToJobsDispatchedAfterIt() {
        f.submit("run", "alice").startRunning("run");
        f.submit("wait", "bob");
        ClusterRow before = f.scheduler.cluster("c1").orElseThrow();
        f.record(f.scheduler.clusterUpserted(edited(before, "bucket-new", "runner"), f.now));

        assertThat(f.last("run").status()).isEqualTo(Status.Running);
        assertThat(f.commandsOf(ExecutorCommand.EnsureJobDeleted.class)).isEmpty();
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class)).isEmpty();

        f.succeeded("run");
        assertThat(f.last("run").status()).isEqualTo(Status.Succeeded);
        // the waiting job takes the slot (and the finished job's pool) and is dispatched with the new columns
        ExecutorCommand.EnsureJob dispatched = f.lastCommand(ExecutorCommand.EnsureJob.class, "wait");
        assertThat(dispatched.cluster().gcsBucket()).isEqualTo("bucket-new");
        assertThat(dispatched.cluster().k8sServiceAccount()).contains("runner");
    }

    @Test
    void item1_aChangeOfLocationIsStillAMove() {
        f.submit("run", "alice").startRunning("run");
        ClusterRow before = f.scheduler.cluster("c1").orElseThrow();
        f.record(f.scheduler.clusterUpserted(
                new ClusterRow(
                        before.id(),
                        before.name(),
                        before.project(),
                        "us-east1",
                        before.tpuType(),
                        before.gcsBucket(),
                        before.defaultReservation(),
                        ClusterStatus.ACTIVE,
                        before.createdAt()),
                f.now));
        assertThat(f.last("run").status()).isEqualTo(Status.Failed);
        assertThat(f.last("run").message()).contains("moved from");
    }

    // ---- item 6: a deadline fires only after the events that could have met it were read ----

    @Test
    void item6_aDeadlinePassedWhileTheExecutorSaidNothingWaitsAndASuccessReadLaterWins() {
        f.submit(timed("t1", 60)).startRunning("t1");
        // the scheduler's clock passes the deadline, but no heartbeat says the cluster was observed through it
        f.advanceWithoutExecutor(Duration.ofMinutes(30));
        assertThat(f.last("t1").status()).isEqualTo(Status.Running);
        assertThat(f.scheduler.heldDeadlines()).isEqualTo(1);
        // the backlog: the success (it came within the timeout), then the heartbeat
        f.succeeded("t1");
        f.observe(f.heartbeat(f.now));
        assertThat(f.last("t1").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void item6_aJobThatReallyOverranTimesOutOnceTheExecutorHasLookedPastTheDeadline() {
        f.submit(timed("t1", 60)).startRunning("t1");
        Instant deadline = f.now.plusSeconds(60);
        f.advanceWithoutExecutor(Duration.ofMinutes(10));
        assertThat(f.last("t1").status()).isEqualTo(Status.Running);

        // a heartbeat short of the deadline plus the slack decides nothing
        f.observe(f.heartbeat(deadline.plusSeconds(30)));
        assertThat(f.last("t1").status()).isEqualTo(Status.Running);
        // one past it does: nothing it has not read could have met the deadline
        f.observe(f.heartbeat(deadline.plus(f.scheduler.settings().observationSlack())));
        assertThat(f.last("t1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("t1").reason()).contains(Reason.Timeout);
        assertThat(f.scheduler.heldDeadlines()).isZero();
    }

    @Test
    void item6_aHeartbeatOfAnotherClusterCoversNothing() {
        f.submit(timed("t1", 60)).startRunning("t1");
        f.advanceWithoutExecutor(Duration.ofMinutes(10));
        f.observe(new ExecutorEvent.Heartbeat(
                f.meta(),
                "",
                "",
                "",
                "executor-0",
                java.util.List.of(new ExecutorEvent.ClusterObserved(
                        "projects/other/locations/us-central1/clusters/other", f.now))));
        assertThat(f.last("t1").status()).isEqualTo(Status.Running);
    }

    @Test
    void item6_aScanOfTheBacklogAfterAStallDoesNotFailAProvisioningJobWhoseCommandNobodySent() {
        // the executor that was creating the pool restarted (it forgets what it created) while the scheduler was
        // stalled: nothing asked for the pool for an hour, so the backstop starts again with the re-sent command
        f.submit("p1", "alice");
        f.stall(Duration.ofHours(1));
        f.observe(f.heartbeat(f.now.plus(f.scheduler.settings().observationSlack())));
        assertThat(f.last("p1").status()).isEqualTo(Status.Pending);
        assertThat(f.lastCommand(ExecutorCommand.EnsureNodePool.class, "p1")
                        .meta()
                        .occurredAt())
                .isEqualTo(f.now);
        // and a silent executor is still caught by the backstop, counted from the new ask
        f.advanceTicking(Duration.ofMinutes(17));
        assertThat(f.last("p1").reason()).contains(Reason.NodePoolTimeout);
    }

    // ---- item 10: a permanent submit refusal never leaves a job holding its slot and pool ----

    @Test
    void item10_aRefusedJobCreateEndsJobSubmitFailedAndFreesTheQueue() {
        f.submit("j1", "alice").submit("j2", "bob").poolReady("j1");
        ExecutorCommand.EnsureJob ensure = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        f.observe(new ExecutorEvent.JobSubmitFailed(
                f.meta(),
                "j1",
                "c1",
                "v6e",
                ensure.k8sJobName(),
                "jobs.batch is forbidden: User \"system:serviceaccount:falcon:executor\" cannot create resource",
                false));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobSubmitFailed);
        assertThat(f.last("j1").message()).contains("forbidden");
        assertThat(f.last("j2").reason()).isNotEqualTo(Optional.of(Reason.Waiting));
    }

    @Test
    void item10_aRefusalAfterALateNodeCountStillEndsTheJobAtTheSubmitDeadline() {
        // a node count (reordered, or late from the pool's creation) marks the job waiting for nodes before any
        // word of its Job; then every create is refused. It used to wait for nodes for ever, holding slot and pool.
        f.submit("j1", "alice").submit("j2", "bob").poolReady("j1");
        ExecutorCommand.EnsureJob ensure = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        f.observe(new ExecutorEvent.NodePoolWaitingForNodes(
                f.meta(), "j1", "c1", "v6e", ensure.nodePoolName(), 0, 0, 2, true));
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        f.observe(new ExecutorEvent.JobSubmitFailed(
                f.meta(),
                "j1",
                "c1",
                "v6e",
                ensure.k8sJobName(),
                "admission webhook \"validate.policy.example\" denied the request",
                false));
        assertThat(f.last("j1").status()).isEqualTo(Status.Pending);
        f.advanceTicking(Duration.ofMinutes(12));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobSubmitFailed);
        assertThat(f.last("j1").message()).contains("admission webhook");
        // the queue goes on: the next job takes the slot, and the freed pool once the refused Job's deletion is
        // confirmed
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", ensure.k8sJobName()));
        assertThat(f.last("j2").reason()).contains(Reason.Dispatching);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "j2").nodePoolName())
                .isEqualTo(ensure.nodePoolName());
    }

    // ---- item 11: upper components' writes outside the contract each get a defined, terminal answer ----

    @Test
    void item11_anAbortOfAJobThatAlreadyEndedIsAnsweredWithItsEnd() {
        f.submit("j1", "alice").startRunning("j1").succeeded("j1");
        f.abort("j1"); // the row overwritten with Aborting after the job succeeded
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
        assertThat(f.last("j1").finishedAt()).isPresent();
        assertThat(f.last("j1").message()).contains("abort requested after the job had ended Succeeded");
    }

    @Test
    void item11_anInsertAlreadyAbortingEndsAborted() {
        f.abort("never-submitted");
        assertThat(f.last("never-submitted").status()).isEqualTo(Status.Aborted);
        assertThat(f.last("never-submitted").abortedAt()).isPresent();
        assertThat(f.last("never-submitted").message()).contains("no record of job never-submitted");
        assertThat(f.commands).isEmpty();
    }

    @Test
    void item11_anUpdateBackToPendingIsAnsweredWithTheJobsOwnStatus() {
        f.submit("run", "alice").startRunning("run");
        f.record(f.scheduler.rewrite("run", "Pending", f.now));
        assertThat(f.last("run").status()).isEqualTo(Status.Running);
        assertThat(f.last("run").message()).contains("status was set to 'Pending' by a writer");
        assertThat(f.commandsOf(ExecutorCommand.EnsureJobDeleted.class)).isEmpty();

        f.succeeded("run");
        f.record(f.scheduler.rewrite("run", "Cancelled", f.now)); // a value that is no status
        assertThat(f.last("run").status()).isEqualTo(Status.Succeeded);
        assertThat(f.last("run").message()).contains("'Cancelled'");
    }

    @Test
    void item11_aRewriteOfARowFalconHasNoRecordOfEndsInvalidSpecNamingStatus() {
        f.record(f.scheduler.rewrite("ghost", "Pending", f.now));
        assertThat(f.last("ghost").status()).isEqualTo(Status.Failed);
        assertThat(f.last("ghost").reason()).contains(Reason.InvalidSpec);
        assertThat(f.last("ghost").message()).startsWith("status:");
    }

    @Test
    void item11_aNewRowReusingAnIdIsAnsweredWithTheEarlierJobsStatusAndStartsNothing() {
        f.submit("j1", "alice").startRunning("j1").succeeded("j1");
        int commands = f.commands.size();
        JobRequest reuse = new JobRequest(
                "j1",
                "mallory",
                "other",
                "v6e",
                "2x4",
                SchedulerFixture.SPEC,
                Optional.empty(),
                Optional.empty(),
                Instant.parse("2026-12-02T11:00:00Z"));
        f.submit(reuse);
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
        assertThat(f.last("j1").message()).contains("a new row was inserted with this id");
        assertThat(f.commands).hasSize(commands);
        // the very same request again (a CDC redelivery) is a duplicate: nothing
        int statuses = f.statuses.size();
        f.submit(SchedulerFixture.request("j1", "alice", "v6e", "2x4", SchedulerFixture.SPEC));
        assertThat(f.statuses).hasSize(statuses);
    }

    // ---- item 12: a priority changed while the job waits is honoured, or refused visibly ----

    @Test
    void item12_aPriorityRaisedWhileWaitingTakesTheNextFreeSlot() {
        f.submit("holder", "a").submit("first", "b").submit("second", "c");
        assertThat(f.last("second").message()).contains("#3"); // behind the slot holder and first
        f.record(f.scheduler.reprioritize("second", Optional.of(50L), f.now));
        assertThat(f.of("second")).anyMatch(st -> st.message().contains("priority changed to 50"));
        assertThat(f.last("second").message()).contains("#2"); // its new place, ahead of first
        assertThat(f.last("first").message()).contains("#3");
        f.startRunning("holder");
        assertThat(f.last("second").reason()).contains(Reason.Provisioning);
        assertThat(f.last("first").reason()).contains(Reason.Waiting);
    }

    @Test
    void item12_aPriorityChangeOfAStartedJobOrOutOfRangeIsRefusedVisibly() {
        f.submit("run", "a").startRunning("run").submit("wait", "b");
        f.record(f.scheduler.reprioritize("run", Optional.of(5L), f.now));
        assertThat(f.last("run").status()).isEqualTo(Status.Running);
        assertThat(f.last("run").message()).contains("priority change to 5 not applied");
        f.record(f.scheduler.reprioritize("wait", Optional.of(5000L), f.now));
        assertThat(f.last("wait").message()).contains("priority change to 5000 refused");
    }
}
