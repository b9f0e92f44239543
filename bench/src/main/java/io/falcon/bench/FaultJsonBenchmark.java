package io.falcon.bench;

import io.falcon.events.Json;
import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultJson;
import io.falcon.events.fault.FaultVerdict;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The JSON fault-streams handles once per fault (issue 12): a {@link DeviceFault} read from falcon.device-faults and
 * a {@link FaultVerdict} written to falcon.fault-verdicts, on the byte-level tier ({@link FaultJson#DEVICE_FAULT},
 * {@link FaultJson#VERDICT}) against Jackson's streaming API alone (the tier before it). The faults are shaped like
 * {@code bench/faults mixed} (4,000 nodes x 8 devices, 1,000 jobs, a quarter without a job, 20 codes), 8,192 of them
 * taken in turn, as many distinct names as a stream thread sees. A decode also hashes the strings fault-streams keys
 * its maps by (at 47e480d, a per-thread string cache that kept those hash codes was measured here against none).
 * Run with {@code -prof gc} for the bytes allocated per operation.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class FaultJsonBenchmark {
    static final int FAULTS = 8192;

    private DeviceFault[] faults;
    private byte[][] encoded;
    private FaultVerdict[] verdicts;
    private int next;

    @Setup
    public void load() throws IOException {
        Random random = new Random(12);
        faults = new DeviceFault[FAULTS];
        encoded = new byte[FAULTS][];
        verdicts = new FaultVerdict[FAULTS];
        long base = 1_780_000_000_000L;
        for (int i = 0; i < FAULTS; i++) {
            int node = random.nextInt(4000);
            long at = base + i * 10L;
            Optional<String> job = random.nextInt(4) == 0 ? Optional.empty() : Optional.of("job-" + node / 4);
            DeviceFault fault = new DeviceFault(
                    new Meta("mixed-" + i, Instant.ofEpochMilli(at), "bench"),
                    "c" + node % 4,
                    "node-" + node,
                    "npu-" + random.nextInt(8),
                    "CODE" + random.nextInt(20),
                    Optional.empty(),
                    job,
                    at);
            faults[i] = fault;
            // what the collector sent: the mapper's JSON
            encoded[i] = Json.mapper().writeValueAsBytes(fault);
            List<Long> times = List.of(at - 7_200_000L, at - 3_600_000L, at);
            verdicts[i] = new FaultVerdict(
                    Meta.deterministic("fault-streams", Instant.ofEpochMilli(at + 5), "mixed-" + i + "/COUNTED/3"),
                    fault.clusterId(),
                    fault.nodeName(),
                    fault.deviceName(),
                    fault.faultCode(),
                    fault.jobId(),
                    at,
                    FaultVerdict.Outcome.COUNTED,
                    new FaultVerdict.Evidence(3, List.of(), 0, times, times.size() + " of 5 faults within 24h"));
        }
    }

    private int nextIndex() {
        return next++ & (FAULTS - 1);
    }

    /** The hashes of the keys fault-streams looks a fault up by (job window, device counter, node state). */
    private static int keys(DeviceFault f) {
        return f.clusterId().hashCode()
                ^ f.nodeName().hashCode()
                ^ f.deviceName().hashCode()
                ^ f.faultCode().hashCode()
                ^ f.jobId().map(String::hashCode).orElse(0);
    }

    @Benchmark
    public int decodeFaultStreaming() {
        return keys(
                FaultJson.STREAMING_DEVICE_FAULT.decode(encoded[nextIndex()]).orElseThrow());
    }

    @Benchmark
    public int decodeFaultBytes() {
        return keys(FaultJson.DEVICE_FAULT.decode(encoded[nextIndex()]).orElseThrow());
    }

    @Benchmark
    public byte[] encodeVerdictStreaming() throws IOException {
        return FaultJson.STREAMING_VERDICT.encode(verdicts[nextIndex()]);
    }

    @Benchmark
    public byte[] encodeVerdictBytes() throws IOException {
        return FaultJson.VERDICT.encode(verdicts[nextIndex()]);
    }

    @Benchmark
    public byte[] encodeFaultStreaming() throws IOException {
        return FaultJson.STREAMING_DEVICE_FAULT.encode(faults[nextIndex()]);
    }

    @Benchmark
    public byte[] encodeFaultBytes() throws IOException {
        return FaultJson.DEVICE_FAULT.encode(faults[nextIndex()]);
    }
}
