package io.falcon.bench;

import io.falcon.events.fault.DeviceFault;
import io.falcon.faults.core.JobWindow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A storm of distinct fault codes in one job window: {@code codes} faults of one job within its 30 s window, each
 * with a code of its own, so each fault is a round of its own. The work per fault must not grow with the storm:
 * divide a decision's time by {@code codes} for the time per fault.
 *
 * <ul>
 *   <li>{@link #decideAll}: the whole storm decided at once ({@link JobWindow#decideAll}).
 *   <li>{@link #decideEverySecond}: the storm decided as the job window's punctuator decides it, every second of
 *       event time, the faults not yet due carried over to the next round.
 *   <li>{@link #judgeAgainstTheJobsRounds} and {@link #judgeAgainstTheCodesRounds}: 1,000 faults of the storm's
 *       codes arriving after it was decided, judged against the decided rounds ({@link JobWindow#judgeLate}): passed
 *       every round of the job (all codes), as the job window once kept them, or only the rounds of the fault's code,
 *       as it keeps them now (per job and code).
 * </ul>
 *
 * Run: {@code bench/run jmh JobWindowStormBenchmark -f 1} (docs/performance.md).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class JobWindowStormBenchmark {
    static final long WINDOW_MS = 30_000;
    static final long GRACE_MS = 5_000;
    static final long BASE = 1_780_000_000_000L;
    static final int JUDGED = 1_000;

    @Param({"1000", "10000", "100000"})
    public int codes;

    private List<DeviceFault> storm;
    private List<JobWindow.Round> jobRounds;
    private Map<String, List<JobWindow.Round>> roundsByCode;
    private DeviceFault[] judged;

    @Setup
    public void load() {
        storm = new ArrayList<>(codes);
        for (int i = 0; i < codes; i++) {
            storm.add(fault(i, BASE + i * (WINDOW_MS - 1) / codes));
        }
        jobRounds = JobWindow.decideAll(storm, WINDOW_MS).rounds();
        roundsByCode = new HashMap<>();
        for (JobWindow.Round round : jobRounds) {
            roundsByCode.computeIfAbsent(round.code(), c -> new ArrayList<>()).add(round);
        }
        // faults of the storm's codes on other devices, within the rounds' windows: each joins its code's round
        judged = new DeviceFault[JUDGED];
        for (int j = 0; j < JUDGED; j++) {
            int code = (int) ((long) j * codes / JUDGED);
            judged[j] = new DeviceFault(
                    null,
                    "c1",
                    "node-late-" + j,
                    "npu-0",
                    "CODE-" + code,
                    Optional.empty(),
                    Optional.of("job-1"),
                    BASE + WINDOW_MS);
        }
    }

    private static DeviceFault fault(int i, long at) {
        return new DeviceFault(
                null,
                "c1",
                "node-" + (i / 8) % 512,
                "npu-" + i % 8,
                "CODE-" + i,
                Optional.empty(),
                Optional.of("job-1"),
                at);
    }

    @Benchmark
    public int decideAll() {
        return JobWindow.decideAll(storm, WINDOW_MS).decided().size();
    }

    @Benchmark
    public int decideEverySecond() {
        List<DeviceFault> held = storm;
        int decided = 0;
        for (long now = BASE; !held.isEmpty(); now += 1_000) {
            JobWindow.Decision decision = JobWindow.decideDue(held, WINDOW_MS, GRACE_MS, now);
            decided += decision.decided().size();
            held = decision.remaining();
        }
        return decided;
    }

    @Benchmark
    public int judgeAgainstTheJobsRounds() {
        int joined = 0;
        for (DeviceFault fault : judged) {
            if (JobWindow.judgeLate(fault, jobRounds, WINDOW_MS).isPresent()) {
                joined++;
            }
        }
        return joined;
    }

    @Benchmark
    public int judgeAgainstTheCodesRounds() {
        int joined = 0;
        for (DeviceFault fault : judged) {
            List<JobWindow.Round> rounds = roundsByCode.getOrDefault(fault.faultCode(), List.of());
            if (JobWindow.judgeLate(fault, rounds, WINDOW_MS).isPresent()) {
                joined++;
            }
        }
        return joined;
    }
}
