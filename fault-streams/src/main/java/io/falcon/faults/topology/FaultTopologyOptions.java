package io.falcon.faults.topology;

import java.time.Duration;

/**
 * Timing and switches of the topology. jobWindow is the RFC's sliding window (30 s); grace is how long past the
 * window a decision waits for late faults; allowedLateness how far behind the job window's event time a fault of a
 * job may arrive and still enter the window (later ones are counted directly, verdict LATE_COUNTED_DIRECTLY);
 * decideInterval how often the window punctuator runs; releaseCheckInterval how often auto-release and budget
 * candidates are checked; stateSweepInterval how often counters and candidates past the largest fault window are
 * deleted (docs/fault-streams.md, "Bounded state"); countJoblessFaults whether faults without a job id are counted (the RFC counts them;
 * newer clusterd versions skip them); inMemoryStores keeps the (still changelogged, so still restart-safe) stores
 * in memory instead of RocksDB: replay and tests, where a RocksDB flush per TopologyTestDriver commit would
 * dominate.
 */
public record FaultTopologyOptions(
        Duration jobWindow,
        Duration grace,
        Duration allowedLateness,
        Duration decideInterval,
        Duration releaseCheckInterval,
        Duration stateSweepInterval,
        boolean countJoblessFaults,
        boolean inMemoryStores) {

    public static final Duration DEFAULT_ALLOWED_LATENESS = Duration.ofMinutes(5);
    public static final Duration DEFAULT_STATE_SWEEP_INTERVAL = Duration.ofHours(1);

    public FaultTopologyOptions(
            Duration jobWindow,
            Duration grace,
            Duration decideInterval,
            Duration releaseCheckInterval,
            boolean countJoblessFaults,
            boolean inMemoryStores) {
        this(
                jobWindow,
                grace,
                DEFAULT_ALLOWED_LATENESS,
                decideInterval,
                releaseCheckInterval,
                DEFAULT_STATE_SWEEP_INTERVAL,
                countJoblessFaults,
                inMemoryStores);
    }

    public FaultTopologyOptions(
            Duration jobWindow,
            Duration grace,
            Duration decideInterval,
            Duration releaseCheckInterval,
            boolean countJoblessFaults) {
        this(jobWindow, grace, decideInterval, releaseCheckInterval, countJoblessFaults, false);
    }

    public static FaultTopologyOptions defaults() {
        return new FaultTopologyOptions(
                Duration.ofSeconds(30),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                Duration.ofMinutes(1),
                true,
                false);
    }

    public FaultTopologyOptions withCountJoblessFaults(boolean count) {
        return new FaultTopologyOptions(
                jobWindow,
                grace,
                allowedLateness,
                decideInterval,
                releaseCheckInterval,
                stateSweepInterval,
                count,
                inMemoryStores);
    }

    public FaultTopologyOptions withInMemoryStores(boolean inMemory) {
        return new FaultTopologyOptions(
                jobWindow,
                grace,
                allowedLateness,
                decideInterval,
                releaseCheckInterval,
                stateSweepInterval,
                countJoblessFaults,
                inMemory);
    }

    public FaultTopologyOptions withAllowedLateness(Duration lateness) {
        return new FaultTopologyOptions(
                jobWindow,
                grace,
                lateness,
                decideInterval,
                releaseCheckInterval,
                stateSweepInterval,
                countJoblessFaults,
                inMemoryStores);
    }

    public FaultTopologyOptions withStateSweepInterval(Duration interval) {
        return new FaultTopologyOptions(
                jobWindow,
                grace,
                allowedLateness,
                decideInterval,
                releaseCheckInterval,
                interval,
                countJoblessFaults,
                inMemoryStores);
    }
}
