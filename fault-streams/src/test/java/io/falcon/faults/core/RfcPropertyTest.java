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
import net.jqwik.api.statistics.Statistics;

/** The core (job window + frequency counter) decides exactly what the RFC's plain algorithm decides. */
class RfcPropertyTest {
    private static final long JOB_WINDOW_MS = 30_000;
    private static final long GRACE_MS = 5_000;
    private static final long ALLOWED_LATENESS_MS = 300_000;
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

    /** Faults within 3 minutes: software rounds (and so late peers of them) are common. */
    @Provide
    Arbitrary<List<DeviceFault>> denseTraces() {
        Arbitrary<DeviceFault> fault = Combinators.combine(
                        Arbitraries.of("job-1", "job-2", ""),
                        Arbitraries.of("n1", "n2"),
                        Arbitraries.of("d0", "d1"),
                        Arbitraries.of("A", "B"),
                        Arbitraries.longs().between(0, 180 / 5).map(step -> BASE + step * 5_000))
                .as((job, node, device, code, time) -> DeviceFault.of(
                        "c1", node, device, code, Optional.of(job).filter(j -> !j.isEmpty()), time));
        return fault.list()
                .ofMinSize(12)
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

    /**
     * Peers of software rounds that arrive after their round was decided (later than the grace, within the allowed
     * lateness) are judged as the RFC's algorithm judges them with every fault present. Which faults are late is
     * drawn among the non-first faults of the reference's software rounds, keeping in time for each round a fault
     * on another device than its first (without it the round could not be recognised before its peers arrive).
     */
    @Property(tries = 300)
    void latePeersOfSoftwareRoundsAreJudgedAsWithEveryFaultPresent(
            @ForAll("denseTraces") List<DeviceFault> trace,
            @ForAll @IntRange(min = 1, max = 4) int threshold,
            @ForAll @IntRange(min = 1, max = 2) int windowHours,
            @ForAll long seed) {
        IsolationPolicy policy =
                new IsolationPolicy(Meta.of("test", Instant.EPOCH), 1, true, windowHours, threshold, -1, false, 0);
        RfcReferenceModel.Result expected =
                RfcReferenceModel.run(trace, JOB_WINDOW_MS, threshold, policy.faultWindowMs());

        java.util.Random random = new java.util.Random(seed);
        // arrival time of each fault, by identity; a late one arrives after its round was decided
        Map<DeviceFault, Long> arrival = new java.util.IdentityHashMap<>();
        trace.forEach(f -> arrival.put(f, f.receiveTimeMs()));
        int late = 0;
        for (RfcReferenceModel.Round round : expected.rounds()) {
            if (!round.software()) {
                continue;
            }
            List<DeviceFault> delayed = new ArrayList<>();
            for (DeviceFault f : round.others()) {
                if (random.nextBoolean()) {
                    delayed.add(f);
                }
            }
            boolean peerInTime = round.others().stream()
                    .anyMatch(f -> !delayed.contains(f)
                            && !f.deviceRef().equals(round.first().deviceRef()));
            if (!peerInTime) {
                delayed.stream()
                        .filter(f -> !f.deviceRef().equals(round.first().deviceRef()))
                        .findFirst()
                        .ifPresent(delayed::remove);
            }
            for (DeviceFault f : delayed) {
                long decided = round.first().receiveTimeMs() + JOB_WINDOW_MS + GRACE_MS + 1;
                arrival.put(f, decided + random.nextInt(120_000));
                late++;
            }
        }
        List<DeviceFault> arrivals = new ArrayList<>(trace);
        arrivals.sort(Comparator.comparingLong(arrival::get)); // stable: receive-time order among equal arrivals

        Map<String, List<DeviceFault>> held = new LinkedHashMap<>();
        Map<String, List<JobWindow.Round>> rounds = new LinkedHashMap<>();
        List<DeviceFault> counted = new ArrayList<>();
        List<DeviceFault> software = new ArrayList<>();
        for (DeviceFault f : arrivals) {
            long now = arrival.get(f);
            decideDue(held, rounds, now, counted, software);
            if (f.jobId().isEmpty()) {
                counted.add(f);
                continue;
            }
            assertThat(JobWindow.isTooLate(f.receiveTimeMs(), now, ALLOWED_LATENESS_MS))
                    .isFalse();
            String job = f.jobId().get();
            Optional<JobWindow.Late> judged =
                    JobWindow.judgeLate(f, rounds.getOrDefault(job, List.of()), JOB_WINDOW_MS);
            if (judged.isPresent()) {
                rounds.put(job, judged.get().rounds());
                collect(judged.get().outcome(), counted, software);
            } else {
                List<DeviceFault> jobFaults = held.computeIfAbsent(job, j -> new ArrayList<>());
                jobFaults.add(f);
                jobFaults.sort(JobWindow.ORDER);
            }
        }
        decideDue(held, rounds, Long.MAX_VALUE / 2, counted, software);

        Statistics.label("late faults").collect(late == 0 ? "none" : "some");
        Statistics.label("late faults")
                .coverage(coverage -> coverage.check("some").percentage(p -> p > 25));
        assertThat(software).containsExactlyInAnyOrderElementsOf(expected.software());
        counted.sort(Comparator.comparingLong(DeviceFault::receiveTimeMs));
        // each counter is its own: only the order among counters of faults received at the same time may differ
        assertThat(isolations(counted, policy)).containsExactlyInAnyOrderElementsOf(expected.isolations());
    }

    private static void decideDue(
            Map<String, List<DeviceFault>> held,
            Map<String, List<JobWindow.Round>> rounds,
            long now,
            List<DeviceFault> counted,
            List<DeviceFault> software) {
        for (Map.Entry<String, List<DeviceFault>> job : held.entrySet()) {
            JobWindow.Decision decision = JobWindow.decideDue(job.getValue(), JOB_WINDOW_MS, GRACE_MS, now);
            decision.decided().forEach(o -> collect(o, counted, software));
            job.setValue(new ArrayList<>(decision.remaining()));
            List<JobWindow.Round> kept = new ArrayList<>(rounds.getOrDefault(job.getKey(), List.of()));
            kept.addAll(decision.rounds());
            rounds.put(job.getKey(), JobWindow.stillJudging(kept, JOB_WINDOW_MS, ALLOWED_LATENESS_MS, now));
        }
    }

    private static void collect(JobWindow.Outcome outcome, List<DeviceFault> counted, List<DeviceFault> software) {
        if (outcome instanceof JobWindow.Software s) {
            software.add(s.fault());
        } else {
            counted.add(outcome.fault());
        }
    }

    private static List<RfcReferenceModel.Isolation> isolations(List<DeviceFault> counted, IsolationPolicy policy) {
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
        return isolations;
    }
}
