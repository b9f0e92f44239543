package io.falcon.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The deterministic simulation over many seeds (see {@link Simulation}): restarts, duplicated and delayed events,
 * API errors, quota, late and missing nodes, flex-start visibility, cluster rows changed or deleted, aborts at any
 * moment. Every seed must end with all invariants held; a failing seed is printed and replays exactly with
 * {@code bench/simulate --seed S}. {@code bench/simulate N} runs any number of them.
 */
class SimulationTest {
    static final int SEEDS = Integer.getInteger("falcon.simulation.seeds", 2_000);

    @Test
    void everySeedEndsWithAllInvariantsHeld() throws Exception {
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        List<Simulation.Result> failed = new ForkJoinPool(threads)
                .submit(() -> LongStream.rangeClosed(1, SEEDS)
                        .parallel()
                        .mapToObj(Simulation::run)
                        .filter(r -> !r.passed())
                        .toList())
                .get();
        failed.forEach(r -> System.out.println("FAILED " + r.summary() + "\n  " + String.join("\n  ", r.violations())));
        assertThat(failed)
                .extracting(Simulation.Result::seed)
                .as("failing seeds (replay: bench/simulate --seed S)")
                .isEmpty();
    }

    /**
     * Seeds beyond the first {@link #SEEDS} that found a bug ({@code bench/simulate 100000}, docs/reliability.md): each
     * failed on the code before its fix, so each stays a regression test.
     */
    @ParameterizedTest
    @ValueSource(longs = {3136, 4458, 9116, 24460, 39006, 43266, 92828})
    void aSeedThatOnceFoundABugPasses(long seed) {
        Simulation.Result result = Simulation.run(seed);
        assertThat(result.violations()).as(result.summary()).isEmpty();
        assertThat(result.passed()).isTrue();
    }

    @Test
    void aSeedReplaysExactly() {
        Simulation.Result first = Simulation.run(42);
        Simulation.Result again = Simulation.run(42);
        assertThat(again.steps()).isEqualTo(first.steps());
        assertThat(again.simulated()).isEqualTo(first.simulated());
        assertThat(again.outcomes()).isEqualTo(first.outcomes());
        assertThat(first.steps()).isPositive();
    }
}
