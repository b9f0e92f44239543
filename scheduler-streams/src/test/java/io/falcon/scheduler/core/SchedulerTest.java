package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SchedulerTest {
    private final SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");

    @Test
    void aJobGoesWaitingProvisioningDispatchingRunningSucceeded() {
        f.submit("j1", "alice");
        assertThat(f.of("j1"))
                .extracting(TaskStatus::reason)
                .containsExactly(Optional.of(Reason.Waiting), Optional.of(Reason.Provisioning));
        ExecutorCommand.EnsureNodePool pool = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1");
        assertThat(pool.nodePoolName()).isEqualTo(SchedulerFixture.name("j1"));
        assertThat(pool.supplyMode()).isEqualTo(SupplyMode.FLEX_START);
        assertThat(f.last("j1").message()).isEqualTo("正在创建 node pool (supply: flex-start)...");

        f.poolReady("j1");
        assertThat(f.last("j1").reason()).contains(Reason.Dispatching);
        assertThat(f.last("j1").message()).isEqualTo("Node pool 就绪,正在提交 K8s Job...");
        ExecutorCommand.EnsureJob job = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        assertThat(job.nodePoolName()).isEqualTo(SchedulerFixture.name("j1"));
        assertThat(job.spec().image()).isEqualTo("us-docker.pkg.dev/p/r/train:1");
        assertThat(job.actor())
                .as("whose Secrets the pods may reference, and whose identity they may run as")
                .contains("alice");

        f.submitted("j1");
        assertThat(f.last("j1").jobUid()).contains("uid-j1");
        assertThat(f.last("j1").dispatchedAt()).contains(f.now);

        f.running("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        assertThat(f.last("j1").reason()).isEmpty();
        assertThat(f.last("j1").message()).isEqualTo("Pod 运行中 (2/2 active)");

        f.succeeded("j1");
        TaskStatus done = f.last("j1");
        assertThat(done.status()).isEqualTo(Status.Succeeded);
        assertThat(done.message()).isEmpty();
        assertThat(done.finishedAt()).contains(f.now);
        assertThat(done.clusterId()).contains("c1");
        assertThat(done.nodePoolName()).contains(SchedulerFixture.name("j1"));
        assertThat(f.commandsOf(ExecutorCommand.EnsureJobDeleted.class)).hasSize(1);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .singleElement()
                .extracting(ExecutorCommand.EnsureNodePoolDeleted::nodePoolName)
                .isEqualTo(SchedulerFixture.name("j1"));
    }

    @Test
    void versionsOfOneJobStrictlyGrow() {
        f.submit("j1", "alice").startRunning("j1").succeeded("j1");
        assertThat(f.of("j1")).extracting(TaskStatus::version).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void anInvalidSpecFailsWithInvalidSpecNamingTheField() {
        f.submit(SchedulerFixture.request("bad", "alice", "v6e", "2x4", "{\"command\":[\"python\"]}"));
        TaskStatus status = f.last("bad");
        assertThat(status.status()).isEqualTo(Status.Failed);
        assertThat(status.reason()).contains(Reason.InvalidSpec);
        assertThat(status.message()).contains("spec.image");
        assertThat(f.commands).isEmpty();
    }

    @Test
    void badTpuTypeTopologyAndJsonAreNamed() {
        f.submit(SchedulerFixture.request("t", "a", "v9", "2x4", SchedulerFixture.SPEC));
        f.submit(SchedulerFixture.request("p", "a", "v6e", "3x3", SchedulerFixture.SPEC));
        f.submit(SchedulerFixture.request("j", "a", "v6e", "2x4", "{not json"));
        f.submit(SchedulerFixture.request(
                "e", "a", "v6e", "2x4", "{\"image\":\"x\",\"command\":[\"sh\"],\"env\":{\"A\":{\"b\":1}}}"));
        assertThat(f.last("t").message()).contains("tpu_type");
        assertThat(f.last("p").message()).contains("topology");
        assertThat(f.last("j").message()).contains("spec is not valid JSON");
        assertThat(f.last("e").message()).contains("spec.env.A");
        f.submit(SchedulerFixture.request("c", "a", "v6e", "2x4", "{\"image\":\"x\"}"));
        assertThat(f.last("c").message()).contains("spec.command");
    }

    @Test
    void oneJobAtATimeAcquiresResourcesPerQueueAndRunningReleasesTheSlot() {
        f.submit("j1", "alice").submit("j2", "bob");
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class)).hasSize(1);
        assertThat(f.last("j2").reason()).contains(Reason.Waiting);
        assertThat(f.last("j2").message()).isEqualTo("队列位置 #2,前面有 1 个任务 (alice: name-j1)");

        f.startRunning("j1");
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class)).hasSize(2);
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
    }

    @Test
    void roundRobinAcrossActorsFifoWithinEach() {
        f.submit("a1", "alice").submit("a2", "alice").submit("a3", "alice").submit("b1", "bob");
        // bob jumps ahead of alice's later jobs: alice was served last
        assertThat(f.last("b1").message()).isEqualTo("队列位置 #2,前面有 1 个任务 (alice: name-a1)");
        assertThat(f.last("a3").message()).startsWith("队列位置 #4");
        f.startRunning("a1");
        f.startRunning("b1");
        f.startRunning("a2");
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class))
                .extracting(ExecutorCommand::jobId)
                .containsExactly("a1", "b1", "a2", "a3");
    }

    @Test
    void aHigherPriorityJobOvertakesTheWaitingOnesAndTheirPositionsSaySo() {
        f.submit("a1", "alice").submit("a2", "alice").submit("b1", "bob");
        f.submit(SchedulerFixture.request("u1", "carol", "v6e", "2x4", SchedulerFixture.SPEC)
                .withPriority(5));
        // a1 holds the slot; carol's priority-5 job is next, ahead of bob and alice's a2; after carol's turn the
        // round-robin goes on from carol, so alice's a2 (earlier by id at the same submission time) precedes b1
        assertThat(f.last("u1").message()).isEqualTo("队列位置 #2,前面有 1 个任务 (alice: name-a1)");
        assertThat(f.last("a2").message()).isEqualTo("队列位置 #3,前面有 2 个任务 (alice: name-a1, carol: name-u1)");
        assertThat(f.last("b1").message()).startsWith("队列位置 #4");
        f.startRunning("a1");
        f.startRunning("u1");
        f.startRunning("a2");
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class))
                .extracting(ExecutorCommand::jobId)
                .containsExactly("a1", "u1", "a2", "b1");
    }

    @Test
    void aPriorityGivenInTheSpecCountsWhenTheColumnIsNull() {
        f.submit("a1", "alice").submit("a2", "alice");
        f.submit(SchedulerFixture.request(
                "b1", "bob", "v6e", "2x4", "{\"image\":\"i\",\"command\":[\"sh\"],\"priority\":-1}"));
        // bob's job has priority -1: round-robin does not lift it over alice's priority-0 job
        assertThat(f.last("b1").message()).startsWith("队列位置 #3");
    }

    @Test
    void positionsMoveUpWhenTheSlotIsTakenAndSurviveARestore() {
        f.submit("a1", "alice").submit("a2", "alice").submit("b1", "bob");
        assertThat(f.last("a2").message()).startsWith("队列位置 #3");
        SchedulerFixture restored = new SchedulerFixture();
        f.scheduler.clusters().forEach(restored.scheduler::restoreCluster);
        f.scheduler.pools().forEach(restored.scheduler::restorePool);
        restored.scheduler.restoreQueue(new QueueKey("c1", "2x4"), Optional.of("alice"));
        f.scheduler.jobs().forEach(restored.scheduler::restoreJob);
        restored.commands.addAll(f.commands);

        restored.startRunning("a1");
        assertThat(restored.last("b1").reason()).contains(Reason.Provisioning);
        assertThat(restored.last("a2").message()).isEqualTo("队列位置 #2,前面有 1 个任务 (bob: name-b1)");
    }

    @Test
    void jobsQueuedBehindTheKeptCurrentPositionsStillLearnTheirPosition() {
        SchedulerSettings one =
                SchedulerSettings.defaults().withAcquirersPerQueue(1).withPositionUpdates(1);
        SchedulerFixture deep = new SchedulerFixture(one).withCluster("c1", "v6e");
        for (int i = 1; i <= 13; i++) {
            deep.submit(String.format("j%02d", i), "actor" + i);
        }
        assertThat(deep.last("j02").message()).isEqualTo("队列位置 #2,前面有 1 个任务 (actor1: name-j01)");
        assertThat(deep.last("j05").message()).isEqualTo("队列位置 #5,前面有 4 个任务");
        assertThat(deep.last("j11").message()).isEqualTo("队列位置 #11,前面有 10 个任务");
        assertThat(deep.last("j13").message()).isEqualTo("队列位置 #12 之后,前面至少有 11 个任务");
        assertThat(deep.of("j13")).extracting(TaskStatus::reason).containsOnly(Optional.of(Reason.Waiting));
    }

    @Test
    void aReplacedBacklogLearnsItsPositionsInEachQueueExactlyUpToTheBoundThenBeyond() {
        SchedulerSettings one = SchedulerSettings.defaults()
                .withAcquirersPerQueue(1)
                .withPositionUpdates(1); // exact up to 10, then beyond
        SchedulerFixture deep = new SchedulerFixture(one).withCluster("c1", "v6e");
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            ids.add(String.format("j%02d", i));
            deep.submit(ids.get(i - 1), "actor" + i);
        }
        deep.withCluster("c2", "v6e"); // the backlog is placed again over both, in one step

        for (String cluster : List.of("c1", "c2")) {
            List<String> waiting = ids.stream()
                    .filter(id -> deep.last(id).clusterId().equals(Optional.of(cluster))
                            && deep.last(id).reason().equals(Optional.of(Reason.Waiting)))
                    .toList();
            assertThat(waiting).hasSizeGreaterThan(11);
            // one job per actor, so the pick order is the submission order; the slot holder is #1
            for (int i = 0; i < waiting.size(); i++) {
                String message = deep.last(waiting.get(i)).message();
                if (i < 10) {
                    assertThat(message).as(waiting.get(i)).startsWith("队列位置 #" + (i + 2) + ",");
                } else {
                    assertThat(message).as(waiting.get(i)).isEqualTo("队列位置 #12 之后,前面至少有 11 个任务");
                }
            }
        }
    }

    @Test
    void theShortestQueueWinsAmongActiveClustersOfTheType() {
        f.withCluster("c2", "v6e").withCluster("c3", "v7x");
        f.submit("j1", "a").submit("j2", "a").submit("j3", "a");
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class))
                .extracting(c -> c.cluster().clusterId())
                .containsExactly("c1", "c2");
        assertThat(f.last("j3").clusterId()).contains("c1");
    }

    @Test
    void withoutAnActiveClusterAJobWaitsAndSaysWhyThenIsPlacedWhenOneComes() {
        f.submit(SchedulerFixture.request("x", "a", "v5p", "2x2x1", SchedulerFixture.SPEC));
        assertThat(f.last("x").status()).isEqualTo(Status.Pending);
        assertThat(f.last("x").message()).contains("no eligible cluster for tpu_type v5p");
        f.withCluster("c9", "v5p");
        assertThat(f.last("x").reason()).contains(Reason.Provisioning);
    }

    @Test
    void aClusterThatBecomesActiveTakesItsShareOfTheBacklogInOrder() {
        f.submit("j1", "a").submit("j2", "b").submit("j3", "c").submit("j4", "d");
        assertThat(f.last("j4").message()).startsWith("队列位置 #4");
        f.withCluster("c2", "v6e");
        assertThat(f.last("j2").clusterId()).contains("c2");
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
        assertThat(f.last("j3").clusterId()).contains("c1");
        assertThat(f.last("j3").message()).startsWith("队列位置 #2");
        assertThat(f.last("j4").clusterId()).contains("c2");
        assertThat(f.last("j4").message()).startsWith("队列位置 #2");
    }

    @Test
    void waitingJobsOfAClusterGoingToMaintenanceAreRerouted() {
        f.submit("j1", "a").submit("j2", "b");
        f.withCluster("c2", "v6e");
        f.record(f.scheduler.clusterUpserted(
                SchedulerFixture.cluster("c1", "v6e", "maintenance", Optional.empty()), f.now));
        assertThat(f.last("j2").clusterId()).contains("c2");
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
    }

    @Test
    void reservationByDefaultWhenTheClusterHasOne() {
        SchedulerFixture r = new SchedulerFixture();
        r.record(r.scheduler.clusterUpserted(
                SchedulerFixture.cluster("r1", "v6e", "active", Optional.of("res-1")), r.now));
        r.submit("j1", "a");
        ExecutorCommand.EnsureNodePool pool = r.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1");
        assertThat(pool.supplyMode()).isEqualTo(SupplyMode.RESERVATION);
        assertThat(pool.reservation()).contains("res-1");
    }

    @Test
    void anEndingJobHandsItsPoolToTheJobStillProvisioningInItsQueue() {
        f.submit("j1", "a").startRunning("j1");
        f.submit("j2", "b");
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
        f.succeeded("j1");
        assertThat(f.last("j2").reason()).contains(Reason.Dispatching);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "j2").nodePoolName())
                .isEqualTo(SchedulerFixture.name("j1"));
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .extracting(ExecutorCommand.EnsureNodePoolDeleted::nodePoolName)
                .containsExactly(SchedulerFixture.name("j2"));
    }

    @Test
    void abortWhileWaitingRemovesFromTheQueue() {
        f.submit("j1", "a").submit("j2", "b").submit("j3", "c");
        f.abort("j2");
        assertThat(f.last("j2").status()).isEqualTo(Status.Aborted);
        assertThat(f.last("j2").abortedAt()).contains(f.now);
        assertThat(f.last("j3").message()).startsWith("队列位置 #2");
    }

    @Test
    void abortWhileProvisioningHandsThePoolBeingCreatedToTheNextJob() {
        // seed section 8: "不因 abort 而跳过复用检查" — the next job of the queue takes the pool being created
        f.submit("j1", "a").submit("j2", "b");
        f.abort("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborted);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class)).isEmpty();
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
        assertThat(f.last("j2").nodePoolName()).contains(SchedulerFixture.name("j1"));
        assertThat(f.last("j2").message()).contains("taking over node pool " + SchedulerFixture.name("j1") + "");
        f.observe(new ExecutorEvent.NodePoolReady(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        assertThat(f.last("j2").reason()).contains(Reason.Dispatching);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "j2").nodePoolName())
                .isEqualTo(SchedulerFixture.name("j1"));
    }

    @Test
    void abortWhileProvisioningWithNobodyToTakeThePoolDeletesIt() {
        f.submit("j1", "a").abort("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborted);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .singleElement()
                .satisfies(d -> assertThat(d.nodePoolName()).isEqualTo(SchedulerFixture.name("j1")));
    }

    @Test
    void abortWhileRunningWaitsForTheJobDeletionThenReleasesThePool() {
        f.submit("j1", "a").startRunning("j1").abort("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborting);
        assertThat(f.last("j1").message()).isEqualTo("正在中止,等待 K8s Job 删除和 node pool 清理...");
        assertThat(f.commandsOf(ExecutorCommand.EnsureJobDeleted.class)).hasSize(1);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class)).isEmpty();

        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborted);
        assertThat(f.last("j1").abortedAt()).contains(f.now);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class)).hasSize(1);
    }

    @Test
    void abortWhileDispatchingKeepsTheSlotAndHandsThePoolOnOnceTheJobIsGone() {
        // seed section 4: the slot is released when pods run or the job ends; an aborting job has not ended
        f.submit("j1", "a").poolReady("j1").submit("j2", "b");
        assertThat(f.last("j2").reason()).contains(Reason.Waiting);
        f.abort("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborting);
        assertThat(f.last("j2").reason()).contains(Reason.Waiting);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class))
                .extracting(ExecutorCommand::jobId)
                .containsExactly("j1");
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborted);
        assertThat(f.last("j2").reason()).contains(Reason.Dispatching);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "j2").nodePoolName())
                .isEqualTo(SchedulerFixture.name("j1"));
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class))
                .extracting(ExecutorCommand::jobId)
                .as("j2 never asked for a pool of its own")
                .containsExactly("j1");
    }

    @Test
    void anExplicitSupplyModeIsHonouredOnReuse() {
        JobRequest onDemand = new JobRequest(
                "j2",
                "b",
                "name-j2",
                "v6e",
                "2x4",
                SchedulerFixture.SPEC,
                Optional.of("on-demand"),
                Optional.empty(),
                Instant.parse("2026-12-02T09:00:00Z"));
        f.submit("j1", "a").startRunning("j1").submit(onDemand); // j1's pool is flex-start (no reservation)
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
        f.succeeded("j1");
        assertThat(f.last("j2").reason()).as("not handed j1's flex-start pool").contains(Reason.Provisioning);
        assertThat(f.lastCommand(ExecutorCommand.EnsureNodePoolDeleted.class, "")
                        .nodePoolName())
                .isEqualTo(SchedulerFixture.name("j1"));
        assertThat(f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j2").supplyMode())
                .isEqualTo(SupplyMode.ON_DEMAND);
    }

    @Test
    void anIdlePoolLingersAttractsTheNextJobOfItsTopologyAndIsReused() {
        SchedulerFixture lingering = new SchedulerFixture(SchedulerSettings.defaults()
                        .withAcquirersPerQueue(1)
                        .withIdleLinger(java.util.Map.of(SupplyMode.FLEX_START, Duration.ofMinutes(10))))
                .withCluster("c1", "v6e")
                .withCluster("c2", "v6e");
        lingering.submit("j1", "a").startRunning("j1").succeeded("j1");
        assertThat(lingering.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .isEmpty();
        String cluster = lingering.last("j1").clusterId().orElseThrow();

        lingering.advance(Duration.ofMinutes(5)).submit("j2", "b");
        assertThat(lingering.last("j2").clusterId())
                .as("prefers the cluster with the idle pool")
                .contains(cluster);
        assertThat(lingering.last("j2").reason()).contains(Reason.Dispatching);
        assertThat(lingering.last("j2").nodePoolName()).contains(SchedulerFixture.name("j1"));
        lingering.submitted("j2").running("j2").succeeded("j2").advance(Duration.ofMinutes(11));
        assertThat(lingering.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .singleElement()
                .satisfies(d -> assertThat(d.nodePoolName()).isEqualTo(SchedulerFixture.name("j1")));
    }

    @Test
    void anUnconfirmedDeletionIsAskedAgain() {
        f.submit("j1", "a").startRunning("j1").abort("j1");
        f.advance(Duration.ofSeconds(61));
        assertThat(f.commandsOf(ExecutorCommand.EnsureJobDeleted.class)).hasSize(2);
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborting);
    }

    @Test
    void aShortReservationKeepsTheJobClusterBusyHoldingTheSlotAndRetries() {
        SchedulerFixture r = new SchedulerFixture();
        r.record(r.scheduler.clusterUpserted(
                SchedulerFixture.cluster("r1", "v6e", "active", Optional.of("res-1")), r.now));
        r.submit("j1", "a").submit("j2", "b");
        r.observe(new ExecutorEvent.ReservationShort(
                r.meta(), "j1", "r1", "v6e", SchedulerFixture.name("j1"), "res-1", 1, 2));
        assertThat(r.last("j1").status()).isEqualTo(Status.Pending);
        assertThat(r.last("j1").reason()).contains(Reason.ClusterBusy);
        assertThat(r.last("j1").message())
                .isEqualTo("reservation_remaining_slices=1 reservation_needed_slices=2,等待 reservation 容量释放...");
        assertThat(r.last("j2").reason()).contains(Reason.Waiting);

        r.advance(Duration.ofSeconds(31));
        assertThat(r.commandsOf(ExecutorCommand.EnsureNodePool.class))
                .extracting(ExecutorCommand::jobId)
                .containsExactly("j1", "j1");
        assertThat(r.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").supplyMode())
                .isEqualTo(SupplyMode.RESERVATION);
        // capacity appeared and GKE accepted the creation: no longer ClusterBusy
        r.observe(new ExecutorEvent.NodePoolCreating(r.meta(), "j1", "r1", "v6e", SchedulerFixture.name("j1")));
        assertThat(r.last("j1").reason()).contains(Reason.Provisioning);
        assertThat(r.last("j1").message()).isEqualTo("正在创建 node pool (supply: reservation)...");
        r.poolReady("j1");
        assertThat(r.last("j1").reason()).contains(Reason.Dispatching);
    }

    @Test
    void aReservationSeenChangesNothingWhateverTheJobsStep() {
        SchedulerFixture r = new SchedulerFixture();
        r.record(r.scheduler.clusterUpserted(
                SchedulerFixture.cluster("r1", "v6e", "active", Optional.of("res-1")), r.now));
        r.submit("j1", "a");
        TaskStatus provisioning = r.last("j1");
        // read before the create (the pool fits), before a shortage, and for a job nobody knows
        for (ExecutorEvent.ReservationSeen seen : List.of(
                new ExecutorEvent.ReservationSeen(r.meta(), "j1", "r1", "v6e", "res-1", 8, 2),
                new ExecutorEvent.ReservationSeen(r.meta(), "j1", "r1", "v6e", "res-1", 8, 8),
                new ExecutorEvent.ReservationSeen(r.meta(), "nobody", "r1", "v6e", "res-1", 8, 0))) {
            Decisions out = r.scheduler.observe(seen, r.now);
            assertThat(out.isEmpty()).as("decisions of %s", seen).isTrue();
            assertThat(out.changedJobs()).isEmpty();
            assertThat(out.changedClusters()).isEmpty();
            assertThat(out.ledger()).isEmpty();
        }
        assertThat(r.last("j1")).isEqualTo(provisioning);
        // and the job goes on as it would have: GKE accepted the pool
        r.observe(new ExecutorEvent.NodePoolCreating(r.meta(), "j1", "r1", "v6e", SchedulerFixture.name("j1")));
        r.poolReady("j1");
        assertThat(r.last("j1").reason()).contains(Reason.Dispatching);
    }

    @Test
    void aJobWaitingForNodesWhosePoolIsCreatedAgainShortOfTheReservationSaysSoAndStaysWaitingForNode() {
        SchedulerFixture r = new SchedulerFixture();
        r.record(r.scheduler.clusterUpserted(
                SchedulerFixture.cluster("r1", "v6e", "active", Optional.of("res-1")), r.now));
        r.submit("j1", "a").poolReady("j1").submitted("j1");
        r.observe(new ExecutorEvent.NodePoolWaitingForNodes(
                r.meta(), "j1", "r1", "v6e", SchedulerFixture.name("j1"), 0, 0, 1, true));
        assertThat(r.last("j1").reason()).contains(Reason.WaitingForNode);
        // the pool went under the pending pods; the retry asks for it again and the reservation is short of it
        ExecutorEvent.ReservationShort shortage = new ExecutorEvent.ReservationShort(
                r.meta(), "j1", "r1", "v6e", SchedulerFixture.name("j1"), "res-1", 0, 1);
        r.observe(shortage);
        TaskStatus waiting = r.last("j1");
        assertThat(waiting.status()).isEqualTo(Status.Pending);
        assertThat(waiting.reason())
                .as("its Job is submitted: it waits for nodes, not for a pool to provision")
                .contains(Reason.WaitingForNode);
        assertThat(waiting.message())
                .isEqualTo("node pool " + SchedulerFixture.name("j1")
                        + " is being created again: reservation_remaining_slices=0"
                        + " reservation_needed_slices=1,等待 reservation 容量释放...");
        int published = r.of("j1").size();
        r.observe(shortage); // the next retry's answer, or a redelivery
        assertThat(r.of("j1")).hasSize(published);
        // another job's shortage for a pool of the same name says nothing of j1
        r.observe(new ExecutorEvent.ReservationShort(
                r.meta(), "other", "r1", "v6e", SchedulerFixture.name("j1"), "res-1", 1, 1));
        assertThat(r.of("j1")).hasSize(published);
        // the pool is back: the count says where the nodes are, and Ready nodes end the wait
        r.observe(new ExecutorEvent.NodePoolWaitingForNodes(
                r.meta(), "j1", "r1", "v6e", SchedulerFixture.name("j1"), 0, 0, 1, true));
        assertThat(r.last("j1").message()).contains("0/1 expected node(s) registered");
        r.observe(new ExecutorEvent.NodePoolWaitingForNodes(
                r.meta(), "j1", "r1", "v6e", SchedulerFixture.name("j1"), 1, 1, 1));
        assertThat(r.last("j1").reason()).contains(Reason.Dispatching);
    }

    @Test
    void nodesRegisteringLateShowWaitingForNodeWithoutATimeout() {
        f.submit("j1", "a");
        f.observe(new ExecutorEvent.NodePoolWaitingForNodes(
                f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1"), 0, 0, 2));
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        assertThat(f.last("j1").message())
                .isEqualTo("node pool " + SchedulerFixture.name("j1")
                        + " control-plane RUNNING but 0/2 expected node(s) registered (Ready=0)...");
        f.advance(Duration.ofHours(2));
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        f.poolReady("j1");
        assertThat(f.last("j1").reason()).contains(Reason.Dispatching);
    }

    @Test
    void withoutAnyWordFromTheExecutorProvisioningFailsNodePoolTimeout() {
        f.submit("j1", "a");
        f.advanceTicking(Duration.ofMinutes(15).plus(f.scheduler.settings().observationSlack()));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.NodePoolTimeout);
    }

    @Test
    void anUnknownFalconPoolIsDeletedAsAnOrphanAfterTheGraceOnly() {
        f.submit("j1", "a");
        var live = new ExecutorEvent.ObservedPool(
                SchedulerFixture.name("j1"), "PROVISIONING", "j1", "2x4", Optional.of(f.now));
        var orphan =
                new ExecutorEvent.ObservedPool(SchedulerFixture.name("old"), "RUNNING", "old", "2x4", Optional.empty());
        var foreign = new ExecutorEvent.ObservedPool("default-pool", "RUNNING", "", "", Optional.empty());
        f.observe(new ExecutorEvent.NodePoolInventory(
                f.meta(),
                "",
                "c1",
                "v6e",
                "projects/proj-c1/locations/us-central1/clusters/edge-c1",
                List.of(live, orphan, foreign)));
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class)).isEmpty();

        f.advance(Duration.ofMinutes(10));
        f.observe(new ExecutorEvent.NodePoolInventory(
                f.meta(),
                "",
                "c1",
                "v6e",
                "projects/proj-c1/locations/us-central1/clusters/edge-c1",
                List.of(live, orphan, foreign)));
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .extracting(ExecutorCommand.EnsureNodePoolDeleted::nodePoolName)
                .containsExactly(SchedulerFixture.name("old"));
    }

    @Test
    void executionTimeoutFailsTheJobFromDispatchedAt() {
        f.submit(new JobRequest(
                "t1",
                "a",
                "n",
                "v6e",
                "2x4",
                SchedulerFixture.SPEC,
                Optional.empty(),
                Optional.of(60L),
                Instant.EPOCH));
        f.startRunning("t1");
        f.advance(Duration.ofSeconds(59));
        assertThat(f.last("t1").status()).isEqualTo(Status.Running);
        f.advance(Duration.ofSeconds(1));
        assertThat(f.last("t1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("t1").reason()).contains(Reason.Timeout);
        assertThat(f.last("t1").message()).isEqualTo("任务超时 (60s),已取消 Job");
    }

    @Test
    void poolCreationFailureAndTimeoutMapToTheirReasons() {
        f.submit("q", "a").submit("t", "b");
        f.observe(new ExecutorEvent.NodePoolCreateFailed(
                f.meta(), "q", "c1", "v6e", SchedulerFixture.name("q"), false, 0, "Quota 'TPUS_PER_PROJECT' exceeded"));
        assertThat(f.last("q").reason()).contains(Reason.NodePoolFailed);
        assertThat(f.last("q").message()).isEqualTo("node pool 创建失败: Quota 'TPUS_PER_PROJECT' exceeded");
        f.observe(new ExecutorEvent.NodePoolCreateFailed(
                f.meta(),
                "t",
                "c1",
                "v6e",
                SchedulerFixture.name("t"),
                true,
                600,
                "node pool " + SchedulerFixture.name("t") + " not RUNNING (node pool PROVISIONING)"));
        assertThat(f.last("t").reason()).contains(Reason.NodePoolTimeout);
        assertThat(f.last("t").message())
                .isEqualTo("node pool 创建超时 (10m): node pool " + SchedulerFixture.name("t")
                        + " not RUNNING (node pool PROVISIONING)");
    }

    @Test
    void aRejectedSubmissionFailsJobSubmitFailedAndReleasesThePool() {
        f.submit("j1", "a").poolReady("j1").submit("j2", "b");
        f.observe(new ExecutorEvent.JobSubmitFailed(
                f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1"), "admission webhook denied", false));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobSubmitFailed);
        assertThat(f.last("j1").message()).isEqualTo("K8s Job 提交失败: admission webhook denied");
        // j2 was waiting behind j1: it takes the slot at once; j1's pool waits for its Job's deletion to be
        // confirmed (a later attempt may have been let through), then goes to j2 instead of the pool j2 is creating
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        assertThat(f.last("j2").reason()).contains(Reason.Dispatching);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "j2").nodePoolName())
                .isEqualTo(SchedulerFixture.name("j1"));
    }

    @Test
    void aFailedPodFailsJobFailedWithThePodReason() {
        f.submit("j1", "a").startRunning("j1");
        f.observe(new ExecutorEvent.JobFailed(
                f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1"), "Pod terminated: OOMKilled (exit code 137)"));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobFailed);
        assertThat(f.last("j1").message()).isEqualTo("Pod terminated: OOMKilled (exit code 137)");
        assertThat(f.last("j1").finishedAt()).contains(f.now);
        assertThat(f.commandsOf(ExecutorCommand.EnsureJobDeleted.class)).hasSize(1);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .as("the pool waits for the Job's pods to be gone")
                .isEmpty();
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", SchedulerFixture.name("j1")));
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class)).hasSize(1);
    }

    @Test
    void aTerminalStatusIsFinalAndDuplicatesAreIgnored() {
        f.submit("j1", "a").startRunning("j1").succeeded("j1");
        int before = f.statuses.size();
        f.succeeded("j1").submit("j1", "a");
        assertThat(f.statuses).hasSize(before);
        // an abort written over the ended row is answered with the end again, saying so (issue 30 item 11)
        f.abort("j1");
        assertThat(f.statuses).hasSize(before + 1);
        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
        assertThat(f.last("j1").message()).contains("abort requested after the job had ended Succeeded");
    }
}
