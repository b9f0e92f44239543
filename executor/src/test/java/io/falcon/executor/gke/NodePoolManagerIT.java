package io.falcon.executor.gke;

import static io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.rpc.NotFoundException;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import io.falcon.events.Meta;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.SimHarness;
import io.falcon.fleetsim.FleetRecord;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NodePoolManagerIT {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private SimHarness h;

    @BeforeEach
    void start() {
        h = new SimHarness(Map.of(
                "falcon.executor.node-pool.create-timeout",
                "3s",
                "falcon.executor.node-pool.inventory-interval",
                "400ms",
                "falcon.executor.node-pool.scale-down.flex-start",
                "7h"));
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private static EnsureNodePool ensure(String jobId, String topology, SupplyMode mode, String reservation) {
        return new EnsureNodePool(
                Meta.of("test", Instant.now()),
                jobId,
                SimHarness.cluster(),
                "falcon-" + jobId,
                "v7x",
                topology,
                mode,
                Optional.ofNullable(reservation));
    }

    /** What the scheduler sends when the job's pool is no longer wanted. */
    private static EnsureNodePoolDeleted deletePool(String jobId) {
        return executorCommand(jobId)
                .cluster(SimHarness.cluster())
                .nodePoolName("falcon-" + jobId)
                .producer("test")
                .at(Instant.now())
                .ensureNodePoolDeleted();
    }

    private NodePool pool(String name) {
        return h.gke.getNodePool(SimHarness.cluster().resourceName() + "/nodePools/" + name);
    }

    private long createOperations(String pool) {
        String parent = "projects/" + SimHarness.PROJECT + "/locations/" + SimHarness.LOCATION;
        return h.gke.listOperations(parent).getOperationsList().stream()
                .filter(o -> o.getOperationType() == Operation.Type.CREATE_NODE_POOL)
                .filter(o -> o.getTargetLink().endsWith("/nodePools/" + pool))
                .count();
    }

    private void awaitNoneInFlight() {
        Await.until(
                "no pool operation in flight",
                Duration.ofSeconds(5),
                () -> h.nodePools.inFlight() == 0,
                () -> h.nodePools.inFlight() + " in flight");
        assertThat(h.nodePools.inFlight()).isZero();
    }

    /** Until the sink holds at least count events of the type for the job. */
    private void awaitEvents(Class<? extends ExecutorEvent> type, String jobId, int count) {
        Await.until(
                count + " " + type.getSimpleName() + " for " + jobId,
                Duration.ofSeconds(10),
                () -> h.sink.of(type, jobId).size() >= count,
                () -> "events " + h.sink.all());
    }

    @Test
    void ensureNodePoolReportsReadyAndThePoolHasTheRightShape() {
        h.dispatcher.handle(ensure("np-1", "2x2x2", SupplyMode.RESERVATION, "res-a"));

        ExecutorEvent.NodePoolReady ready = h.sink.await(ExecutorEvent.NodePoolReady.class, "np-1", WAIT);
        assertThat(ready.nodePoolName()).isEqualTo("falcon-np-1");
        assertThat(ready.clusterId()).isEqualTo("cluster-1");
        assertThat(ready.tpuType()).isEqualTo("v7x");

        NodePool pool = pool("falcon-np-1");
        assertThat(pool.getStatus()).isEqualTo(NodePool.Status.RUNNING);
        assertThat(pool.getConfig().getMachineType()).isEqualTo("tpu7x-standard-4t");
        assertThat(pool.getInitialNodeCount()).isEqualTo(2);
        // TPU7x multi-host: placed by the workload policy the executor created first, not by tpu_topology
        assertThat(pool.getPlacementPolicy().getTpuTopology()).isEmpty();
        assertThat(pool.getPlacementPolicy().getPolicyName()).isEqualTo("falcon-v7x-ht-2x2x2");
        assertThat(h.resourcePoliciesClient
                        .get(SimHarness.PROJECT, "us-central1", "falcon-v7x-ht-2x2x2")
                        .getWorkloadPolicy())
                .satisfies(w -> {
                    assertThat(w.getType()).isEqualTo("HIGH_THROUGHPUT");
                    assertThat(w.getAcceleratorTopology()).isEqualTo("2x2x2");
                });
        assertThat(pool.getConfig().getResourceLabelsMap())
                .containsEntry("managed-by", "falcon")
                .containsEntry("falcon-job", "np-1")
                .containsEntry("falcon-topology", "2x2x2");
        assertThat(pool.getConfig().getLabelsMap()).containsEntry("managed-by", "falcon");
        assertThat(pool.getConfig().getReservationAffinity().getValuesList()).containsExactly("res-a");
        assertThat(pool.getConfig().getConsolidationDelay().getSeconds()).isEqualTo(600); // reservation: short
        assertThat(pool.getAutoscaling().getEnabled()).isTrue();
        assertThat(pool.getAutoscaling().getTotalMaxNodeCount()).isEqualTo(2);
        awaitNoneInFlight();
    }

    @Test
    void aWorkloadPolicyStillBeingCreatedDoesNotHoldTheCommandAndThePoolFollowsOnceItExists() {
        h.sim.resourcePolicies().insertDelay(Duration.ofSeconds(2));
        h.dispatcher.handle(ensure("np-slow", "2x2x4", SupplyMode.RESERVATION, "res-a"));
        // the command returned while Compute still creates the policy: nothing waited for it, and no pool was
        // asked for that GKE would refuse for an unknown placement policy
        assertThatThrownBy(() -> h.resourcePoliciesClient.get(SimHarness.PROJECT, "us-central1", "falcon-v7x-ht-2x2x4"))
                .isInstanceOf(NotFoundException.class);
        assertThat(createOperations("falcon-np-slow")).isZero();
        assertThat(h.sink.of(ExecutorEvent.NodePoolCreateFailed.class, "np-slow"))
                .isEmpty();

        ExecutorEvent.NodePoolReady ready = h.sink.await(ExecutorEvent.NodePoolReady.class, "np-slow", WAIT);
        assertThat(ready.nodePoolName()).isEqualTo("falcon-np-slow");
        assertThat(pool("falcon-np-slow").getPlacementPolicy().getPolicyName()).isEqualTo("falcon-v7x-ht-2x2x4");
        assertThat(createOperations("falcon-np-slow")).isEqualTo(1);
        assertThat(h.sink.of(ExecutorEvent.NodePoolCreateFailed.class, "np-slow"))
                .isEmpty();
        awaitNoneInFlight();
    }

    @Test
    void redeliveredEnsureNodePoolCreatesNothingTwice() {
        h.dispatcher.handle(ensure("np-2", "2x2x2", SupplyMode.FLEX_START, null));
        h.dispatcher.handle(ensure("np-2", "2x2x2", SupplyMode.FLEX_START, null)); // while provisioning
        h.sink.await(ExecutorEvent.NodePoolReady.class, "np-2", WAIT);
        h.dispatcher.handle(ensure("np-2", "2x2x2", SupplyMode.FLEX_START, null)); // after it is ready

        awaitEvents(ExecutorEvent.NodePoolReady.class, "np-2", 2);
        // level-triggered: asking again for a ready pool reports it ready again, without a second creation
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "np-2")).hasSize(2);
        assertThat(createOperations("falcon-np-2")).isEqualTo(1);
        assertThat(h.sink.of(ExecutorEvent.NodePoolCreateFailed.class, "np-2")).isEmpty();
        // flex-start: the long scale-down delay, from the configuration
        assertThat(pool("falcon-np-2").getConfig().getConsolidationDelay().getSeconds())
                .isEqualTo(7 * 3600);
    }

    @Test
    void quotaErrorIsReportedWithGkesMessage() {
        h.knobs().failNextCreationsWithQuota(1);
        h.dispatcher.handle(ensure("np-3", "2x2x2", SupplyMode.ON_DEMAND, null));

        ExecutorEvent.NodePoolCreateFailed failed =
                h.sink.await(ExecutorEvent.NodePoolCreateFailed.class, "np-3", WAIT);
        assertThat(failed.timedOut()).isFalse();
        assertThat(failed.message()).contains("TPUS_PER_PROJECT");
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "np-3")).isEmpty();
    }

    @Test
    void creationThatNeverFinishesTimesOut() {
        h.knobs().neverFinishCreations(true);
        h.dispatcher.handle(ensure("np-4", "2x2x2", SupplyMode.ON_DEMAND, null));

        ExecutorEvent.NodePoolCreateFailed failed =
                h.sink.await(ExecutorEvent.NodePoolCreateFailed.class, "np-4", WAIT);
        assertThat(failed.timedOut()).isTrue();
        assertThat(failed.timeoutSeconds()).as("the configured create timeout").isEqualTo(3);
        assertThat(failed.message()).contains("falcon-np-4").contains("PROVISIONING");
    }

    @Test
    void deleteIsIdempotent() {
        h.dispatcher.handle(ensure("np-5", "2x2x2", SupplyMode.ON_DEMAND, null));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "np-5", WAIT);

        var delete = deletePool("np-5");
        h.dispatcher.handle(delete);
        h.dispatcher.handle(delete); // redelivered while deleting
        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "np-5", WAIT);
        assertThatThrownBy(() -> pool("falcon-np-5")).isInstanceOf(NotFoundException.class);

        int before = h.sink.of(ExecutorEvent.NodePoolDeleted.class, "np-5").size();
        h.dispatcher.handle(delete); // already gone: success
        awaitEvents(ExecutorEvent.NodePoolDeleted.class, "np-5", before + 1);
        assertThat(h.sink.of(ExecutorEvent.NodePoolDeleted.class, "np-5")).hasSize(before + 1);
        awaitNoneInFlight();
    }

    @Test
    void creationStartedBeforeARestartIsCarriedOnFromGkeWhenTheSchedulerAsksAgain() {
        h.knobs().creationDelay(Duration.ofMillis(1000));
        // started by an earlier process whose command offset was already committed
        h.existingWorkloadPolicy("2x2x2");
        h.gkeApi.createPool(
                SimHarness.cluster(), ensure("np-7", "2x2x2", SupplyMode.ON_DEMAND, null), java.time.Instant.now());

        // the scheduler re-sends EnsureNodePool while the job is Provisioning
        h.dispatcher.handle(ensure("np-7", "2x2x2", SupplyMode.ON_DEMAND, null));

        ExecutorEvent.NodePoolReady ready = h.sink.await(ExecutorEvent.NodePoolReady.class, "np-7", WAIT);
        assertThat(ready.nodePoolName()).isEqualTo("falcon-np-7");
        assertThat(createOperations("falcon-np-7")).isEqualTo(1);
    }

    @Test
    void deleteWhileCreatingWins() {
        h.knobs().creationDelay(Duration.ofMillis(800));
        h.dispatcher.handle(ensure("np-6", "2x2x2", SupplyMode.ON_DEMAND, null));
        h.dispatcher.handle(deletePool("np-6"));

        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "np-6", WAIT);
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "np-6")).isEmpty();
    }

    private long deleteOperations(String pool) {
        String parent = "projects/" + SimHarness.PROJECT + "/locations/" + SimHarness.LOCATION;
        return h.gke.listOperations(parent).getOperationsList().stream()
                .filter(o -> o.getOperationType() == Operation.Type.DELETE_NODE_POOL)
                .filter(o -> o.getTargetLink().endsWith("/nodePools/" + pool))
                .count();
    }

    private void setInUse(long inUse) {
        h.sim.reservations().setInUseCount(SimHarness.PROJECT, SimHarness.LOCATION, "res-a", inUse);
    }

    @Test
    void reservationTooShortForASliceCreatesNothingAndSaysSo() {
        setInUse(7); // 8 hosts reserved, 1 free: not enough for a 2-host 2x2x2 slice
        h.dispatcher.handle(ensure("rs-1", "2x2x2", SupplyMode.RESERVATION, "res-a"));

        ExecutorEvent.ReservationShort shortage = h.sink.await(ExecutorEvent.ReservationShort.class, "rs-1", WAIT);
        assertThat(shortage.reservation()).isEqualTo("res-a");
        assertThat(shortage.remainingSlices()).as("count - inUseCount").isEqualTo(1);
        assertThat(shortage.neededSlices()).as("hosts of the 2x2x2 slice").isEqualTo(2);
        assertThat(shortage.nodePoolName()).isEqualTo("falcon-rs-1");
        assertThat(h.sink.of(ExecutorEvent.ReservationSeen.class, "rs-1"))
                .as("the reservation as read through the Compute API")
                .singleElement()
                .satisfies(seen -> {
                    assertThat(seen.reservation()).isEqualTo("res-a");
                    assertThat(seen.count()).isEqualTo(8);
                    assertThat(seen.inUse()).isEqualTo(7);
                });
        assertThat(createOperations("falcon-rs-1")).isZero();
        assertThatThrownBy(() -> pool("falcon-rs-1")).isInstanceOf(NotFoundException.class);
        assertThat(h.nodePools.inFlight()).isZero();

        // capacity freed: the scheduler's re-sent EnsureNodePool goes through
        setInUse(6);
        h.dispatcher.handle(ensure("rs-1", "2x2x2", SupplyMode.RESERVATION, "res-a"));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "rs-1", WAIT);
        // read again before each create attempt (GKE may refuse one while the workload policy is being created)
        List<Long> inUse = h.sink.of(ExecutorEvent.ReservationSeen.class, "rs-1").stream()
                .map(ExecutorEvent.ReservationSeen::inUse)
                .toList();
        assertThat(inUse).hasSizeGreaterThanOrEqualTo(2).startsWith(7L);
        assertThat(inUse.subList(1, inUse.size()))
                .as("reads after the capacity was freed")
                .containsOnly(6L);
        assertThat(createOperations("falcon-rs-1")).isEqualTo(1);
        assertThat(h.sink.of(ExecutorEvent.ReservationShort.class, "rs-1")).hasSize(1);
    }

    @Test
    void redeliveredReservationCommandDoesNotCountItsOwnPoolAgainstTheReservation() {
        setInUse(6); // exactly one 2-host slice free
        h.dispatcher.handle(ensure("rs-2", "2x2x2", SupplyMode.RESERVATION, "res-a"));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "rs-2", WAIT); // the pool took the last 2 hosts

        h.dispatcher.handle(ensure("rs-2", "2x2x2", SupplyMode.RESERVATION, "res-a"));
        awaitEvents(ExecutorEvent.NodePoolReady.class, "rs-2", 2);
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "rs-2")).hasSize(2);
        assertThat(h.sink.of(ExecutorEvent.ReservationShort.class, "rs-2")).isEmpty();
        assertThat(createOperations("falcon-rs-2")).isEqualTo(1);
    }

    @Test
    void unknownReservationFailsWithComputesAnswer() {
        h.dispatcher.handle(ensure("rs-3", "2x2x2", SupplyMode.RESERVATION, "no-such-res"));

        ExecutorEvent.NodePoolCreateFailed failed =
                h.sink.await(ExecutorEvent.NodePoolCreateFailed.class, "rs-3", WAIT);
        assertThat(failed.timedOut()).isFalse();
        assertThat(failed.message()).contains("no-such-res").contains("not found");
        assertThat(createOperations("falcon-rs-3")).isZero();
    }

    @Test
    void invalidReservationRejectedByGkeIsReportedWithGkesMessage() {
        h.knobs().failNextCreationsWithInvalidReservation(1);
        h.dispatcher.handle(ensure("rs-4", "2x2x2", SupplyMode.RESERVATION, "res-a"));

        ExecutorEvent.NodePoolCreateFailed failed =
                h.sink.await(ExecutorEvent.NodePoolCreateFailed.class, "rs-4", WAIT);
        assertThat(failed.timedOut()).isFalse();
        assertThat(failed.message())
                .contains("Invalid value for field 'nodePool.config.reservationAffinity'")
                .contains("res-a");
    }

    @Test
    void nodesRegisteringLateAreWaitedForWithoutTimingOut() {
        h.knobs().nodeRegistrationDelay(Duration.ofMillis(3500)); // longer than the 3s create timeout
        // an on-demand pool comes with its nodes and is waited for; a flex-start one gets them for pending pods
        h.dispatcher.handle(ensure("wn-1", "2x2x2", SupplyMode.ON_DEMAND, null));

        ExecutorEvent.NodePoolWaitingForNodes waiting =
                h.sink.await(ExecutorEvent.NodePoolWaitingForNodes.class, "wn-1", WAIT);
        assertThat(waiting.registered()).isZero();
        assertThat(waiting.ready()).isZero();
        assertThat(waiting.expected()).isEqualTo(2);
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "wn-1")).isEmpty();
        assertThat(pool("falcon-wn-1").getStatus()).isEqualTo(NodePool.Status.RUNNING);

        h.sink.await(ExecutorEvent.NodePoolReady.class, "wn-1", WAIT);
        assertThat(h.sink.of(ExecutorEvent.NodePoolCreateFailed.class, "wn-1")).isEmpty();
        // once per change: nodes may register one by one (0/2, then 1/2), never the same count twice
        List<ExecutorEvent.NodePoolWaitingForNodes> waits =
                h.sink.of(ExecutorEvent.NodePoolWaitingForNodes.class, "wn-1");
        assertThat(waits).extracting(w -> w.registered() + "/" + w.ready()).doesNotHaveDuplicates();
        assertThat(waits).allSatisfy(w -> assertThat(w.ready()).isLessThan(2));
        List<ExecutorEvent> order = h.sink.all().stream()
                .filter(e -> e.jobId().equals("wn-1"))
                .filter(e -> !(e instanceof ExecutorEvent.NodePoolCreating))
                .toList();
        assertThat(order.get(order.size() - 1)).isInstanceOf(ExecutorEvent.NodePoolReady.class);
        assertThat(order.subList(0, order.size() - 1))
                .allSatisfy(e -> assertThat(e).isInstanceOf(ExecutorEvent.NodePoolWaitingForNodes.class));
    }

    @Test
    void aPoolIsReportedReadyWhenItsLastNodeTurnsReadyNotAtTheNextPoll() {
        h.close();
        // A poll far longer than the test's wait: only the node watch can step the creation in time.
        h = new SimHarness(Map.of(io.falcon.events.config.ExecutorKeys.POLL_INTERVAL.key(), "60s"));
        h.knobs().nodeRegistrationDelay(Duration.ofMillis(1500));
        h.dispatcher.handle(ensure("nw-1", "2x2x2", SupplyMode.ON_DEMAND, null));

        h.sink.await(ExecutorEvent.NodePoolReady.class, "nw-1", WAIT);
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "nw-1")).hasSize(1);
    }

    @Test
    void flexStartPoolInvisibleRightAfterCreateIsNotAnError() {
        h.knobs().lateVisibility(Duration.ofMillis(1500));
        h.dispatcher.handle(ensure("lv-1", "2x2x2", SupplyMode.FLEX_START, null));

        h.sink.await(ExecutorEvent.NodePoolReady.class, "lv-1", WAIT);
        assertThat(h.sink.of(ExecutorEvent.NodePoolCreateFailed.class, "lv-1")).isEmpty();
        assertThat(createOperations("falcon-lv-1")).isEqualTo(1);
    }

    @Test
    void deletingAFlexStartPoolNotVisibleYetWaitsForIt() {
        h.existingWorkloadPolicy("2x2x2");
        h.knobs().lateVisibility(Duration.ofMillis(1000));
        h.dispatcher.handle(ensure("lv-2", "2x2x2", SupplyMode.FLEX_START, null));
        // the create accepted (its first step runs on a step thread), then aborted at once: GKE still answers
        // NOT_FOUND
        h.sink.await(ExecutorEvent.NodePoolCreating.class, "lv-2", WAIT);
        h.dispatcher.handle(deletePool("lv-2"));

        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "lv-2", WAIT);
        assertThat(deleteOperations("falcon-lv-2")).isEqualTo(1);
        assertThatThrownBy(() -> pool("falcon-lv-2")).isInstanceOf(NotFoundException.class);
    }

    @Test
    void inventoryReportsFalconPoolsPeriodically() {
        h.dispatcher.handle(ensure("inv-1", "2x2x2", SupplyMode.ON_DEMAND, null));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "inv-1", WAIT);

        ExecutorEvent.NodePoolInventory inventory = h.sink.await(
                ExecutorEvent.NodePoolInventory.class,
                "",
                e -> e.pools().stream()
                        .anyMatch(p ->
                                p.name().equals("falcon-inv-1") && p.status().equals("RUNNING")),
                WAIT);
        assertThat(inventory.clusterId()).isEqualTo("cluster-1");
        assertThat(inventory.tpuType()).isEqualTo("v7x");
        ExecutorEvent.ObservedPool pool = inventory.pools().stream()
                .filter(p -> p.name().equals("falcon-inv-1"))
                .findFirst()
                .orElseThrow();
        assertThat(pool.falconJob()).isEqualTo("inv-1");
        assertThat(pool.topology()).isEqualTo("2x2x2");
        assertThat(pool.createdAt())
                .hasValueSatisfying(t -> assertThat(t).isBetween(Instant.now().minusSeconds(60), Instant.now()));
    }

    @Test
    void failedDeletionIsRetriedUntilThePoolIsGone() {
        h.dispatcher.handle(ensure("df-1", "2x2x2", SupplyMode.ON_DEMAND, null));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "df-1", WAIT);
        h.knobs().failNextDeletions(1);

        h.dispatcher.handle(deletePool("df-1"));

        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "df-1", WAIT);
        assertThat(deleteOperations("falcon-df-1")).isEqualTo(2);
        assertThatThrownBy(() -> pool("falcon-df-1")).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aCreateRefusedWhileGkeRunsAClusterOperationIsRetriedAndThePoolComes() {
        // GKE upgrades or repairs the control plane by itself; meanwhile it refuses node-pool operations
        h.knobs().clusterOperationUntil(Instant.now().plusMillis(1500));
        h.dispatcher.handle(ensure("co-1", "2x2x1", SupplyMode.ON_DEMAND, null));

        h.sink.await(ExecutorEvent.NodePoolReady.class, "co-1", WAIT);
        assertThat(h.sink.of(ExecutorEvent.NodePoolCreateFailed.class, "co-1")).isEmpty();
        assertThat(createOperations("falcon-co-1")).isEqualTo(1);
        assertThat(h.sim.record().entries().stream()
                        .filter(r -> r.kind() == FleetRecord.Kind.NODE_POOL_CREATE
                                && r.outcome() == FleetRecord.Outcome.REFUSED
                                && r.name().equals("falcon-co-1"))
                        .count())
                .as("creates refused during the cluster operation")
                .isPositive();
    }

    @Test
    void aDeleteRefusedWhileGkeRunsAClusterOperationIsRetriedUntilThePoolIsGone() {
        h.dispatcher.handle(ensure("co-2", "2x2x1", SupplyMode.ON_DEMAND, null));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "co-2", WAIT);
        h.knobs().clusterOperationUntil(Instant.now().plusMillis(1500));

        h.dispatcher.handle(deletePool("co-2"));

        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "co-2", WAIT);
        assertThatThrownBy(() -> pool("falcon-co-2")).isInstanceOf(NotFoundException.class);
        assertThat(h.sink.of(ExecutorEvent.NodePoolDeleteFailing.class, "co-2")).isEmpty();
        assertThat(h.sim.record().entries().stream()
                        .filter(r -> r.kind() == FleetRecord.Kind.NODE_POOL_DELETE
                                && r.outcome() == FleetRecord.Outcome.REFUSED
                                && r.name().equals("falcon-co-2"))
                        .count())
                .as("deletes refused during the cluster operation")
                .isPositive();
    }

    @Test
    void deleteRejectedWhileCreatingIsRetriedLikeOnGke() {
        h.knobs().rejectDeleteWhileCreating(true).creationDelay(Duration.ofMillis(800));
        h.dispatcher.handle(ensure("dc-1", "2x2x2", SupplyMode.ON_DEMAND, null));
        h.dispatcher.handle(deletePool("dc-1"));

        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "dc-1", WAIT);
        assertThatThrownBy(() -> pool("falcon-dc-1")).isInstanceOf(NotFoundException.class);
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "dc-1")).isEmpty();
    }

    @Test
    void aRestartedExecutorReportsNoPoolReadyByItselfOnlyWhenTheSchedulerAsks() {
        // Issue 11 cases 1 and 8: a RUNNING pool whose creator has no Kubernetes Job (its NodePoolReady was lost, or
        // it was inherited by a later job) must not be re-announced as ready by a restarted executor: the scheduler
        // would take it for idle and delete it under the job running on it.
        h.existingWorkloadPolicy("2x2x2");
        h.gkeApi.createPool(
                SimHarness.cluster(), ensure("rr-1", "2x2x2", SupplyMode.ON_DEMAND, null), java.time.Instant.now());
        h.gkeApi.createPool(
                SimHarness.cluster(), ensure("rr-2", "2x2x2", SupplyMode.ON_DEMAND, null), java.time.Instant.now());
        Await.until(
                "falcon-rr-1 and falcon-rr-2 RUNNING",
                Duration.ofSeconds(10),
                () -> pool("falcon-rr-1").getStatus() == NodePool.Status.RUNNING
                        && pool("falcon-rr-2").getStatus() == NodePool.Status.RUNNING,
                () -> pool("falcon-rr-1").getStatus() + ", "
                        + pool("falcon-rr-2").getStatus());

        h.nodePools.discovered(SimHarness.cluster());

        ExecutorEvent.NodePoolInventory inventory = h.sink.await(ExecutorEvent.NodePoolInventory.class, "", WAIT);
        assertThat(inventory.pools())
                .extracting(ExecutorEvent.ObservedPool::name)
                .contains("falcon-rr-1", "falcon-rr-2");
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "rr-1")).isEmpty();
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "rr-2")).isEmpty();
        assertThat(h.nodePools.inFlight()).isZero();

        // the scheduler still wants rr-1 (its job is Provisioning): the re-sent command finds it Ready, creates nothing
        h.dispatcher.handle(ensure("rr-1", "2x2x2", SupplyMode.ON_DEMAND, null));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "rr-1", WAIT);
        awaitNoneInFlight();
        assertThat(createOperations("falcon-rr-1")).isEqualTo(1);
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "rr-2")).isEmpty();
    }

    /**
     * GKE gives a node pool that sets no reservation affinity Compute's default, ANY: its VMs consume a matching
     * reservation that does not require specific consumption. An on-demand pool must not eat the slices a reservation
     * holds for the reservation jobs (the seed's supply modes are separate), so it asks for none.
     */
    @Test
    void anOnDemandPoolLeavesAMatchingReservationAlone() {
        var reservations = h.sim.reservations();
        var res = reservations.findByName(SimHarness.PROJECT, "res-a").orElseThrow();
        reservations.setSpecificRequired(SimHarness.PROJECT, res.key().zone(), "res-a", false);

        h.dispatcher.handle(ensure("od-1", "2x2x1", SupplyMode.ON_DEMAND, null));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "od-1", WAIT);

        assertThat(reservations
                        .findByName(SimHarness.PROJECT, "res-a")
                        .orElseThrow()
                        .inUseCount())
                .as("the reservation's slices stay for the reservation jobs")
                .isZero();
        assertThat(pool("falcon-od-1").getConfig().getReservationAffinity().getConsumeReservationType())
                .isEqualTo(com.google.container.v1.ReservationAffinity.Type.NO_RESERVATION);
        h.dispatcher.handle(deletePool("od-1"));
        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "od-1", WAIT);
    }
}
