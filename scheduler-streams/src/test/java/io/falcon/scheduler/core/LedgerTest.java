package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.decision.Decision;
import io.falcon.events.executor.SupplyMode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Issue 18: every scheduling decision reaches the ledger with the inputs it was made from. */
class LedgerTest {
    private static JobRequest request(String id, Optional<String> supplyMode) {
        return new JobRequest(
                id,
                "alice",
                "name-" + id,
                "v6e",
                "2x4",
                SchedulerFixture.SPEC,
                supplyMode,
                Optional.empty(),
                java.time.Instant.parse("2026-12-02T09:00:00Z"));
    }

    private static List<Decision> of(SchedulerFixture f, String jobId) {
        return f.ledger.stream().filter(d -> d.jobId().equals(jobId)).toList();
    }

    @Test
    void aPlacementListsEveryClusterOfTheTypeAndWhyItWasOrWasNotTaken() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e").withCluster("c2", "v6e");
        f.record(f.scheduler.clusterUpserted(
                SchedulerFixture.cluster("c3", "v6e", "maintenance", Optional.empty()), f.now));
        f.submit("busy", "bob"); // c1 gets a job first: c2's queue is now the shorter
        f.submit("j1", "alice");

        Decision placed = of(f, "j1").get(0);
        assertThat(placed.kind()).isEqualTo(Decision.Kind.CLUSTER_CHOSEN);
        assertThat(placed.clusterId()).contains("c2");
        assertThat(placed.candidates())
                .extracting(Decision.Candidate::clusterId, Decision.Candidate::outcome)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("c1", Decision.Outcome.LESS_PREFERRED),
                        org.assertj.core.groups.Tuple.tuple("c2", Decision.Outcome.CHOSEN),
                        org.assertj.core.groups.Tuple.tuple("c3", Decision.Outcome.NOT_ACTIVE));
        assertThat(placed.candidates().get(2).why()).contains("maintenance");
        assertThat(placed.summary()).contains("placed on cluster c2");
    }

    @Test
    void withManyClustersOfATypeTheChosenTheRuledOutAndTheBestOfTheOthersAreRecorded() {
        SchedulerFixture f = new SchedulerFixture();
        for (int i = 10; i < 24; i++) {
            f.withCluster("c" + i, "v6e");
        }
        f.record(f.scheduler.clusterUpserted(
                SchedulerFixture.cluster("c99", "v6e", "offline", Optional.empty()), f.now));
        f.submit("j1", "alice");

        Decision placed = of(f, "j1").get(0);
        assertThat(placed.candidatesWeighed()).isEqualTo(15);
        assertThat(placed.candidates()).hasSize(Decision.MAX_CANDIDATES);
        assertThat(placed.candidates().get(0).outcome()).isEqualTo(Decision.Outcome.CHOSEN);
        assertThat(placed.candidates().get(1).clusterId()).isEqualTo("c99");
        assertThat(placed.candidates().get(1).outcome()).isEqualTo(Decision.Outcome.NOT_ACTIVE);
        // the others in the order of preference: all queues empty, so by id after the chosen c10
        assertThat(placed.candidates().subList(2, 10))
                .extracting(Decision.Candidate::clusterId)
                .containsExactly("c11", "c12", "c13", "c14", "c15", "c16", "c17", "c18");
    }

    @Test
    void noEligibleClusterIsRecordedOnceWithTheRejectedCandidates() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
        f.submit(request("j1", Optional.of("reservation")));
        f.withCluster("c2", "v6e"); // placed again, still nowhere: the same decision is not recorded twice

        List<Decision> ledger = of(f, "j1");
        assertThat(ledger).singleElement().satisfies(d -> {
            assertThat(d.kind()).isEqualTo(Decision.Kind.NO_CLUSTER_ELIGIBLE);
            assertThat(d.candidates())
                    .allSatisfy(c -> assertThat(c.outcome()).isEqualTo(Decision.Outcome.NO_DEFAULT_RESERVATION));
        });
    }

    @Test
    void aJobsLifeIsPlacementPoolCreationPoolDeletionAndItsEnd() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
        f.submit("j1", "alice").startRunning("j1").succeeded("j1");

        assertThat(of(f, "j1"))
                .extracting(Decision::kind)
                .containsExactly(
                        Decision.Kind.CLUSTER_CHOSEN,
                        Decision.Kind.POOL_CREATED,
                        Decision.Kind.POOL_DELETED,
                        Decision.Kind.ENDED);
        Decision created = of(f, "j1").get(1);
        assertThat(created.supplyMode()).contains(SupplyMode.FLEX_START);
        assertThat(created.summary()).contains("no supply_mode asked and no default_reservation");
        assertThat(of(f, "j1").get(3).summary()).startsWith("ended Succeeded");
    }

    @Test
    void theNextJobOfTheQueueIsRecordedReusingTheIdlePool() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
        f.submit("j1", "alice").submit("j2", "bob").startRunning("j1").succeeded("j1");

        // j2 took the slot when j1's pods ran and asked for a pool; when j1 ended, j2 took j1's pool instead
        assertThat(of(f, "j2"))
                .extracting(Decision::kind)
                .containsExactly(
                        Decision.Kind.CLUSTER_CHOSEN,
                        Decision.Kind.POOL_CREATED,
                        Decision.Kind.POOL_DELETED,
                        Decision.Kind.POOL_REUSED);
        assertThat(of(f, "j2").get(2).summary())
                .contains("takes the idle node pool " + SchedulerFixture.name("j1") + " instead");
        assertThat(of(f, "j2").get(3).summary()).contains("that job j1 left");
        assertThat(of(f, "j1")).extracting(Decision::kind).doesNotContain(Decision.Kind.POOL_DELETED);
    }

    @Test
    void anAbortAndADeadlineAreTheirOwnKindsOfEnd() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
        f.submit("j1", "alice").submit("j2", "bob").abort("j2");
        assertThat(of(f, "j2")).last().extracting(Decision::kind).isEqualTo(Decision.Kind.ABORTED);

        f.advanceTicking(Duration.ofMinutes(20)); // j1's pool never became ready: NodePoolTimeout
        assertThat(of(f, "j1")).last().extracting(Decision::kind).isEqualTo(Decision.Kind.TIMED_OUT);
    }

    @Test
    void aReservationShortfallIsRecordedOnceWithWhatIsLeftAndWhatIsNeeded() {
        SchedulerFixture f = new SchedulerFixture();
        f.record(f.scheduler.clusterUpserted(
                SchedulerFixture.cluster("c1", "v6e", "active", Optional.of("res-1")), f.now));
        f.submit("j1", "alice");
        var ensure = f.lastCommand(io.falcon.events.executor.ExecutorCommand.EnsureNodePool.class, "j1");
        for (int i = 0; i < 3; i++) { // the executor reports the same shortfall on every attempt
            f.observe(new io.falcon.events.executor.ExecutorEvent.ReservationShort(
                    f.meta(), "j1", "c1", "v6e", ensure.nodePoolName(), "res-1", 1, 2));
        }

        assertThat(of(f, "j1"))
                .filteredOn(d -> d.kind() == Decision.Kind.CAPACITY_SHORT)
                .singleElement()
                .satisfies(d -> assertThat(d.summary())
                        .startsWith("reservation res-1 has 1 of the 2 TPU VM(s) this job needs"));
    }

    @Test
    void aPoolDeletionAskedAgainIsOneDecision() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
        f.submit("j1", "alice").startRunning("j1").succeeded("j1");
        for (int i = 0; i < 5; i++) {
            f.advance(Duration.ofMinutes(2)); // the unconfirmed deletion is asked again
        }

        assertThat(of(f, "j1"))
                .filteredOn(d -> d.kind() == Decision.Kind.POOL_DELETED)
                .hasSize(1);
        assertThat(f.commandsOf(io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted.class))
                .hasSizeGreaterThan(1);
    }
}
