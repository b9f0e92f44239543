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
    void item6_podsThatWaitedForCapacityWhileTheExecutorWasBlindCountTheirTimeoutFromTheirNodes() {
        // The Job is created on a pool whose nodes the autoscaler took away meanwhile; its pods wait two hours for
        // them while the executor crash-loops (no word of the wait, no heartbeat). Then they run: the 30-minute
        // timeout counts from when the slice was there, not from the Job's creation.
        f.submit(timed("t1", 1800)).poolReady("t1").submitted("t1");
        f.advanceWithoutExecutor(Duration.ofHours(2));
        assertThat(f.last("t1").status()).isEqualTo(Status.Pending);
        Instant bound = f.now.minusSeconds(20);
        f.running("t1", Optional.of(bound));
        f.observe(f.heartbeat(f.now.plus(f.scheduler.settings().observationSlack())));
        f.advanceTicking(Duration.ofMinutes(25));
        assertThat(f.last("t1").status()).isEqualTo(Status.Running);
        // a job that really overruns its timeout from then still times out
        f.advanceTicking(Duration.ofMinutes(10));
        assertThat(f.last("t1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("t1").reason()).contains(Reason.Timeout);
    }

    @Test
    void item14_aClusterClockAheadDoesNotPushTheTimeoutPastTheScheduler() {
        // the edge cluster's clock runs an hour ahead: its bind time is later than anything the scheduler has seen
        f.submit(timed("t1", 600)).poolReady("t1").submitted("t1");
        f.running("t1", Optional.of(f.now.plus(Duration.ofHours(1))));
        f.advanceTicking(Duration.ofMinutes(12));
        assertThat(f.last("t1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("t1").reason()).contains(Reason.Timeout);
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
    void item10_aRefusalOfAnAskRepeatedSinceDoesNotEndTheJobWhenALaterAskCreatedIt() {
        // Seed 576 (bench/simulate, 6 acquirers per queue): the executor worked through a backlog of re-sent
        // EnsureJobs; an admission webhook refused an early one and let a later one through. Ending the job on the
        // first refusal left a Job running behind a Failed row (it went on to succeed).
        f.submit("j1", "alice").poolReady("j1");
        ExecutorCommand.EnsureJob first = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        f.advanceTicking(Duration.ofMinutes(2)); // no answer: the scheduler asks again
        ExecutorCommand.EnsureJob latest = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        assertThat(latest.meta().occurredAt()).isAfter(first.meta().occurredAt());

        f.observe(new ExecutorEvent.JobSubmitFailed(
                f.meta(),
                "j1",
                "c1",
                "v6e",
                first.k8sJobName(),
                "admission webhook \"validate.policy.example\" denied the request",
                false,
                Optional.of(first.meta().occurredAt())));
        assertThat(f.last("j1").status())
                .as("an older ask's refusal does not decide")
                .isEqualTo(Status.Pending);
        f.observe(new ExecutorEvent.JobSubmitted(f.meta(), "j1", "c1", "v6e", first.k8sJobName(), "uid-1"));
        f.observe(new ExecutorEvent.JobRunning(
                f.meta(), "j1", "c1", "v6e", first.k8sJobName(), "uid-1", 1, 1, Optional.empty()));
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
    }

    @Test
    void item10_aRefusalOfTheLatestAskEndsTheJob() {
        f.submit("j1", "alice").poolReady("j1");
        f.advanceTicking(Duration.ofMinutes(2));
        ExecutorCommand.EnsureJob latest = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");

        f.observe(new ExecutorEvent.JobSubmitFailed(
                f.meta(),
                "j1",
                "c1",
                "v6e",
                latest.k8sJobName(),
                "admission webhook \"validate.policy.example\" denied the request",
                false,
                Optional.of(latest.meta().occurredAt())));

        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobSubmitFailed);
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

    @Test
    void item6_aSchedulerStalledWhileAJobWaitsForNodesReDrivesItsJobBeforeJudgingTheSubmitDeadline() {
        // Seed 39006: the Job's create took effect but its answer was lost (DEADLINE_EXCEEDED), the flex-start pool's
        // node count made the job wait for nodes, and the scheduler stalled for 90 min. Coming back, the first
        // heartbeat of its backlog covered the submit deadline, which fired before the scheduler had asked again, so
        // before the executor could say the Job was there: a job that went on to succeed ended JobSubmitFailed.
        f.submit("j1", "alice").poolReady("j1");
        ExecutorCommand.EnsureJob ensure = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        f.observe(new ExecutorEvent.JobSubmitFailed(
                f.meta(), "j1", "c1", "v6e", ensure.k8sJobName(), "DEADLINE_EXCEEDED: jobs.create: no answer", true));
        f.observe(new ExecutorEvent.NodePoolWaitingForNodes(
                f.meta(), "j1", "c1", "v6e", ensure.nodePoolName(), 0, 0, 2, true));
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        long asked = f.commandsOf(ExecutorCommand.EnsureJob.class).stream()
                .filter(c -> c.jobId().equals("j1"))
                .count();

        f.advance(Duration.ofMinutes(90)); // the stall: a heartbeat of the backlog, then the first tick
        assertThat(f.last("j1").status())
                .as("not judged before the executor could answer")
                .isEqualTo(Status.Pending);
        assertThat(f.commandsOf(ExecutorCommand.EnsureJob.class).stream()
                        .filter(c -> c.jobId().equals("j1"))
                        .count())
                .as("asked again first")
                .isGreaterThan(asked);

        f.observe(new ExecutorEvent.JobSubmitted(f.meta(), "j1", "c1", "v6e", ensure.k8sJobName(), "uid-1"));
        f.advanceTicking(Duration.ofMinutes(15));
        assertThat(f.last("j1").status())
                .as("the Job is there: it waits for its nodes")
                .isEqualTo(Status.Pending);
        f.startRunning("j1").succeeded("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
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

    // ---- item 13: a row snapshotted again after Falcon forgot its job never runs it again ----

    @Test
    void item13_aSnapshotRowFalconWroteOfAForgottenJobIsNotRunAgain() {
        JobRequest request = SchedulerFixture.request("j1", "alice", "v6e", "2x4", SchedulerFixture.SPEC);
        f.submit(request).startRunning("j1").succeeded("j1");
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        int statuses = f.of("j1").size();

        // within the retention: a duplicate, as ever
        f.record(f.scheduler.submitSnapshotted(request, f.now));
        assertThat(f.of("j1")).hasSize(statuses);

        // past it (the status-sink lagged, and cdc-ingest snapshotted the table again): not run again
        f.advance(f.scheduler.settings().terminalRetention().plusHours(1));
        int commandsBefore = f.commands.size();
        f.record(f.scheduler.submitSnapshotted(request, f.now));
        assertThat(f.commands.subList(commandsBefore, f.commands.size()))
                .noneMatch(c -> c.jobId().equals("j1"));
        assertThat(f.scheduler.jobs()).noneMatch(j -> j.id().equals("j1"));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").version())
                .as("version 1: written only over a row the sink holds no newer status of")
                .isEqualTo(1);
        assertThat(f.last("j1").message()).contains("not run again").contains("new id");

        // the same row as an insert (the upper component's submit) would run: the mark is what stops it
        int before = f.commands.size();
        f.submit(request);
        assertThat(f.commands.subList(before, f.commands.size()))
                .anyMatch(c ->
                        c instanceof ExecutorCommand.EnsureNodePool && c.jobId().equals("j1"));
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

    // ---- found by reading against the seed ----

    @Test
    void aPoolDeletionThatKeepsFailingAmendsTheEndedJobOnceWithoutEndingItAgain() {
        f.submit("j1", "alice").startRunning("j1").succeeded("j1");
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        String pool =
                f.lastCommand(ExecutorCommand.EnsureNodePoolDeleted.class, "").nodePoolName();
        long endedBefore = f.ledger.stream()
                .filter(d -> d.kind() == io.falcon.events.decision.Decision.Kind.ENDED)
                .count();
        f.observe(new ExecutorEvent.NodePoolDeleteFailing(
                f.meta(), "", "c1", "v6e", pool, 5, "INTERNAL: failed to delete instance group"));
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
        assertThat(f.last("j1").message()).contains("删除失败");
        assertThat(f.ledger.stream().filter(d -> d.kind() == io.falcon.events.decision.Decision.Kind.ENDED))
                .as("one ENDED decision per job")
                .hasSize((int) endedBefore);
        assertThat(f.scheduler.liveJob("j1")).isEmpty();
    }

    @Test
    void clearingAClustersDefaultReservationMovesItsWaitingReservationJobsAndKeepsAShortHolderWaiting() {
        SchedulerFixture r = new SchedulerFixture();
        ClusterRow withReservation = SchedulerFixture.cluster("r1", "v6e", "active", Optional.of("res-1"));
        r.record(r.scheduler.clusterUpserted(withReservation, r.now));
        JobRequest holder = SchedulerFixture.request("holder", "a", "v6e", "2x4", SchedulerFixture.SPEC);
        r.submit(new JobRequest(
                holder.id(),
                holder.actor(),
                holder.name(),
                holder.tpuType(),
                holder.topology(),
                holder.spec(),
                Optional.of("reservation"),
                Optional.empty(),
                holder.submittedAt()));
        String cluster = r.last("holder").clusterId().orElseThrow();
        ExecutorCommand.EnsureNodePool ensure = r.lastCommand(ExecutorCommand.EnsureNodePool.class, "holder");
        r.observe(new ExecutorEvent.ReservationShort(
                r.meta(),
                "holder",
                cluster,
                "v6e",
                ensure.nodePoolName(),
                ensure.reservation().orElseThrow(),
                0,
                2));
        assertThat(r.last("holder").reason()).contains(Reason.ClusterBusy);
        JobRequest queued = SchedulerFixture.request("queued", "b", "v6e", "2x4", SchedulerFixture.SPEC);
        r.submit(new JobRequest(
                queued.id(),
                queued.actor(),
                queued.name(),
                queued.tpuType(),
                queued.topology(),
                queued.spec(),
                Optional.of("reservation"),
                Optional.empty(),
                queued.submittedAt()));

        // the holder's cluster loses its default_reservation
        ClusterRow row = r.scheduler.cluster(cluster).orElseThrow();
        r.record(r.scheduler.clusterUpserted(
                new ClusterRow(
                        row.id(),
                        row.name(),
                        row.project(),
                        row.location(),
                        row.tpuType(),
                        row.gcsBucket(),
                        Optional.empty(),
                        row.status(),
                        row.createdAt()),
                r.now));
        int ensuresBefore = r.commandsOf(ExecutorCommand.EnsureNodePool.class).size();
        r.advanceTicking(Duration.ofMinutes(5));
        assertThat(r.last("holder").status()).isEqualTo(Status.Pending);
        assertThat(r.last("holder").reason()).contains(Reason.ClusterBusy);
        assertThat(r.last("holder").message()).contains("names no default_reservation now");
        assertThat(r.commandsOf(ExecutorCommand.EnsureNodePool.class).stream()
                        .skip(ensuresBefore)
                        .filter(c -> c.jobId().equals("holder")))
                .as("no pool of no reservation is asked for")
                .isEmpty();
        // the waiting one no longer queues for a cluster it cannot start on: it waits for one that can take it
        assertThat(r.last("queued").status()).isEqualTo(Status.Pending);
        assertThat(r.last("queued").message()).contains("no eligible cluster");
        assertThat(r.scheduler.queueDepth(new QueueKey(cluster, "2x4"))).isEqualTo(1); // the holder alone
    }

    // ---- item 5: a cluster that keeps refusing work is avoided, and the Message and the ledger say why ----

    private void failPoolOf(SchedulerFixture r, String jobId, String error) {
        ExecutorCommand.EnsureNodePool ensure = r.lastCommand(ExecutorCommand.EnsureNodePool.class, jobId);
        r.observe(new ExecutorEvent.NodePoolCreateFailed(
                r.meta(), jobId, ensure.cluster().clusterId(), "v6e", ensure.nodePoolName(), false, 0, error));
    }

    @Test
    void item5_aClusterWhoseEveryPoolIsRefusedIsAvoidedAndItsWaitingJobsMove() {
        SchedulerFixture r = new SchedulerFixture().withCluster("c1", "v6e");
        String quota = "RESOURCE_EXHAUSTED: Quota 'TPUS_PER_PROJECT' exceeded. Limit: 0.0 in region us-central1.";
        // three jobs, one after the other, all on c1 (the only cluster), all refused
        for (String id : java.util.List.of("a1", "a2", "a3")) {
            r.submit(id, "alice");
            failPoolOf(r, id, quota);
            assertThat(r.last(id).reason()).contains(Reason.NodePoolFailed);
        }
        // a second cluster arrives; c1's queue is empty and c2's holds work, yet new jobs go to c2
        r.withCluster("c2", "v6e");
        r.submit("b0", "bob");
        r.submit("b1", "carol");
        assertThat(r.last("b1").clusterId()).contains("c2");
        io.falcon.events.decision.Decision placed = r.ledger.stream()
                .filter(d ->
                        d.jobId().equals("b1") && d.kind() == io.falcon.events.decision.Decision.Kind.CLUSTER_CHOSEN)
                .findFirst()
                .orElseThrow();
        assertThat(placed.candidates())
                .filteredOn(c -> c.clusterId().equals("c1"))
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.outcome()).isEqualTo(io.falcon.events.decision.Decision.Outcome.AVOIDED);
                    assertThat(c.why())
                            .contains("3 failure(s) in a row")
                            .contains("Quota")
                            .contains("avoided until");
                });
    }

    @Test
    void item5_whenEveryClusterIsAvoidedJobsWaitSayingWhyAndGoAgainAfterTheCoolDown() {
        SchedulerFixture r = new SchedulerFixture().withCluster("c1", "v6e");
        for (String id : java.util.List.of("a1", "a2", "a3")) {
            r.submit(id, "alice");
            failPoolOf(r, id, "PERMISSION_DENIED: the GKE service agent lacks container.nodePools.create");
        }
        r.submit("w", "bob");
        assertThat(r.last("w").reason()).contains(Reason.Waiting);
        assertThat(r.last("w").message()).contains("keep refusing work").contains("PERMISSION_DENIED");
        assertThat(r.commandsOf(ExecutorCommand.EnsureNodePool.class))
                .noneMatch(c -> c.jobId().equals("w"));

        r.advanceTicking(ClusterHealth.FIRST_COOL_DOWN.plusMinutes(1));
        // the probe: w goes to c1 again; its success clears the record
        assertThat(r.last("w").reason()).contains(Reason.Provisioning);
        r.poolReady("w");
        assertThat(r.last("w").reason()).contains(Reason.Dispatching);
    }

    /** Three jobs on c1 whose pools GKE refuses for good (the pools gone, nothing left to retry): c1 is avoided. */
    private void refuseThreePoolsOnC1(SchedulerFixture r) {
        for (String id : java.util.List.of("a1", "a2", "a3")) {
            r.submit(id, "alice");
            failPoolOf(r, id, "PERMISSION_DENIED: the GKE service agent lacks container.nodePools.create");
            String pool =
                    r.lastCommand(ExecutorCommand.EnsureNodePool.class, id).nodePoolName();
            r.observe(new ExecutorEvent.NodePoolDeleted(r.meta(), "", "c1", "v6e", pool));
        }
    }

    @Test
    void item5_aShellThatTicksOnlyWhenATimerIsDueStillPlacesTheWaitingJobAfterTheCoolDown() {
        SchedulerFixture r = new SchedulerFixture().withCluster("c1", "v6e");
        refuseThreePoolsOnC1(r);
        Instant tripped = r.now;
        r.submit("w", "bob");
        // as the simulation's shell (and a punctuator that sleeps until the next timer) does: tick only when due
        Instant limit = tripped.plus(ClusterHealth.FIRST_COOL_DOWN).plusSeconds(5);
        for (Optional<Instant> due = r.scheduler.nextTimer();
                due.isPresent()
                        && !due.get().isAfter(limit)
                        && r.last("w").reason().filter(Reason.Waiting::equals).isPresent();
                due = r.scheduler.nextTimer()) {
            r.now = due.get().isAfter(r.now) ? due.get() : r.now.plusMillis(1);
            r.record(r.scheduler.tick(r.now));
        }
        assertThat(r.last("w").reason())
                .as("the cool-down's end is a timer: the probe goes out when it ends")
                .contains(Reason.Provisioning);
        assertThat(r.now).isAfterOrEqualTo(tripped.plus(ClusterHealth.FIRST_COOL_DOWN));
    }

    @Test
    void item5_aRestartedSchedulerWithAParkedJobAndNoOtherTimerHasATickDueAtOnce() {
        MemoryStore memory = new MemoryStore();
        SchedulerFixture r = new SchedulerFixture().persistingTo(memory.store()).withCluster("c1", "v6e");
        refuseThreePoolsOnC1(r);
        r.submit("w", "bob");
        assertThat(r.last("w").reason()).contains(Reason.Waiting);

        // Seed 4458: the scheduler restarts before the cool-down ends; the restarted one forgot the avoidance, and
        // so its end, and nothing else was due: a shell that ticks only when a timer is due never placed w again.
        Scheduler restored = SchedulerStore.restore(
                memory.store(), SchedulerSettings.defaults().withAcquirersPerQueue(1));
        Instant restartedAt = r.now.plusSeconds(20);
        assertThat(restored.nextTimer())
                .as("the first tick of a restarted scheduler with parked jobs is due at once")
                .hasValueSatisfying(due -> assertThat(due).isBeforeOrEqualTo(restartedAt));
        SchedulerFixture after = new SchedulerFixture(restored);
        after.now = restartedAt;
        after.record(restored.tick(after.now));
        assertThat(after.last("w").reason()).contains(Reason.Provisioning);
        assertThat(restored.nextTimer().filter(due -> !due.isAfter(restartedAt)))
                .as("once it has ticked, nothing more is due at once")
                .isEmpty();
    }

    @Test
    void item5_aJobParkedByAnAvoidedClusterIsPlacedAgainWhenTheRowMovesToAnotherGkeCluster() {
        SchedulerFixture r = new SchedulerFixture().withCluster("c1", "v6e");
        refuseThreePoolsOnC1(r);
        r.submit("w", "bob");
        assertThat(r.last("w").reason()).contains(Reason.Waiting);
        Instant tripped = r.now;

        // Seed 3136: the row now names another GKE cluster; the old one's record was dropped with its cool-down's
        // end, and w stayed parked for ever.
        r.advance(java.time.Duration.ofMinutes(1));
        io.falcon.events.cdc.ClusterRow moved = new io.falcon.events.cdc.ClusterRow(
                "c1",
                "edge-c1",
                "proj-c1",
                "us-east5",
                "v6e",
                "bucket-c1",
                Optional.empty(),
                io.falcon.events.ClusterStatus.ACTIVE,
                Optional.empty());
        r.record(r.scheduler.clusterUpserted(moved, r.now));
        Instant limit = tripped.plus(ClusterHealth.FIRST_COOL_DOWN);
        for (Optional<Instant> due = r.scheduler.nextTimer();
                due.isPresent()
                        && due.get().isBefore(limit)
                        && r.last("w").reason().filter(Reason.Waiting::equals).isPresent();
                due = r.scheduler.nextTimer()) {
            r.now = due.get().isAfter(r.now) ? due.get() : r.now.plusMillis(1);
            r.record(r.scheduler.tick(r.now));
        }
        assertThat(r.last("w").reason())
                .as("placed on the moved cluster before the old cool-down would have ended")
                .contains(Reason.Provisioning);
        assertThat(r.now).isBefore(limit);
    }

    @Test
    void item5_aFailedProbeAvoidsTheClusterAgainAtOnceForLonger() {
        ClusterHealth health = new ClusterHealth(java.time.ZoneOffset.UTC);
        Instant t0 = Instant.parse("2026-12-02T10:00:00Z");
        health.failed("c1", "refused", t0);
        health.failed("c1", "refused", t0);
        assertThat(health.avoided("c1", t0)).isEmpty();
        assertThat(health.failed("c1", "refused", t0)).isTrue();
        assertThat(health.avoided("c1", t0.plus(ClusterHealth.FIRST_COOL_DOWN).minusSeconds(1)))
                .isPresent();
        Instant probe = t0.plus(ClusterHealth.FIRST_COOL_DOWN).plusSeconds(1);
        assertThat(health.avoided("c1", probe)).isEmpty();
        assertThat(health.failed("c1", "refused again", probe))
                .as("the probe failed: avoided again")
                .isTrue();
        assertThat(health.avoided(
                        "c1", probe.plus(ClusterHealth.FIRST_COOL_DOWN).plusSeconds(1)))
                .as("for twice as long")
                .isPresent();
        Instant success = probe.plusSeconds(30);
        health.succeeded("c1", success);
        assertThat(health.avoided("c1", success)).isEmpty();
        assertThat(health.nextCoolDownEnd(success))
                .as("a tick is due when the avoidance ended, even at the instant of the last tick")
                .contains(success);
        assertThat(health.cooledDown(success, success))
                .as("a success ends the avoidance as a cool-down's end does: the next tick places its parked jobs")
                .containsExactly("c1");
        assertThat(health.nextCoolDownEnd(success))
                .as("handed to that tick once")
                .isEmpty();
        assertThat(health.failed("c1", "refused once more", success.plusSeconds(1)))
                .as("the count starts again")
                .isFalse();
    }
}
