package io.falcon.console.view;

import static io.falcon.testkit.builders.ExecutorEventBuilder.executorEvent;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.decision.Decision;
import io.falcon.events.executor.ExecutorEvent;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A cluster's reservation figures and health, from the executor's events and the ledger, as the Fleet page shows them. */
class ClusterFactsTest {
    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    private static final ClusterInfo C1 =
            new ClusterInfo("c1", "edge-a", "p", "us-east5", "v6e", "bucket-a", Optional.of("res-a"), "active");

    private static Decision weighed(String job, Decision.Outcome outcome, String why, Instant at) {
        return new Decision(
                Meta.of("scheduler", at),
                job,
                "v6e",
                Decision.Kind.CLUSTER_CHOSEN,
                "placed",
                Optional.of("c2"),
                Optional.of("2x4"),
                Optional.empty(),
                Optional.empty(),
                List.of(new Decision.Candidate(
                        "c1", "active", 0, false, Optional.of("res-a"), Optional.empty(), outcome, why)),
                Optional.empty());
    }

    private static FleetPage.Card card(ConsoleIndex index) {
        return Views.fleet(List.of(C1), Map.of(), Map.of(), Map.of(), Map.of("c1", index.clusterFacts("c1")), 0, T0)
                .clusters()
                .get(0);
    }

    @Test
    void nothingSeenYetIsUnknown() {
        FleetPage.Card card = card(new ConsoleIndex(100, 8));
        assertThat(card.health().state()).isEqualTo("unknown");
        assertThat(card.reservation().count()).startsWith("unknown");
        assertThat(card.reservation().inUse()).startsWith("unknown");
        assertThat(card.reservation().remaining()).startsWith("unknown");
    }

    @Test
    void theReservationsCountAndUseAreTheExecutorsLatestReadAndRemainingTheirDifference() {
        ConsoleIndex index = new ConsoleIndex(100, 8);
        index.accept(executorEvent("b").at(T0.plusSeconds(60)).reservationSeen("res-a", 16, 12));
        // an older read, read later, does not win; another cluster's read and another reservation's say nothing here
        index.accept(executorEvent("a").at(T0).reservationSeen("res-a", 16, 2));
        index.accept(executorEvent("c").cluster("c2").at(T0.plusSeconds(90)).reservationSeen("res-a", 32, 0));
        index.accept(executorEvent("d").at(T0.plusSeconds(90)).reservationSeen("res-other", 64, 0));
        FleetPage.Reservation read = card(index).reservation();
        assertThat(read.count()).isEqualTo("16 TPU VM(s) at 12-02 10:01:00 UTC");
        assertThat(read.inUse())
                .isEqualTo("12 TPU VM(s) (all tenants) at 12-02 10:01:00 UTC; 0 of Falcon's node pools");
        assertThat(read.remaining()).isEqualTo("4 TPU VM(s) at 12-02 10:01:00 UTC");

        // a reservation named by its resource path is the cluster's default all the same
        index.accept(executorEvent("e")
                .at(T0.plusSeconds(120))
                .reservationSeen("projects/p/zones/us-east5-a/reservations/res-a", 16, 16));
        assertThat(card(index).reservation().remaining()).isEqualTo("0 TPU VM(s) at 12-02 10:02:00 UTC");

        // GKE's word on a shortage after the read is newer; a read after it is newer again
        index.accept(executorEvent("f").at(T0.plusSeconds(150)).reservationShort("res-a", 1, 2));
        assertThat(card(index).reservation().remaining())
                .isEqualTo("1 TPU VM(s) at 12-02 10:02:30 UTC (a pool needed 2)");
        assertThat(card(index).reservation().count()).isEqualTo("16 TPU VM(s) at 12-02 10:02:00 UTC");
        index.accept(executorEvent("g").at(T0.plusSeconds(180)).reservationSeen("res-a", 16, 10));
        assertThat(card(index).reservation().remaining()).isEqualTo("6 TPU VM(s) at 12-02 10:03:00 UTC");
    }

    @Test
    void theReadsKeptPerClusterAreBounded() {
        ConsoleIndex index = new ConsoleIndex(100, 8);
        for (int i = 0; i < ConsoleIndex.RESERVATIONS_PER_CLUSTER + 3; i++) {
            index.accept(executorEvent("r" + i).at(T0.plusSeconds(i)).reservationSeen("res-" + i, 8, 0));
        }
        assertThat(index.clusterFacts("c1").reservationsRead())
                .hasSize(ConsoleIndex.RESERVATIONS_PER_CLUSTER)
                .extracting(ClusterFacts.ReservationRead::reservation)
                .as("the most recently read ones")
                .endsWith("res-" + (ConsoleIndex.RESERVATIONS_PER_CLUSTER + 2));
    }

    @Test
    void theReservationsRemainingIsTheExecutorsLatestShortage() {
        ConsoleIndex index = new ConsoleIndex(100, 8);
        index.accept(executorEvent("b").at(T0.plusSeconds(60)).reservationShort("res-a", 1, 2));
        // an older shortage read later does not win
        index.accept(executorEvent("a").at(T0).reservationShort("res-a", 0, 4));
        FleetPage.Card card = card(index);
        assertThat(card.reservation().remaining()).isEqualTo("1 TPU VM(s) at 12-02 10:01:00 UTC (a pool needed 2)");
        assertThat(card.reservation().inUse()).contains("0 of Falcon's node pools");
    }

    @Test
    void refusalsSinceTheLastSuccessMakeItRefusingAndASuccessHealsIt() {
        ConsoleIndex index = new ConsoleIndex(100, 8);
        index.accept(executorEvent("a").at(T0).nodePoolReady());
        ExecutorEvent.NodePoolCreateFailed failed = executorEvent("b")
                .at(T0.plusSeconds(10))
                .message("QUOTA_EXCEEDED")
                .nodePoolCreateFailed();
        index.accept(failed);
        index.accept(failed); // read twice: one refusal
        index.accept(executorEvent("c").at(T0.plusSeconds(20)).message("denied").jobSubmitRefused());
        // a success before them, read late, changes nothing; a retryable failure is no refusal
        index.accept(executorEvent("d").at(T0.plusSeconds(5)).jobRunning());
        index.accept(executorEvent("e").at(T0.plusSeconds(25)).jobSubmitRetryable());
        FleetPage.Health refusing = card(index).health();
        assertThat(refusing.state()).isEqualTo("refusing");
        assertThat(refusing.detail())
                .startsWith("2 refusal(s)")
                .contains("10:00:20")
                .contains("denied");

        index.accept(executorEvent("f").at(T0.plusSeconds(30)).jobSubmitted());
        FleetPage.Health healed = card(index).health();
        assertThat(healed.state()).isEqualTo("healthy");
        assertThat(healed.detail()).contains("10:00:30");
    }

    @Test
    void theLedgersAvoidanceWinsUntilALaterPlacementWeighsItAgain() {
        ConsoleIndex index = new ConsoleIndex(100, 8);
        index.accept(weighed("j1", Decision.Outcome.AVOIDED, "3 refusals in a row; avoided until 10:20", T0));
        assertThat(card(index).health())
                .isEqualTo(new FleetPage.Health(
                        "avoided", "3 refusals in a row; avoided until 10:20 (placement at 12-02 10:00:00 UTC)"));
        index.accept(weighed("j0", Decision.Outcome.LESS_PREFERRED, "longer queue", T0.minusSeconds(60)));
        assertThat(card(index).health().state()).isEqualTo("avoided");
        index.accept(weighed("j2", Decision.Outcome.LESS_PREFERRED, "longer queue", T0.plusSeconds(1300)));
        assertThat(card(index).health().state()).isEqualTo("healthy");
    }
}
