package io.falcon.faults.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.fault.NodeIsolation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The frequency stage keeps every stored value within {@link StateBounds}: an input that would push one past its
 * bound is refused with the reason (the topology dead-letters it) and changes nothing; what is already held stays;
 * the inputs after it are applied as before.
 */
class CountingBoundsTest {
    private static final long T0 = Instant.parse("2026-12-01T00:00:00Z").toEpochMilli();

    private final MapCountingState state = new MapCountingState();
    private final FaultCounting counting = new FaultCounting(state);

    private static DeviceFault fault(String node, String device, String code, long atMs) {
        return DeviceFault.of("c1", node, device, code, Optional.empty(), atMs);
    }

    private static IsolationPolicy policy(int threshold, int budget) {
        return new IsolationPolicy(Meta.of("test", Instant.EPOCH), 1, true, 24, threshold, -1, false, budget);
    }

    private static List<Outcome> outcomes(Effects effects) {
        return effects.verdicts().stream().map(FaultVerdict::outcome).toList();
    }

    @Test
    void aHundredThousandDistinctCodesOfOneDeviceIsolateItForAsManyCodesAsItKeepsAndTheRestAreRefused() {
        IsolationPolicy atOnce = policy(1, 0);
        int refused = 0;
        for (int i = 0; i < 100_000; i++) {
            Effects effects = counting.onCountedFault(fault("n1", "d0", "CODE-" + i, T0 + i), atOnce, T0 + i);
            if (effects.refusal().isPresent()) {
                refused++;
                assertThat(effects.verdicts()).isEmpty();
                assertThat(effects.changedNodes()).isEmpty();
                if (refused == 1) {
                    assertThat(effects.refusal().get())
                            .isEqualTo("device n1/d0 is already isolated for 8 fault codes, the most fault-streams"
                                    + " keeps per device (8)");
                }
            } else {
                assertThat(outcomes(effects)).containsExactly(Outcome.ISOLATED);
            }
        }
        assertThat(refused).isEqualTo(100_000 - StateBounds.MAX_CODES_PER_DEVICE);
        NodeIsolationState node = state.node("c1", "n1");
        assertThat(node.device("d0").orElseThrow().codes()).hasSize(StateBounds.MAX_CODES_PER_DEVICE);
        // nothing of the refused faults was kept
        assertThat(state.counters()).isEmpty();

        // the device is still re-isolated for a code it is isolated for, and other devices are isolated as before
        assertThat(outcomes(counting.onCountedFault(fault("n1", "d0", "CODE-3", T0 + 200_000), atOnce, T0 + 200_000)))
                .containsExactly(Outcome.ISOLATED);
        assertThat(outcomes(counting.onCountedFault(fault("n1", "d1", "CODE-9", T0 + 200_001), atOnce, T0 + 200_001)))
                .containsExactly(Outcome.ISOLATED);
    }

    @Test
    void aRefusedFaultLeavesItsCounterAsItWasSoItsNextFaultCountsAgain() {
        IsolationPolicy three = policy(3, 0);
        for (int c = 0; c < StateBounds.MAX_CODES_PER_DEVICE; c++) {
            counting.onCountedFault(fault("n1", "d0", "CODE-" + c, T0), policy(1, 0), T0);
        }
        counting.onCountedFault(fault("n1", "d0", "NEW", T0 + 1), three, T0 + 1);
        counting.onCountedFault(fault("n1", "d0", "NEW", T0 + 2), three, T0 + 2);
        assertThat(state.counters()).hasSize(1);

        Effects third = counting.onCountedFault(fault("n1", "d0", "NEW", T0 + 3), three, T0 + 3);

        assertThat(third.refusal()).isPresent();
        assertThat(state.counters().values()).containsExactly(List.of(T0 + 1, T0 + 2));
    }

    @Test
    void aNodeKeepsAtMostItsBoundOfIsolatedDevices() {
        IsolationPolicy atOnce = policy(1, 0);
        for (int d = 0; d < StateBounds.MAX_ISOLATED_DEVICES_PER_NODE; d++) {
            assertThat(counting.onCountedFault(fault("n1", "d" + d, "C", T0 + d), atOnce, T0 + d)
                            .refusal())
                    .isEmpty();
        }
        Effects next = counting.onCountedFault(fault("n1", "d-extra", "C", T0 + 100), atOnce, T0 + 100);

        assertThat(next.refusal())
                .hasValue("node n1 already has 32 isolated devices, the most fault-streams keeps per node (32)");
        assertThat(state.node("c1", "n1").devices()).hasSize(StateBounds.MAX_ISOLATED_DEVICES_PER_NODE);
        // another node is not affected
        assertThat(outcomes(counting.onCountedFault(fault("n2", "d0", "C", T0 + 101), atOnce, T0 + 101)))
                .containsExactly(Outcome.ISOLATED);
    }

    @Test
    void aClusterHoldsAtMostItsBoundOfBudgetCandidatesAndTheSameDeviceAndCodeIsReplaced() {
        IsolationPolicy budgetOfOne = policy(1, 1);
        counting.onCountedFault(fault("isolated", "d0", "C", T0), budgetOfOne, T0);
        for (int n = 0; n < StateBounds.MAX_CANDIDATES_PER_CLUSTER; n++) {
            assertThat(outcomes(counting.onCountedFault(fault("n" + n, "d0", "C", T0 + n), budgetOfOne, T0 + n)))
                    .containsExactly(Outcome.HELD_BY_BUDGET);
        }
        Effects next = counting.onCountedFault(fault("n-extra", "d0", "C", T0 + 100), budgetOfOne, T0 + 100);

        assertThat(next.refusal())
                .hasValue("cluster c1 already holds 64 isolations back for its budget, the most fault-streams keeps"
                        + " per cluster (64)");
        assertThat(state.candidates("c1")).hasSize(StateBounds.MAX_CANDIDATES_PER_CLUSTER);
        // a candidate of the same device and code reaching the threshold again replaces its earlier self
        assertThat(outcomes(counting.onCountedFault(fault("n5", "d0", "C", T0 + 200), budgetOfOne, T0 + 200)))
                .containsExactly(Outcome.HELD_BY_BUDGET);
        assertThat(state.candidates("c1")).hasSize(StateBounds.MAX_CANDIDATES_PER_CLUSTER);

        // once budget frees up, the oldest candidate is isolated
        Effects released =
                counting.release("c1", "isolated", "d0", Outcome.RELEASED_BY_OPERATOR, "test", budgetOfOne, T0);
        assertThat(outcomes(released)).containsExactly(Outcome.RELEASED_BY_OPERATOR, Outcome.ISOLATED);
        assertThat(state.node("c1", "n0").isIsolated("d0")).isTrue();
    }

    @Test
    void aCandidateWhoseNodeFilledUpSinceItWasHeldStaysHeldAndTheNextIsIsolated() {
        IsolationPolicy budget = policy(1, 1);
        counting.onCountedFault(fault("full", "d-first", "C", T0), budget, T0);
        counting.onCountedFault(fault("full", "d-held", "C", T0 + 1), budget, T0 + 1);
        counting.onCountedFault(fault("other", "d0", "C", T0 + 2), budget, T0 + 2);
        assertThat(state.candidates("c1")).hasSize(2);
        // the node fills up with devices isolated without a budget
        for (int d = 0; d < StateBounds.MAX_ISOLATED_DEVICES_PER_NODE - 1; d++) {
            counting.onCountedFault(fault("full", "x" + d, "C", T0 + 10 + d), policy(1, 0), T0 + 10 + d);
        }
        assertThat(state.node("c1", "full").devices()).hasSize(StateBounds.MAX_ISOLATED_DEVICES_PER_NODE);

        Effects promoted = counting.promoteCandidates("c1", policy(1, 100), T0 + 100);

        assertThat(promoted.verdicts()).extracting(FaultVerdict::nodeName).containsExactly("other");
        assertThat(state.candidates("c1"))
                .extracting(c -> c.fault().deviceName())
                .containsExactly("d-held");
    }

    @Test
    void releasesRememberedPerClusterAreBoundedByForgettingTheOldest() {
        IsolationPolicy atOnce = policy(1, 0);
        int releases = StateBounds.MAX_RELEASED_PER_CLUSTER + 10;
        for (int n = 0; n < releases; n++) {
            counting.onCountedFault(fault("n" + n, "d0", "C", T0 + n), atOnce, T0 + n);
            counting.release("c1", "n" + n, "d0", Outcome.RELEASED_BY_OPERATOR, "test", atOnce, T0 + n);
        }

        List<Released> released = state.released("c1");
        assertThat(released).hasSize(StateBounds.MAX_RELEASED_PER_CLUSTER);
        assertThat(released.get(0).nodeName()).isEqualTo("n10");
        assertThat(released.get(released.size() - 1).nodeName()).isEqualTo("n" + (releases - 1));
    }

    @Test
    void aListingThatWouldGiveANodeMoreIsolatedDevicesThanItKeepsIsRefusedAndAdoptsNothing() {
        counting.onCountedFault(fault("n1", "mine", "C", T0), policy(1, 0), T0);
        List<String> total = new ArrayList<>();
        Map<String, List<NodeIsolation.DeviceIsolation>> detail = new java.util.TreeMap<>();
        for (int d = 0; d < StateBounds.MAX_ISOLATED_DEVICES_PER_NODE; d++) {
            total.add("lost-" + d);
            detail.put(
                    "lost-" + d,
                    List.of(new NodeIsolation.DeviceIsolation("C", NodeIsolation.MANUALLY_SEPARATE_NPU, T0)));
        }

        FaultCounting.Adoption adoption =
                counting.listedByFalcon("c1", "n1", new NodeIsolation(total, detail), policy(1, 0), T0 + 1);

        assertThat(adoption.effects().refusal())
                .hasValue("adopting 32 devices would give node n1 33 isolated devices, more than fault-streams keeps"
                        + " per node (32)");
        assertThat(adoption.adopted()).isEmpty();
        assertThat(state.node("c1", "n1").devices()).containsOnlyKeys("mine");
    }
}
