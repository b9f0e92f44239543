package io.falcon.faults.bench;

import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.faults.replay.Replay;
import io.falcon.faults.topology.FaultTopologyOptions;
import java.time.Instant;
import java.util.Optional;
import java.util.Random;

/**
 * Pushes N faults through the real topology (TopologyTestDriver) and prints faults/s. Mixed load: 1000 jobs over
 * 4000 nodes x 8 devices, a quarter of the faults outside jobs, 20 codes, 100 faults/s of event time. Args: N
 * (default 200000), "rocksdb" to use the production RocksDB stores (TopologyTestDriver flushes them per record).
 */
public final class FaultThroughputHarness {
    private FaultThroughputHarness() {}

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        boolean rocks = args.length > 1 && args[1].equals("rocksdb");
        Instant start = Instant.parse("2026-12-02T10:00:00Z");
        IsolationPolicy policy = new IsolationPolicy(Meta.of("bench", start), 1, true, 24, 3, -1, false, 0);
        Random random = new Random(42);
        DeviceFault[] faults = new DeviceFault[n];
        for (int i = 0; i < n; i++) {
            int node = random.nextInt(4000);
            Optional<String> job = random.nextInt(4) == 0 ? Optional.empty() : Optional.of("job-" + node / 4);
            faults[i] = DeviceFault.of(
                    "c" + node % 4,
                    "node-" + node,
                    "Ascend910-" + random.nextInt(8),
                    "CODE" + random.nextInt(20),
                    job,
                    start.toEpochMilli() + i * 10L);
        }
        FaultTopologyOptions options = FaultTopologyOptions.defaults().withInMemoryStores(!rocks);
        try (Replay replay = new Replay(options, policy, start, line -> {})) {
            long t0 = System.nanoTime();
            for (DeviceFault fault : faults) {
                replay.feedQuietly(fault);
            }
            replay.finish();
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(
                    "%d faults in %.2f s: %.0f faults/s (TopologyTestDriver, %s stores, one thread); "
                            + "%d verdicts, %d isolation changes%n",
                    n,
                    seconds,
                    n / seconds,
                    rocks ? "RocksDB" : "in-memory",
                    replay.verdictCount(),
                    replay.isolationCount());
        }
    }
}
