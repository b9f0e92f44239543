package io.falcon.faults.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.fault.DeviceFault;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * {@link JobWindow#decideDue} decides the codes of a job independently, each code's faults walked once: it must
 * decide exactly what the RFC's loop decides (the first fault with its same-code faults in its window, then the
 * first of what is left, while it is due), in the same order, with the same rounds and what is left in the same
 * order. The loop is written out below as the oracle.
 */
class JobWindowDecideTest {
    private static final long WINDOW_MS = 30_000;
    private static final long GRACE_MS = 5_000;
    private static final long BASE = 1_780_000_000_000L;

    @Provide
    Arbitrary<List<DeviceFault>> pending() {
        Arbitrary<DeviceFault> fault = Combinators.combine(
                        Arbitraries.of("n1", "n2"),
                        Arbitraries.of("d0", "d1"),
                        Arbitraries.of("A", "B", "C", "D", "E"),
                        Arbitraries.longs().between(0, 120).map(step -> BASE + step * 1_000))
                .as((node, device, code, time) -> DeviceFault.of("c1", node, device, code, Optional.of("job-1"), time));
        return fault.list().ofMaxSize(80).map(list -> {
            List<DeviceFault> sorted = new ArrayList<>(list);
            sorted.sort(JobWindow.ORDER); // stable: arrival order among equal receive times
            return sorted;
        });
    }

    @Property(tries = 500)
    void decidesWhatTheRoundByRoundLoopDecidesInItsOrder(
            @ForAll("pending") List<DeviceFault> pending, @ForAll @LongRange(min = 0, max = 200) long nowStep) {
        long now = BASE + nowStep * 1_000;
        JobWindow.Decision expected = loop(pending, now);
        JobWindow.Decision actual = JobWindow.decideDue(pending, WINDOW_MS, GRACE_MS, now);

        assertThat(actual.decided()).containsExactlyElementsOf(expected.decided());
        assertThat(actual.rounds()).containsExactlyElementsOf(expected.rounds());
        assertThat(actual.remaining()).containsExactlyElementsOf(expected.remaining());
        // the faults left are the very instances held (the job window removes the decided ones by identity)
        for (int i = 0; i < actual.remaining().size(); i++) {
            assertThat(actual.remaining().get(i)).isSameAs(expected.remaining().get(i));
        }
    }

    @Test
    void aStormOfDistinctCodesIsOneRoundPerCodeInReceiveOrder() {
        List<DeviceFault> storm = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            storm.add(DeviceFault.of(
                    "c1",
                    "node-" + i % 512,
                    "npu-" + i % 8,
                    "CODE-" + i,
                    Optional.of("job-1"),
                    BASE + i * 29_999L / 100_000));
        }
        JobWindow.Decision decision = JobWindow.decideAll(storm, WINDOW_MS);

        assertThat(decision.remaining()).isEmpty();
        assertThat(decision.rounds()).hasSize(100_000);
        assertThat(decision.decided()).allMatch(o -> o instanceof JobWindow.Counted);
        assertThat(decision.decided().get(99_999).fault()).isSameAs(storm.get(99_999));
    }

    /** The RFC's loop, as the job window ran it before: decide the first fault's round, then the first left. */
    private static JobWindow.Decision loop(List<DeviceFault> pending, long now) {
        List<DeviceFault> rest = new ArrayList<>(pending);
        List<JobWindow.Outcome> decided = new ArrayList<>();
        List<JobWindow.Round> rounds = new ArrayList<>();
        while (!rest.isEmpty() && JobWindow.isDue(rest.get(0).receiveTimeMs(), WINDOW_MS, GRACE_MS, now)) {
            DeviceFault first = rest.get(0);
            List<DeviceFault> round = new ArrayList<>();
            List<DeviceFault> left = new ArrayList<>();
            for (int i = 1; i < rest.size(); i++) {
                DeviceFault f = rest.get(i);
                if (f.faultCode().equals(first.faultCode()) && f.receiveTimeMs() <= first.receiveTimeMs() + WINDOW_MS) {
                    round.add(f);
                } else {
                    left.add(f);
                }
            }
            DeviceFault other = round.stream()
                    .filter(f -> !JobWindow.sameDevice(f, first))
                    .findFirst()
                    .orElse(null);
            rounds.add(new JobWindow.Round(
                    first.faultCode(),
                    first.receiveTimeMs(),
                    first.deviceRef(),
                    other == null ? JobWindow.Round.NO_OTHER : other.receiveTimeMs(),
                    other == null ? "" : other.deviceRef()));
            if (other == null) {
                decided.add(new JobWindow.Counted(first));
                round.forEach(f -> decided.add(new JobWindow.Counted(f)));
            } else {
                Set<String> group = new LinkedHashSet<>();
                group.add(first.deviceRef());
                round.forEach(f -> group.add(f.deviceRef()));
                List<String> peers = List.copyOf(group);
                decided.add(new JobWindow.Software(first, peers));
                round.forEach(f -> decided.add(new JobWindow.Software(f, peers)));
            }
            rest = left;
        }
        return new JobWindow.Decision(decided, rest, rounds);
    }
}
