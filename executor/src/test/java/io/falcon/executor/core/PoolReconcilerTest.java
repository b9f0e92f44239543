package io.falcon.executor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.Events;
import io.falcon.executor.core.PoolReconciler.Effect;
import io.falcon.executor.core.PoolReconciler.Facts;
import io.falcon.executor.core.PoolReconciler.Lookup;
import io.falcon.executor.core.PoolReconciler.RpcOutcome;
import io.falcon.executor.core.PoolReconciler.Step;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The node-pool lifecycle as a pure function: each row of its behaviour from facts alone, no GKE needed. */
class PoolReconcilerTest {
    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    private static final ClusterTarget CLUSTER = new ClusterTarget("c1", "edge", "proj", "us-central1", "v6e", "b");
    private static final String POOL = io.falcon.events.ResourceNames.nodePool("falcon", "job-1");
    private static final Map<String, String> OWNED = Ownership.DEFAULT.labels("job-1", "2x2x2");
    private static final Optional<String> CREATOR = Optional.of("job-1");
    private final PoolReconciler reconciler = new PoolReconciler(
            new PoolReconciler.Settings(
                    Duration.ofMinutes(10), Duration.ofSeconds(10), Duration.ofMinutes(2), Duration.ofMinutes(1)),
            new Events("executor", Clock.fixed(T0, ZoneOffset.UTC)),
            () -> 0.5,
            Ownership.DEFAULT);

    private static EnsureNodePool ensure(SupplyMode mode, Optional<String> reservation) {
        return new EnsureNodePool(Meta.of("scheduler", T0), "job-1", CLUSTER, POOL, "v5p", "2x2x2", mode, reservation);
    }

    private static Lookup<GkeApi.PoolInfo> pool(GkeApi.PoolStatus status, Instant createdAt) {
        return new Lookup.Found<>(new GkeApi.PoolInfo(POOL, status, "", OWNED, Optional.of(createdAt), 2, CREATOR));
    }

    private static Facts facts(Lookup<GkeApi.PoolInfo> pool) {
        return new Facts(pool, Optional.empty(), Optional.empty(), Optional.empty());
    }

    private static Facts running(Instant createdAt, int registered, int ready) {
        return new Facts(
                pool(GkeApi.PoolStatus.RUNNING, createdAt),
                Optional.empty(),
                Optional.of(new Lookup.Found<>(new EdgeApi.NodeCount(registered, ready))),
                Optional.empty());
    }

    private static List<ExecutorEvent> events(Step step) {
        return step.effects().stream()
                .filter(e -> e instanceof Effect.Emit)
                .map(e -> ((Effect.Emit) e).event())
                .toList();
    }

    @Test
    void anAbsentPoolIsCreatedThenWatchedUntilAllItsNodesAreReady() {
        PoolTask task = PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty()));
        Step first = reconciler.decide(task, facts(new Lookup.Missing<>()), T0);
        assertThat(first.effects()).containsExactly(new Effect.CreatePool());

        Step created = reconciler.afterCreate(first.task(), new RpcOutcome.Accepted("op-1"), T0);
        assertThat(events(created)).singleElement().isInstanceOf(ExecutorEvent.NodePoolCreating.class);
        assertThat(created.task().createdAt()).contains(T0);
        assertThat(created.task().nextAttempt()).isEqualTo(T0.plusSeconds(10));

        Step waiting = reconciler.decide(created.task(), running(T0, 1, 0), T0.plusSeconds(60));
        assertThat(events(waiting))
                .singleElement()
                .isInstanceOfSatisfying(
                        ExecutorEvent.NodePoolWaitingForNodes.class,
                        w -> assertThat(w.registered()).isEqualTo(1));
        Step same = reconciler.decide(waiting.task(), running(T0, 1, 0), T0.plusSeconds(70));
        assertThat(same.effects()).as("once per change").isEmpty();

        Step ready = reconciler.decide(same.task(), running(T0, 2, 2), T0.plusSeconds(80));
        assertThat(events(ready)).singleElement().isInstanceOf(ExecutorEvent.NodePoolReady.class);
        assertThat(ready.task().done()).isTrue();
    }

    @Test
    void aRestartedExecutorFindingThePoolWaitingForNodesPastTheCreateTimeoutKeepsWaiting() {
        // issue 11 case 3: a fresh task (nothing remembered) meets a RUNNING pool created 15 minutes ago
        PoolTask fresh = PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty()));
        Step step = reconciler.decide(fresh, running(T0.minus(Duration.ofMinutes(15)), 0, 0), T0);
        assertThat(events(step)).singleElement().isInstanceOf(ExecutorEvent.NodePoolWaitingForNodes.class);
        assertThat(step.task().done()).isFalse();
    }

    @Test
    void aPoolWhoseNodesTheAutoscalerTookBackWhileItWaitedIsReadyForTheJobsPendingPods() {
        // its nodes sat unneeded (no Job yet) for the consolidation delay: the slice is gone, and only pending pods
        // bring it back, so the Job is submitted
        PoolTask task = PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty()));
        Step counting = reconciler.decide(task, running(T0, 1, 1), T0.plusSeconds(60));
        assertThat(events(counting)).singleElement().isInstanceOf(ExecutorEvent.NodePoolWaitingForNodes.class);
        Step scaledDown = reconciler.decide(counting.task(), running(T0, 0, 0), T0.plus(Duration.ofMinutes(11)));
        assertThat(events(scaledDown)).singleElement().isInstanceOf(ExecutorEvent.NodePoolReady.class);
        assertThat(scaledDown.task().done()).isTrue();

        // a restarted process that never saw the nodes: once the pool has had none for its create timeout and
        // consolidation delay (10 + 10 minutes)
        PoolTask fresh = PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty()));
        Step later = reconciler.decide(fresh, running(T0.minus(Duration.ofMinutes(20)), 0, 0), T0);
        assertThat(events(later)).singleElement().isInstanceOf(ExecutorEvent.NodePoolReady.class);
    }

    @Test
    void aFlexStartPoolIsReadyWhenRunningWithoutItsNodes() {
        // GKE gives a flex-start pool its VMs only for the Job's pending pods: waiting for them first would wait
        // forever (issue 19), so the Job is submitted now and WaitingForNode comes from its pods
        PoolTask task = PoolTask.create(ensure(SupplyMode.FLEX_START, Optional.empty()));
        GkeApi.PoolInfo running =
                new GkeApi.PoolInfo(POOL, GkeApi.PoolStatus.RUNNING, "", OWNED, Optional.of(T0), 2, CREATOR);
        assertThat(PoolReconciler.wantsNodes(task, running))
                .as("its nodes are not counted")
                .isFalse();

        Step step = reconciler.decide(task, facts(pool(GkeApi.PoolStatus.RUNNING, T0)), T0.plusSeconds(30));
        assertThat(events(step)).singleElement().isInstanceOf(ExecutorEvent.NodePoolReady.class);
        assertThat(step.task().done()).isTrue();

        Step provisioning =
                reconciler.decide(task, facts(pool(GkeApi.PoolStatus.PROVISIONING, T0)), T0.plusSeconds(30));
        assertThat(events(provisioning))
                .as("not ready before the control plane is RUNNING (a first sight says it is being created)")
                .noneMatch(e -> e instanceof ExecutorEvent.NodePoolReady);
    }

    @Test
    void aPoolStillProvisioningAfterTheCreateTimeoutCountedFromItsLabelTimesOut() {
        PoolTask fresh = PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty()));
        Step step = reconciler.decide(
                fresh, facts(pool(GkeApi.PoolStatus.PROVISIONING, T0.minus(Duration.ofMinutes(11)))), T0);
        assertThat(events(step)).singleElement().isInstanceOfSatisfying(ExecutorEvent.NodePoolCreateFailed.class, f -> {
            assertThat(f.timedOut()).isTrue();
            assertThat(f.timeoutSeconds()).isEqualTo(600);
            assertThat(f.message()).isEqualTo("node pool " + POOL + " not RUNNING (node pool PROVISIONING)");
        });
    }

    @Test
    void aPoolInErrorFailsWithGkesMessage() {
        Lookup<GkeApi.PoolInfo> error = new Lookup.Found<>(new GkeApi.PoolInfo(
                POOL,
                GkeApi.PoolStatus.ERROR,
                "Quota 'TPUS_PER_PROJECT' exceeded",
                OWNED,
                Optional.of(T0),
                2,
                CREATOR));
        Step step =
                reconciler.decide(PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty())), facts(error), T0);
        assertThat(events(step))
                .singleElement()
                .isInstanceOfSatisfying(
                        ExecutorEvent.NodePoolCreateFailed.class,
                        f -> assertThat(f.message()).isEqualTo("Quota 'TPUS_PER_PROJECT' exceeded"));
    }

    @Test
    void aReservationPoolIsCreatedOnlyWhenASliceIsFree() {
        PoolTask task = PoolTask.create(ensure(SupplyMode.RESERVATION, Optional.of("res-a")));
        assertThat(reconciler.wantsCapacity(task, T0)).isTrue();
        Facts shortFacts = new Facts(
                new Lookup.Missing<>(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new Lookup.Found<>(new GkeApi.Capacity("proj/res-a", 8, 7))));
        Step shortStep = reconciler.decide(task, shortFacts, T0);
        assertThat(events(shortStep)).hasSize(2);
        assertThat(events(shortStep).get(1)).isInstanceOfSatisfying(ExecutorEvent.ReservationShort.class, r -> {
            assertThat(r.remainingSlices()).as("free hosts").isEqualTo(1);
            assertThat(r.neededSlices()).as("VMs of a 2x2x2 slice").isEqualTo(2);
        });

        Facts free = new Facts(
                new Lookup.Missing<>(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new Lookup.Found<>(new GkeApi.Capacity("proj/res-a", 8, 6))));
        Step freeStep = reconciler.decide(task, free, T0);
        assertThat(freeStep.effects()).hasSize(2);
        assertThat(freeStep.effects().get(1)).isEqualTo(new Effect.CreatePool());

        Facts missing = new Facts(
                new Lookup.Missing<>(), Optional.empty(), Optional.empty(), Optional.of(new Lookup.Missing<>()));
        assertThat(events(reconciler.decide(task, missing, T0)))
                .singleElement()
                .isInstanceOf(ExecutorEvent.NodePoolCreateFailed.class);
    }

    @Test
    void aDeletionAsksUntilThePoolIsGone() {
        PoolTask task = PoolTask.delete("job-1", CLUSTER, POOL);
        Step ask = reconciler.decide(task, facts(pool(GkeApi.PoolStatus.RUNNING, T0)), T0);
        assertThat(ask.effects()).containsExactly(new Effect.DeletePool());
        Step refused = reconciler.afterDelete(
                ask.task(), new RpcOutcome.Refused(ApiException.Kind.FAILED_PRECONDITION, "operation running"), T0);
        assertThat(refused.task().nextAttempt()).isAfter(T0);
        Step gone = reconciler.decide(refused.task(), facts(new Lookup.Missing<>()), T0.plusSeconds(60));
        assertThat(events(gone)).singleElement().isInstanceOf(ExecutorEvent.NodePoolDeleted.class);
    }

    @Test
    void anAbsentPoolWithARecentCreateOperationIsNotVisibleYetNotGone() {
        PoolTask task = PoolTask.delete("job-1", CLUSTER, POOL);
        Facts invisible = new Facts(
                new Lookup.Missing<>(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new Lookup.Found<>(
                        new GkeApi.PoolOperations(Optional.of(T0.minusSeconds(30)), Optional.empty()))));
        assertThat(reconciler.decide(task, invisible, T0).effects()).isEmpty();
        Facts deletedSince = new Facts(
                new Lookup.Missing<>(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new Lookup.Found<>(new GkeApi.PoolOperations(
                        Optional.of(T0.minusSeconds(30)), Optional.of(T0.minusSeconds(10))))));
        assertThat(events(reconciler.decide(task, deletedSince, T0)))
                .singleElement()
                .isInstanceOf(ExecutorEvent.NodePoolDeleted.class);
        Facts old = new Facts(
                new Lookup.Missing<>(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new Lookup.Found<>(
                        new GkeApi.PoolOperations(Optional.of(T0.minus(Duration.ofMinutes(5))), Optional.empty()))));
        assertThat(events(reconciler.decide(task, old, T0)))
                .singleElement()
                .isInstanceOf(ExecutorEvent.NodePoolDeleted.class);
    }

    @Test
    void anUnansweredFlexStartCreateOpensTheVisibilityGrace() {
        PoolTask task = PoolTask.create(ensure(SupplyMode.FLEX_START, Optional.empty()));
        Step step = reconciler.afterCreate(
                task, new RpcOutcome.Refused(ApiException.Kind.TRANSIENT, "DEADLINE_EXCEEDED"), T0);
        assertThat(step.task().createAcceptedAt()).contains(T0);
        assertThat(reconciler
                        .decide(step.task(), facts(new Lookup.Missing<>()), T0.plusSeconds(60))
                        .effects())
                .as("no second create while the first may still appear")
                .isEmpty();
    }

    @Test
    void aDeletionThatKeepsFailingIsReportedOnceAndRetriedOn() {
        PoolTask task = PoolTask.delete("job-1", CLUSTER, POOL);
        List<ExecutorEvent> reported = new java.util.ArrayList<>();
        for (int i = 0; i < 7; i++) {
            Step step = reconciler.afterDelete(
                    task,
                    new RpcOutcome.Refused(
                            ApiException.Kind.PERMANENT, "PERMISSION_DENIED: container.nodePools.delete"),
                    T0.plusSeconds(i * 60L));
            reported.addAll(events(step));
            task = step.task();
        }
        assertThat(reported).singleElement().isInstanceOfSatisfying(ExecutorEvent.NodePoolDeleteFailing.class, f -> {
            assertThat(f.failures()).isEqualTo(5);
            assertThat(f.message()).contains("PERMISSION_DENIED");
        });
        assertThat(task.done()).isFalse();
        // a "busy" answer (the create operation still runs) is not a failure
        Step busy = reconciler.afterDelete(
                PoolTask.delete("job-1", CLUSTER, POOL),
                new RpcOutcome.Refused(ApiException.Kind.FAILED_PRECONDITION, "operation running"),
                T0);
        assertThat(busy.task().deleteFailures()).isZero();
    }

    @Test
    void everyReadOfAReservationIsReportedWithItsCountAndUseWhetherThePoolFitsOrNot() {
        PoolTask task = PoolTask.create(ensure(SupplyMode.RESERVATION, Optional.of("res-a")));
        for (long inUse : new long[] {7, 6}) {
            Facts read = new Facts(
                    new Lookup.Missing<>(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of(new Lookup.Found<>(new GkeApi.Capacity("proj/res-a", 8, inUse))));
            Step step = reconciler.decide(task, read, T0);
            assertThat(events(step).get(0))
                    .as("read with %d of 8 in use", inUse)
                    .isInstanceOfSatisfying(ExecutorEvent.ReservationSeen.class, seen -> {
                        assertThat(seen.reservation()).isEqualTo("res-a");
                        assertThat(seen.count()).isEqualTo(8);
                        assertThat(seen.inUse()).isEqualTo(inUse);
                        assertThat(seen.jobId()).isEqualTo(task.jobId());
                        assertThat(seen.clusterId()).isEqualTo(CLUSTER.clusterId());
                        assertThat(seen.meta().occurredAt()).isEqualTo(T0);
                    });
        }

        // no read, no figure: an unanswered or missing reservation says nothing of its count
        Facts unanswered = new Facts(
                new Lookup.Missing<>(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new Lookup.Failed<>("compute unavailable")));
        assertThat(events(reconciler.decide(task, unanswered, T0))).isEmpty();
        Facts missing = new Facts(
                new Lookup.Missing<>(), Optional.empty(), Optional.empty(), Optional.of(new Lookup.Missing<>()));
        assertThat(events(reconciler.decide(task, missing, T0)))
                .noneMatch(e -> e instanceof ExecutorEvent.ReservationSeen);
    }

    @Test
    void aReservationPoolThatGkeFailsForWantOfCapacityIsReservationShortAndItsFailedPoolIsDeleted() {
        // Found by the chaos run: two queues of one cluster read one free slice and both asked; the later pool fails
        // when its VMs are to come up. The seed's answer is ClusterBusy, not NodePoolFailed.
        String capacity = "Reservation 'projects/proj/zones/us-central1-a/reservations/res-a' does not have enough "
                + "available capacity: requested 2, available 1.";
        Lookup<GkeApi.PoolInfo> failed = new Lookup.Found<>(
                new GkeApi.PoolInfo(POOL, GkeApi.PoolStatus.ERROR, capacity, OWNED, Optional.of(T0), 2, CREATOR));
        Step step = reconciler.decide(
                PoolTask.create(ensure(SupplyMode.RESERVATION, Optional.of("res-a"))), facts(failed), T0);
        assertThat(events(step)).singleElement().isInstanceOfSatisfying(ExecutorEvent.ReservationShort.class, r -> {
            assertThat(r.remainingSlices()).isEqualTo(1);
            assertThat(r.reservation()).isEqualTo("res-a");
        });
        assertThat(step.effects()).contains(new Effect.DeletePool());
        assertThat(step.task().done()).isTrue();

        // the same words for an on-demand pool, or a quota, stay a failure
        Step onDemand =
                reconciler.decide(PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty())), facts(failed), T0);
        assertThat(events(onDemand)).singleElement().isInstanceOf(ExecutorEvent.NodePoolCreateFailed.class);
        Lookup<GkeApi.PoolInfo> quota = new Lookup.Found<>(new GkeApi.PoolInfo(
                POOL,
                GkeApi.PoolStatus.ERROR,
                "RESOURCE_EXHAUSTED: Quota 'TPUS_PER_PROJECT' exceeded for reservation res-a",
                OWNED,
                Optional.of(T0),
                2,
                CREATOR));
        Step quotaStep = reconciler.decide(
                PoolTask.create(ensure(SupplyMode.RESERVATION, Optional.of("res-a"))), facts(quota), T0);
        assertThat(events(quotaStep)).singleElement().isInstanceOf(ExecutorEvent.NodePoolCreateFailed.class);
    }

    @Test
    void aCreateRefusedForWantOfReservationCapacityIsReservationShort() {
        PoolTask task = PoolTask.create(ensure(SupplyMode.RESERVATION, Optional.of("res-a")));
        Step step = reconciler.afterCreate(
                task,
                new RpcOutcome.Refused(
                        ApiException.Kind.PERMANENT,
                        "RESOURCE_EXHAUSTED: reservation res-a does not have enough available capacity: requested 2, "
                                + "available 0."),
                T0);
        assertThat(events(step))
                .singleElement()
                .isInstanceOfSatisfying(
                        ExecutorEvent.ReservationShort.class,
                        r -> assertThat(r.remainingSlices()).isZero());
        assertThat(step.task().done()).isTrue();
    }

    @Test
    void aPoolBeingDeletedUnderACreateIsWaitedForNotFailed() {
        Step step = reconciler.decide(
                PoolTask.create(ensure(SupplyMode.RESERVATION, Optional.of("res-a"))),
                facts(pool(GkeApi.PoolStatus.STOPPING, T0.minus(Duration.ofMinutes(20)))),
                T0);
        assertThat(step.effects()).isEmpty();
        assertThat(step.task().done()).isFalse();
    }

    // ---- issue 30 item 2: transient pool states and lookup errors are not timeouts ----

    @Test
    void aPoolGoingReconcilingPastTheCreateTimeoutWhileItsNodesComeIsNoTimeout() {
        // GKE repairs or upgrades the pool while the job waits for its last node: seed section 4, no deadline
        PoolTask task = PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty()));
        Step counting = reconciler.decide(task, running(T0, 1, 0), T0.plus(Duration.ofMinutes(5)));
        Step repaired = reconciler.decide(
                counting.task(), facts(pool(GkeApi.PoolStatus.RECONCILING, T0)), T0.plus(Duration.ofMinutes(25)));
        assertThat(events(repaired)).noneMatch(e -> e instanceof ExecutorEvent.NodePoolCreateFailed);
        Step back = reconciler.decide(repaired.task(), running(T0, 2, 2), T0.plus(Duration.ofMinutes(40)));
        assertThat(events(back)).singleElement().isInstanceOf(ExecutorEvent.NodePoolReady.class);
    }

    @Test
    void aRestartedExecutorFindingItsPoolReconcilingLongAfterTheCreateTimeoutWaitsAndSaysSo() {
        PoolTask fresh = PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty()));
        Step first = reconciler.decide(
                fresh, facts(pool(GkeApi.PoolStatus.RECONCILING, T0)), T0.plus(Duration.ofMinutes(30)));
        // no failure; the scheduler's backstop hears that GKE has the pool in hand
        assertThat(events(first)).singleElement().isInstanceOf(ExecutorEvent.NodePoolCreating.class);
        Step quiet = reconciler.decide(
                first.task(), facts(pool(GkeApi.PoolStatus.RECONCILING, T0)), T0.plus(Duration.ofMinutes(31)));
        assertThat(events(quiet)).isEmpty();
        Step again = reconciler.decide(
                quiet.task(), facts(pool(GkeApi.PoolStatus.RECONCILING, T0)), T0.plus(Duration.ofMinutes(36)));
        assertThat(events(again)).singleElement().isInstanceOf(ExecutorEvent.NodePoolCreating.class);
    }

    @Test
    void aFailedLookupPastTheCreateTimeoutIsNoTimeout() {
        PoolTask task = PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty()));
        Step provisioning = reconciler.decide(
                task, facts(pool(GkeApi.PoolStatus.PROVISIONING, T0)), T0.plus(Duration.ofMinutes(3)));
        Step unanswered = reconciler.decide(
                provisioning.task(),
                facts(new Lookup.Failed<>("UNAVAILABLE: getNodePool: connection reset")),
                T0.plus(Duration.ofMinutes(11)));
        assertThat(events(unanswered)).isEmpty();
        assertThat(unanswered.task().done()).isFalse();
        // GKE answers again: the pool made it
        Step ready = reconciler.decide(unanswered.task(), running(T0, 2, 2), T0.plus(Duration.ofMinutes(12)));
        assertThat(events(ready)).singleElement().isInstanceOf(ExecutorEvent.NodePoolReady.class);
    }

    @Test
    void aPoolStillProvisioningWhenGkeAnswersAgainPastTheCreateTimeoutTimesOut() {
        // the lookup errors do not hide a creation that really ran late
        PoolTask task = PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty()));
        Step unanswered =
                reconciler.decide(task, facts(new Lookup.Failed<>("UNAVAILABLE")), T0.plus(Duration.ofMinutes(11)));
        Step late = reconciler.decide(
                unanswered.task(), facts(pool(GkeApi.PoolStatus.PROVISIONING, T0)), T0.plus(Duration.ofMinutes(12)));
        assertThat(events(late))
                .singleElement()
                .isInstanceOfSatisfying(
                        ExecutorEvent.NodePoolCreateFailed.class,
                        f -> assertThat(f.timedOut()).isTrue());
    }

    @Test
    void aPoolOfAnotherOwnerUnderTheNameIsNeverAdoptedAndItsDeletionLeavesItAlone() {
        List<GkeApi.PoolInfo> strangers = List.of(
                // another team's pool that happens to have the name, no labels at all
                new GkeApi.PoolInfo(
                        POOL, GkeApi.PoolStatus.RUNNING, "", Map.of(), Optional.of(T0), 2, Optional.empty()),
                // another Falcon installation's
                new GkeApi.PoolInfo(
                        POOL,
                        GkeApi.PoolStatus.RUNNING,
                        "",
                        new Ownership("falcon-b").labels("job-1", "2x2x2"),
                        Optional.of(T0),
                        2,
                        CREATOR),
                // this installation's labels copied by hand, without the job it was made for
                new GkeApi.PoolInfo(POOL, GkeApi.PoolStatus.RUNNING, "", OWNED, Optional.of(T0), 2, Optional.empty()));
        for (GkeApi.PoolInfo stranger : strangers) {
            Step create = reconciler.decide(
                    PoolTask.create(ensure(SupplyMode.ON_DEMAND, Optional.empty())),
                    facts(new Lookup.Found<>(stranger)),
                    T0);
            assertThat(events(create))
                    .singleElement()
                    .isInstanceOfSatisfying(
                            ExecutorEvent.NodePoolCreateFailed.class,
                            f -> assertThat(f.message())
                                    .contains("a node pool named " + POOL + " already exists on cluster c1")
                                    .contains("is not this job's")
                                    .contains("Falcon leaves it alone"));
            assertThat(create.effects()).noneMatch(e -> e instanceof Effect.DeletePool);

            Step delete =
                    reconciler.decide(PoolTask.delete("job-1", CLUSTER, POOL), facts(new Lookup.Found<>(stranger)), T0);
            assertThat(delete.effects()).noneMatch(e -> e instanceof Effect.DeletePool);
            assertThat(events(delete)).singleElement().isInstanceOf(ExecutorEvent.NodePoolDeleted.class);
            assertThat(delete.task().done()).isTrue();
        }
        // and this installation's own pool is adopted and deleted as before
        assertThat(reconciler
                        .decide(PoolTask.delete("job-1", CLUSTER, POOL), facts(pool(GkeApi.PoolStatus.RUNNING, T0)), T0)
                        .effects())
                .contains(new Effect.DeletePool());
    }
}
