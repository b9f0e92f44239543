package io.falcon.faults.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.IsolationPolicy;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ForgetExpiredTest {
    private static final long HOUR = 3_600_000L;
    private static final long T0 = Instant.parse("2026-12-01T00:00:00Z").toEpochMilli();

    private static DeviceFault fault(String node, long atMs) {
        return DeviceFault.of("c1", node, "d0", "8C084E00", Optional.empty(), atMs);
    }

    private static IsolationPolicy policy(int threshold, int budget) {
        return new IsolationPolicy(Meta.of("test", Instant.EPOCH), 1, true, 24, threshold, -1, false, budget);
    }

    @Test
    void aCounterExpiresWhenItsNewestTimeIsTheLargestWindowOld() {
        assertThat(FrequencyRule.isExpired(List.of(T0, T0 + HOUR), T0 + HOUR + 720 * HOUR - 1))
                .isFalse();
        assertThat(FrequencyRule.isExpired(List.of(T0, T0 + HOUR), T0 + HOUR + 720 * HOUR))
                .isTrue();
        assertThat(FrequencyRule.isExpired(List.of(), T0)).isTrue();
    }

    @Test
    void forgetsExpiredCountersAndCandidatesAndKeepsTheRest() {
        MapCountingState state = new MapCountingState();
        FaultCounting counting = new FaultCounting(state);
        IsolationPolicy budgetOfOne = policy(1, 1);
        counting.onCountedFault(fault("isolated", T0), budgetOfOne, T0);
        counting.onCountedFault(fault("old-candidate", T0), budgetOfOne, T0);
        counting.onCountedFault(fault("new-candidate", T0 + 100 * HOUR), budgetOfOne, T0 + 100 * HOUR);
        IsolationPolicy threshold3 = policy(3, 0);
        counting.onCountedFault(fault("old-counter", T0), threshold3, T0);
        counting.onCountedFault(fault("new-counter", T0 + 100 * HOUR), threshold3, T0 + 100 * HOUR);

        FaultCounting.Forgotten forgotten = counting.forgetExpired(T0 + 720 * HOUR);

        assertThat(forgotten.counters()).isEqualTo(1);
        assertThat(forgotten.candidates()).extracting(c -> c.fault().nodeName()).containsExactly("old-candidate");
        assertThat(state.counters().keySet()).extracting(CounterKey::nodeName).containsExactly("new-counter");
        assertThat(state.candidates("c1")).extracting(c -> c.fault().nodeName()).containsExactly("new-candidate");
        // isolations end by release, never by age
        assertThat(state.nodes()).containsOnlyKeys("c1/isolated");
    }

    @Test
    void theLastExpiredCandidateOfAClusterDeletesItsEntry() {
        MapCountingState state = new MapCountingState();
        FaultCounting counting = new FaultCounting(state);
        IsolationPolicy budgetOfOne = policy(1, 1);
        counting.onCountedFault(fault("isolated", T0), budgetOfOne, T0);
        counting.onCountedFault(fault("candidate", T0), budgetOfOne, T0);
        assertThat(state.candidates()).containsOnlyKeys("c1");

        counting.forgetExpired(T0 + 720 * HOUR);

        assertThat(state.candidates()).isEmpty();
    }
}
