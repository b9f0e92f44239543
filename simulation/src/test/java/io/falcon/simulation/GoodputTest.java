package io.falcon.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code bench/goodput}'s measurement: the zero-overhead bound, the figures taken from the fleet's side, the GKE
 * timings' limit on operations, and that a seed gives one table.
 */
class GoodputTest {
    private static final Instant T0 = Scenario.T0;

    private static Scenario.JobPlan job(String id, String topology, Instant submit, Duration runFor) {
        return new Scenario.JobPlan(
                id,
                "alice",
                "v6e",
                topology,
                Optional.of(io.falcon.events.executor.SupplyMode.RESERVATION),
                Optional.of(runFor.toSeconds() + 86_400),
                submit,
                Optional.empty(),
                runFor,
                Scenario.Outcome.SUCCEED,
                Optional.empty());
    }

    @Test
    void theBoundRunsEachJobTheMomentTheReservationHasRoomAndASmallJobPassesALargeOne() {
        // 5 VMs: a 4x4 (4 VMs) runs at once; a second 4x4 waits for it to end, and a 2x2 submitted after it passes it
        Goodput.Trace trace = new Goodput.Trace(
                "t",
                "",
                5,
                List.of(
                        job("a", "4x4", T0, Duration.ofMinutes(60)),
                        job("b", "4x4", T0.plusSeconds(60), Duration.ofMinutes(30)),
                        job("c", "2x2", T0.plusSeconds(120), Duration.ofMinutes(10))),
                false);

        Map<String, Usage.Run> runs = Goodput.ideal(trace).stream()
                .collect(java.util.stream.Collectors.toMap(Usage.Run::falconJobId, r -> r));

        assertThat(runs.get("a").from()).isEqualTo(T0);
        assertThat(runs.get("c").from()).isEqualTo(T0.plusSeconds(120));
        assertThat(runs.get("b").from()).isEqualTo(T0.plus(Duration.ofMinutes(60)));
        assertThat(runs.get("b").until()).contains(T0.plus(Duration.ofMinutes(90)));
    }

    @Test
    void utilizationAndIdleTimeAreCountedFromTheRunsAndTheWaitingWork() {
        Goodput.Trace trace = new Goodput.Trace(
                "t",
                "",
                4,
                List.of(job("a", "2x4", T0, Duration.ofMinutes(60)), job("b", "2x4", T0, Duration.ofMinutes(60))),
                false);
        Instant end = T0.plus(Duration.ofHours(2));
        // 16 chips, room for both; a ran from 0 to 60 min, b waited until 60 min and ran to 120: the reservation ran
        // half of the window's chip time, and 8 chips sat idle for the hour b waited
        List<Usage.Run> runs = List.of(
                new Usage.Run("a", Goodput.RESERVATION, 8, T0, Optional.of(T0.plus(Duration.ofMinutes(60)))),
                new Usage.Run(
                        "b",
                        Goodput.RESERVATION,
                        8,
                        T0.plus(Duration.ofMinutes(60)),
                        Optional.of(T0.plus(Duration.ofMinutes(120)))));
        List<Usage.Hold> holds = List.of(
                new Usage.Hold("p", Goodput.RESERVATION, 8, T0.minusSeconds(600), Optional.of(end.plusSeconds(600))));

        Goodput.Figures figures = Goodput.figures(trace, runs, holds, end, List.of());

        assertThat(figures.utilization()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(figures.waitP50()).isEqualTo(Duration.ZERO);
        assertThat(figures.waitP99()).isEqualTo(Duration.ofMinutes(60));
        assertThat(figures.idleChipHoursWithWork()).isCloseTo(8.0, org.assertj.core.data.Offset.offset(1e-9));
        // the pool held 8 chips for the whole 2 h window and ran on them all of it
        assertThat(figures.heldIdleChipHours()).isCloseTo(0.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(figures.ran()).isEqualTo(2);
    }

    @Test
    void theSameSeedGivesTheSameFigures() {
        Goodput.Trace trace = Goodput.burst(new Random(7));
        List<Goodput.Config> configs = Goodput.configs().subList(0, 1);

        Goodput.Row first = Goodput.measure(trace, Timings.Gke.PUBLISHED, configs);
        Goodput.Row second = Goodput.measure(Goodput.burst(new Random(7)), Timings.Gke.PUBLISHED, configs);

        assertThat(second.byConfig()).isEqualTo(first.byConfig());
        assertThat(first.byConfig().get("seed-literal").violations()).isEmpty();
        assertThat(first.byConfig().get("seed-literal").ran())
                .isEqualTo(trace.jobs().size());
    }

    @Test
    void falconNeverBeatsTheZeroOverheadBoundAndEveryJobRuns() {
        Goodput.Trace trace = Goodput.steady(new Random(3));

        Goodput.Row row =
                Goodput.measure(trace, Timings.Gke.PUBLISHED, Goodput.configs().subList(0, 1));

        Goodput.Figures falcon = row.byConfig().get("seed-literal");
        assertThat(falcon.violations()).isEmpty();
        assertThat(falcon.ran()).isEqualTo(trace.jobs().size());
        assertThat(falcon.utilization())
                .isPositive()
                .isLessThanOrEqualTo(row.bound().utilization() + 1e-9);
        assertThat(falcon.waitP50()).isGreaterThanOrEqualTo(row.bound().waitP50());
        assertThat(row.bound().idleChipHoursWithWork()).isZero();
    }

    @Test
    void whenGkeRunsOneNodePoolOperationAtATimeTheRefusedCreatesAreRetriedAndEveryJobStillRuns() {
        Goodput.Trace trace = Goodput.burst(new Random(11));
        Timings.Gke oneAtATime = Timings.Gke.PUBLISHED.withOperationsAtOnce(1);

        Goodput.Row row = Goodput.measure(trace, oneAtATime, Goodput.configs().subList(0, 1));

        Goodput.Figures falcon = row.byConfig().get("seed-literal");
        assertThat(falcon.violations()).isEmpty();
        assertThat(falcon.ran()).isEqualTo(trace.jobs().size());
        // the bound GKE's limit allows: 16 creations one after another, then the last slice's nodes and pods
        assertThat(Goodput.fillBound(trace, oneAtATime))
                .isGreaterThan(Goodput.fillBound(trace, Timings.Gke.PUBLISHED).multipliedBy(10));
    }

    @Test
    void withTheDefaultsABurstOntoAnEmptyReservationFillsWithinOneAndAHalfTimesWhatGkeAllows() {
        // simulated time: the same seed gives the same figure on any machine
        Goodput.Trace trace = Goodput.burst(new Random(1));

        Goodput.Row row = Goodput.measure(trace, Timings.Gke.PUBLISHED, Goodput.configs());

        Goodput.Figures literal = row.byConfig().get("seed-literal");
        Goodput.Figures defaults = row.byConfig().get("defaults");
        assertThat(defaults.violations()).isEmpty();
        assertThat(defaults.timeToFill())
                .hasValueSatisfying(fill -> assertThat(fill)
                        .isLessThanOrEqualTo(row.fillBound().multipliedBy(3).dividedBy(2)));
        assertThat(literal.timeToFill())
                .as("one creation after another never has all 16 at once")
                .isEmpty();
        assertThat(defaults.waitP50()).isLessThanOrEqualTo(literal.waitP50().dividedBy(2));
    }
}
