package io.falcon.faults.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.IsolationPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** The core (job window + frequency counter) decides exactly what the RFC's plain algorithm decides. */
class RfcPropertyTest {
    private static final long JOB_WINDOW_MS = 30_000;
    private static final long BASE = Instant.parse("2026-12-02T10:00:00Z").toEpochMilli();

    @Provide
    Arbitrary<List<DeviceFault>> traces() {
        Arbitrary<DeviceFault> fault = Combinators.combine(
                        Arbitraries.of("job-1", "job-2", ""),
                        Arbitraries.of("n1", "n2"),
                        Arbitraries.of("d0", "d1"),
                        Arbitraries.of("A", "B"),
                        Arbitraries.longs().between(0, 3 * 3600 / 5).map(step -> BASE + step * 5_000))
                .as((job, node, device, code, time) -> DeviceFault.of(
                        "c1", node, device, code, Optional.of(job).filter(j -> !j.isEmpty()), time));
        return fault.list()
                .ofMinSize(0)
                .ofMaxSize(60)
                .map(list -> list.stream()
                        .sorted(Comparator.comparingLong(DeviceFault::receiveTimeMs))
                        .toList());
    }

    @Property(tries = 300)
    void coreMatchesTheRfcReferenceModel(
            @ForAll("traces") List<DeviceFault> trace,
            @ForAll @IntRange(min = 1, max = 4) int threshold,
            @ForAll @IntRange(min = 1, max = 2) int windowHours) {
        IsolationPolicy policy =
                new IsolationPolicy(Meta.of("test", Instant.EPOCH), 1, true, windowHours, threshold, -1, false, 0);
        RfcReferenceModel.Result expected =
                RfcReferenceModel.run(trace, JOB_WINDOW_MS, threshold, policy.faultWindowMs());

        Map<String, List<DeviceFault>> byJob = new LinkedHashMap<>();
        List<DeviceFault> counted = new ArrayList<>();
        List<DeviceFault> software = new ArrayList<>();
        for (DeviceFault f : trace) {
            if (f.jobId().isEmpty()) {
                counted.add(f);
            } else {
                byJob.computeIfAbsent(f.jobId().get(), j -> new ArrayList<>()).add(f);
            }
        }
        for (List<DeviceFault> jobFaults : byJob.values()) {
            for (JobWindow.Outcome outcome :
                    JobWindow.decideAll(jobFaults, JOB_WINDOW_MS).decided()) {
                if (outcome instanceof JobWindow.Software s) {
                    software.add(s.fault());
                } else {
                    counted.add(outcome.fault());
                }
            }
        }
        counted.sort(Comparator.comparingLong(DeviceFault::receiveTimeMs));
        FaultCounting counting = new FaultCounting(new MapCountingState());
        List<RfcReferenceModel.Isolation> isolations = new ArrayList<>();
        for (DeviceFault f : counted) {
            for (FaultVerdict v :
                    counting.onCountedFault(f, policy, f.receiveTimeMs()).verdicts()) {
                if (v.outcome() == FaultVerdict.Outcome.ISOLATED) {
                    isolations.add(new RfcReferenceModel.Isolation(
                            v.nodeName(), v.deviceName(), v.faultCode(), v.receiveTimeMs()));
                }
            }
        }
        assertThat(software).containsExactlyInAnyOrderElementsOf(expected.software());
        assertThat(isolations).containsExactlyElementsOf(expected.isolations());
    }
}
