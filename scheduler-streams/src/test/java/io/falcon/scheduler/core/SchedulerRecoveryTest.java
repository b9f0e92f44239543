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

/** Each row of the phase table (docs/architecture.md) and the idempotency rules, one at a time. */
class SchedulerRecoveryTest {
    private final SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");

    private static JobRequest withTimeout(String id, long seconds) {
        return new JobRequest(
                id,
                "alice",
                "name-" + id,
                "v6e",
                "2x4",
                SchedulerFixture.SPEC,
                Optional.empty(),
                Optional.of(seconds),
                Instant.parse("2026-12-02T09:00:00Z"));
    }

    private int count(Class<? extends ExecutorCommand> type, String jobId) {
        return (int) f.commands.stream()
                .filter(c -> type.isInstance(c) && c.jobId().equals(jobId))
                .count();
    }

    @Test
    void aRepeatedNodePoolReadyChangesNothing() {
        f.submit("j1", "alice").poolReady("j1");
        int commands = f.commands.size();
        int statuses = f.statuses.size();
        f.poolReady("j1"); // redelivered, or re-announced by a restarted executor
        f.submitted("j1").running("j1");
        f.poolReady("j1");
        assertThat(f.commands).hasSize(commands + 0);
        assertThat(f.statuses.subList(statuses, f.statuses.size()))
                .extracting(s -> s.status())
                .containsExactly(Status.Pending, Status.Running);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class)).isEmpty();
    }

    @Test
    void jobRunningBeforeJobSubmittedArmsTheExecutionDeadlineAndRecordsTheUid() {
        f.submit(withTimeout("j1", 600)).poolReady("j1").running("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        assertThat(f.last("j1").jobUid()).contains("uid-j1");
        f.submitted("j1"); // arrives late: changes nothing
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);

        f.advance(Duration.ofSeconds(599));
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        f.advance(Duration.ofSeconds(2));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.Timeout);
        assertThat(f.last("j1").message()).isEqualTo("任务超时 (600s),已取消 Job");
    }

    @Test
    void aJobWithoutTimeoutSecondsGetsTheDefaultExecutionTimeout() {
        f.submit("j1", "alice").startRunning("j1");
        f.advance(Duration.ofHours(24).minusSeconds(5));
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        f.advance(Duration.ofSeconds(10));
        assertThat(f.last("j1").reason()).contains(Reason.Timeout);
        assertThat(f.last("j1").message()).isEqualTo("任务超时 (86400s),已取消 Job");
    }

    @Test
    void dispatchingReSendsEnsureJobUntilTheJobIsSeen() {
        f.submit("j1", "alice").poolReady("j1");
        assertThat(count(ExecutorCommand.EnsureJob.class, "j1")).isEqualTo(1);
        f.advance(Duration.ofSeconds(31));
        assertThat(count(ExecutorCommand.EnsureJob.class, "j1")).isEqualTo(2);
        f.submitted("j1").advance(Duration.ofMinutes(5));
        assertThat(count(ExecutorCommand.EnsureJob.class, "j1")).isEqualTo(2);
    }

    @Test
    void aRetryableSubmitFailureKeepsTheJobDispatchingUntilTheSubmitDeadline() {
        f.submit("j1", "alice").poolReady("j1");
        f.observe(new ExecutorEvent.JobSubmitFailed(
                f.meta(),
                "j1",
                "c1",
                "v6e",
                SchedulerFixture.name("j1"),
                "503 the server is currently unable to handle the request",
                true));
        assertThat(f.last("j1").reason()).contains(Reason.Dispatching);
        assertThat(f.last("j1").message()).contains("重试中: 503");
        f.advanceTicking(Duration.ofMinutes(10));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobSubmitFailed);
        assertThat(f.last("j1").message()).contains("last error: 503");
    }

    @Test
    void podsThatNeverRunFailTheJobAfterTheDispatchDeadlineAndFreeTheQueue() {
        f.submit("j1", "alice").submit("j2", "bob").poolReady("j1").submitted("j1");
        f.advance(Duration.ofMinutes(29));
        assertThat(f.last("j1").reason()).contains(Reason.Dispatching);
        f.advance(Duration.ofMinutes(2));
        assertThat(f.last("j1").reason()).contains(Reason.JobFailed);
        assertThat(f.last("j1").message()).startsWith("Pod 未能在 30m 内全部运行");
        assertThat(f.last("j2").reason())
                .as("j2 takes the slot while j1's pods may still be there")
                .contains(Reason.Provisioning);
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        assertThat(f.last("j2").reason())
                .as("j2 gets j1's pool once they are gone")
                .contains(Reason.Dispatching);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "j2").nodePoolName())
                .isEqualTo(SchedulerFixture.name("j1"));
    }

    @Test
    void waitingForNodeHasNoDeadlineButTheCommandIsReSent() {
        f.submit("j1", "alice");
        ExecutorCommand.EnsureNodePool ensure = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1");
        f.observe(
                new ExecutorEvent.NodePoolWaitingForNodes(f.meta(), "j1", "c1", "v6e", ensure.nodePoolName(), 0, 0, 2));
        for (int minute = 0; minute < 120; minute++) {
            f.advance(Duration.ofMinutes(1));
        }
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        assertThat(count(ExecutorCommand.EnsureNodePool.class, "j1")).isGreaterThan(100);
    }

    @Test
    void aFinishedJobsDeletionIsReSentUntilConfirmed() {
        f.submit("j1", "alice").startRunning("j1").succeeded("j1");
        assertThat(count(ExecutorCommand.EnsureJobDeleted.class, "j1")).isEqualTo(1);
        f.advance(Duration.ofSeconds(61));
        assertThat(count(ExecutorCommand.EnsureJobDeleted.class, "j1")).isEqualTo(2);
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        f.advance(Duration.ofMinutes(5));
        assertThat(count(ExecutorCommand.EnsureJobDeleted.class, "j1")).isEqualTo(2);
        assertThat(f.scheduler.deletions()).isEmpty();
    }

    @Test
    void deletingAClusterRowEndsItsActiveJobsReroutesTheWaitingAndDeletesItsPools() {
        f.submit("j1", "alice").submit("j2", "bob").startRunning("j1");
        f.submit("j3", "carol"); // waiting behind j2
        String pool = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").nodePoolName();

        f.record(f.scheduler.clusterRemoved("c1", f.now));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").message()).contains("cluster edge-c1 (c1) was removed");
        assertThat(f.last("j2").reason()).contains(Reason.NodePoolFailed);
        assertThat(f.last("j3").reason()).contains(Reason.Waiting);
        assertThat(f.last("j3").message()).startsWith("no eligible cluster for tpu_type v6e");
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .extracting(ExecutorCommand.EnsureNodePoolDeleted::nodePoolName)
                .contains(pool);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJobDeleted.class, "j1")
                        .cluster()
                        .clusterId())
                .isEqualTo("c1");

        // nothing about the gone cluster throws any more
        f.observe(new ExecutorEvent.JobSucceeded(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        f.abort("j2").abort("j3").advance(Duration.ofHours(30));
        assertThat(f.last("j3").status()).isEqualTo(Status.Aborted);
    }

    @Test
    void aMovedClusterEndsItsActiveJobsAndCleansUpAtTheOldLocation() {
        f.submit("j1", "alice").submit("j2", "bob").startRunning("j1").submit("j3", "carol");
        ClusterRow moved = new ClusterRow(
                "c1",
                "edge-c1",
                "proj-c1",
                "europe-west4",
                "v6e",
                "bucket-c1",
                Optional.empty(),
                ClusterStatus.ACTIVE,
                Optional.empty());
        f.record(f.scheduler.clusterUpserted(moved, f.now));

        assertThat(f.last("j1").message()).contains("moved from projects/proj-c1/locations/us-central1");
        assertThat(f.lastCommand(ExecutorCommand.EnsureJobDeleted.class, "j1")
                        .cluster()
                        .location())
                .isEqualTo("us-central1");
        assertThat(f.last("j2").status())
                .as("j2 was provisioning at the old location")
                .isEqualTo(Status.Failed);
        assertThat(f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j3")
                        .cluster()
                        .location())
                .as("the waiting job starts at the new location")
                .isEqualTo("europe-west4");
    }

    @Test
    void anInventoryOfAnotherLocationIsIgnored() {
        f.submit("j1", "alice").startRunning("j1").succeeded("j1").advance(Duration.ofSeconds(1));
        f.observe(new ExecutorEvent.JobInventory(
                f.meta(), "", "c1", "v6e", "projects/other/locations/x/clusters/edge-c1", java.util.List.of()));
        assertThat(f.scheduler.deletions())
                .as("not confirmed by a listing of somewhere else")
                .isNotEmpty();
        f.observe(new ExecutorEvent.JobInventory(
                f.meta(),
                "",
                "c1",
                "v6e",
                "projects/proj-c1/locations/us-central1/clusters/edge-c1",
                java.util.List.of()));
        assertThat(f.scheduler.deletions()).isEmpty();
    }

    private static final String EDGE_C1 = "projects/proj-c1/locations/us-central1/clusters/edge-c1";

    private ExecutorEvent.JobInventory listing(String uid, Optional<ExecutorEvent.ObservedEnd> end) {
        return new ExecutorEvent.JobInventory(
                f.meta(),
                "",
                "c1",
                "v6e",
                EDGE_C1,
                java.util.List.of(new ExecutorEvent.ObservedJob(
                        SchedulerFixture.name("j1"), "j1", uid, Optional.of(f.now), end.isPresent(), end)));
    }

    @Test
    void aJobListedAsEndedEndsAsItsLostReportWouldHave() {
        f.submit("j1", "alice").submit("j2", "bob").startRunning("j1");
        f.observe(listing("uid-j1", Optional.empty()));
        assertThat(f.last("j1").status()).as("listed, still going").isEqualTo(Status.Running);

        f.observe(listing("uid-j1", Optional.of(new ExecutorEvent.ObservedEnd(true, ""))));
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
        assertThat(f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j2"))
                .as("the slot goes on")
                .isNotNull();
        int published = f.of("j1").size();
        f.succeeded("j1"); // the report itself, late
        f.observe(listing("uid-j1", Optional.of(new ExecutorEvent.ObservedEnd(true, ""))));
        assertThat(f.of("j1")).as("one end").hasSize(published);
    }

    @Test
    void aJobListedAsFailedEndsWithTheMessageTheReportWouldCarry() {
        f.submit("j1", "alice").startRunning("j1");
        f.observe(listing(
                "uid-j1",
                Optional.of(new ExecutorEvent.ObservedEnd(false, "Pod terminated: OOMKilled (exit code 137)"))));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobFailed);
        assertThat(f.last("j1").message()).isEqualTo("Pod terminated: OOMKilled (exit code 137)");
    }

    @Test
    void anEndedJobOfAnotherClusterOrAnotherUidIsNotThisJobsEnd() {
        f.submit("j1", "alice").startRunning("j1");
        f.observe(new ExecutorEvent.JobInventory(
                f.meta(),
                "",
                "c1",
                "v6e",
                "projects/other/locations/x/clusters/edge-c1",
                java.util.List.of(new ExecutorEvent.ObservedJob(
                        SchedulerFixture.name("j1"),
                        "j1",
                        "uid-j1",
                        Optional.of(f.now),
                        true,
                        Optional.of(new ExecutorEvent.ObservedEnd(true, ""))))));
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        // a Job of that name with another uid: the one seen created is gone (the deletion backstop), not succeeded
        f.observe(listing("uid-other", Optional.of(new ExecutorEvent.ObservedEnd(true, ""))));
        assertThat(f.last("j1").status())
                .as("judged once a heartbeat covers the inventory (a report sent before it may still come)")
                .isEqualTo(Status.Running);
        f.advance(java.time.Duration.ofSeconds(1));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").message()).contains("was deleted outside Falcon");
    }

    /** An inventory taken after the executor's last heartbeat (whose clock the fixture runs the slack ahead). */
    private io.falcon.events.Meta inventoryMeta() {
        return io.falcon.events.Meta.of(
                "executor",
                f.now.plus(SchedulerSettings.defaults().withAcquirersPerQueue(1).observationSlack())
                        .plusSeconds(5));
    }

    @Test
    void aSuccessReportedRightBehindTheInventoryThatNoLongerListsTheJobIsASuccess() {
        // Seed 43266: someone deleted the finished Job; the executor's inventory, taken after the deletion, reached
        // the scheduler before the informer's JobSucceeded that was sent before the next heartbeat.
        f.submit("j1", "alice").startRunning("j1");
        f.advance(SchedulerSettings.defaults()
                .withAcquirersPerQueue(1)
                .orphanGrace()
                .plusMinutes(1));
        f.observe(new ExecutorEvent.JobInventory(inventoryMeta(), "", "c1", "v6e", EDGE_C1, java.util.List.of()));
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        f.succeeded("j1");
        f.advance(java.time.Duration.ofSeconds(10));
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void aJobTheInventoryNoLongerListsEndsOnceAHeartbeatCoversTheInventory() {
        f.submit("j1", "alice").startRunning("j1");
        f.advance(SchedulerSettings.defaults()
                .withAcquirersPerQueue(1)
                .orphanGrace()
                .plusMinutes(1));
        f.observe(new ExecutorEvent.JobInventory(inventoryMeta(), "", "c1", "v6e", EDGE_C1, java.util.List.of()));
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        f.advance(java.time.Duration.ofSeconds(10));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").message()).contains("was deleted outside Falcon before Falcon saw it finish");
    }

    @Test
    void aListingFromAnExecutorThatPredatesEndsEndsNothing() throws Exception {
        f.submit("j1", "alice").startRunning("j1");
        String old = "{\"type\":\"JobInventory\",\"meta\":{\"eventId\":\"e1\",\"occurredAt\":\"" + f.now
                + "\",\"producer\":\"executor\"},\"jobId\":\"\",\"clusterId\":\"c1\",\"tpuType\":\"v6e\","
                + "\"clusterResource\":\"" + EDGE_C1 + "\",\"jobs\":[{\"name\":\"" + SchedulerFixture.name("j1")
                + "\",\"falconJobId\":\"j1\","
                + "\"uid\":\"uid-j1\",\"finished\":true}]}";
        ExecutorEvent.JobInventory parsed =
                (ExecutorEvent.JobInventory) io.falcon.events.Json.mapper().readValue(old, ExecutorEvent.class);
        assertThat(parsed.jobs().get(0).end()).isEmpty();
        f.observe(parsed);
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
    }

    @Test
    void aRunningJobKeepsRunningWhenItsClusterGoesToMaintenanceAndSaysSo() {
        f.submit("j1", "alice").startRunning("j1");
        f.record(f.scheduler.clusterUpserted(
                SchedulerFixture.cluster("c1", "v6e", "maintenance", Optional.empty()), f.now));
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        assertThat(f.last("j1").message())
                .isEqualTo("Pod 运行中 (2/2 active); cluster edge-c1 is in maintenance: this "
                        + "job keeps running, no new jobs start there");
        f.record(f.scheduler.clusterUpserted(SchedulerFixture.cluster("c1", "v6e", "active", Optional.empty()), f.now));
        assertThat(f.last("j1").message()).isEqualTo("Pod 运行中 (2/2 active)");
        f.succeeded("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
    }

    @Test
    void aPoolDeletionThatKeepsFailingIsAppendedToTheJobsMessageWhoseStatusStays() {
        f.submit("j1", "alice").startRunning("j1").succeeded("j1");
        String pool = f.last("j1").nodePoolName().orElseThrow();
        f.observe(new ExecutorEvent.NodePoolDeleteFailing(
                f.meta(), "", "c1", "v6e", pool, 5, "INTERNAL: delete operation failed"));
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
        assertThat(f.last("j1").message())
                .isEqualTo("(node pool " + pool + " 删除失败,重试中: INTERNAL: delete " + "operation failed)");
        int published = f.of("j1").size();
        f.observe(new ExecutorEvent.NodePoolDeleteFailing(
                f.meta(), "", "c1", "v6e", pool, 5, "INTERNAL: delete operation failed"));
        assertThat(f.of("j1")).as("said once").hasSize(published);
        f.advance(Duration.ofMinutes(2));
        assertThat(count(ExecutorCommand.EnsureNodePoolDeleted.class, ""))
                .as("still retried")
                .isGreaterThan(1);
    }

    @Test
    void aPoolWaitingForNodesIsKeptWhileAnotherTopologysJobsAcquireBesideIt() {
        // seed section 4: the WaitingForNode pool is kept (GKE keeps retrying); queues of other topologies are not
        // blocked by it and acquire in parallel.
        f.submit("j1", "alice");
        String pool = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").nodePoolName();
        f.observe(new ExecutorEvent.NodePoolWaitingForNodes(f.meta(), "j1", "c1", "v6e", pool, 0, 0, 2));
        f.submit(new JobRequest(
                "k1",
                "bob",
                "name-k1",
                "v6e",
                "4x4",
                SchedulerFixture.SPEC,
                Optional.empty(),
                Optional.empty(),
                Instant.parse("2026-12-02T09:00:00Z")));
        assertThat(f.last("k1").reason()).contains(Reason.Provisioning);
        for (int minute = 0; minute < 180; minute++) {
            f.advance(Duration.ofMinutes(1));
        }
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .noneMatch(d -> d.nodePoolName().equals(pool));
    }

    @Test
    void anAbortedDispatchingJobWhoseDeletionIsNeverConfirmedGivesUpItsSlotAfterTheDispatchDeadline() {
        f.submit("j1", "alice").poolReady("j1").submit("j2", "bob").abort("j1");
        f.advance(Duration.ofMinutes(29));
        assertThat(f.last("j2").reason())
                .as("the slot is held while the deletion may still come")
                .contains(Reason.Waiting);
        f.advance(Duration.ofMinutes(2));
        assertThat(f.last("j2").reason()).as("the queue does not wait for ever").contains(Reason.Provisioning);
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborting);
        int asked = count(ExecutorCommand.EnsureJobDeleted.class, "j1");
        f.advance(Duration.ofMinutes(2));
        assertThat(count(ExecutorCommand.EnsureJobDeleted.class, "j1")).isGreaterThan(asked);
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborted);
    }
}
