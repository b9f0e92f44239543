package io.falcon.fleetsim;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What {@link FleetSim#start} starts.
 *
 * @param gkePort port of the GKE gRPC server, 0 = any free port
 * @param computePort port of the Compute REST server, 0 = any free port
 * @param poolCreationDelay initial per-cluster {@code NodePoolKnobs.creationDelay}
 * @param poolDeletionDelay initial per-cluster {@code NodePoolKnobs.deletionDelay}
 * @param simulatorTick how often the Job simulators advance pods (bounds the latency of every pod transition)
 * @param clock time source for timestamps and pod run times
 * @param recordFile where the {@link FleetRecord} of served creates and deletes is appended (empty: memory only)
 */
public record FleetSimConfig(
        List<EdgeClusterConfig> clusters,
        int gkePort,
        int computePort,
        Duration poolCreationDelay,
        Duration poolDeletionDelay,
        Duration simulatorTick,
        Clock clock,
        Optional<Path> recordFile) {

    public FleetSimConfig {
        clusters = List.copyOf(clusters);
    }

    public FleetSimConfig(
            List<EdgeClusterConfig> clusters,
            int gkePort,
            int computePort,
            Duration poolCreationDelay,
            Duration poolDeletionDelay,
            Duration simulatorTick,
            Clock clock) {
        this(
                clusters,
                gkePort,
                computePort,
                poolCreationDelay,
                poolDeletionDelay,
                simulatorTick,
                clock,
                Optional.empty());
    }

    public FleetSimConfig withRecordFile(Path file) {
        return new FleetSimConfig(
                clusters,
                gkePort,
                computePort,
                poolCreationDelay,
                poolDeletionDelay,
                simulatorTick,
                clock,
                Optional.of(file));
    }

    /** Fast defaults suited to tests: any ports, 200 ms pool transitions, 50 ms simulator tick. */
    public static FleetSimConfig of(EdgeClusterConfig... clusters) {
        return new FleetSimConfig(
                List.of(clusters),
                0,
                0,
                Duration.ofMillis(200),
                Duration.ofMillis(200),
                Duration.ofMillis(50),
                Clock.systemUTC());
    }

    public FleetSimConfig withPorts(int gke, int compute) {
        return new FleetSimConfig(
                clusters, gke, compute, poolCreationDelay, poolDeletionDelay, simulatorTick, clock, recordFile);
    }

    public FleetSimConfig withPoolDelays(Duration creation, Duration deletion) {
        return new FleetSimConfig(clusters, gkePort, computePort, creation, deletion, simulatorTick, clock, recordFile);
    }

    public FleetSimConfig withSimulatorTick(Duration tick) {
        return new FleetSimConfig(
                clusters, gkePort, computePort, poolCreationDelay, poolDeletionDelay, tick, clock, recordFile);
    }

    public FleetSimConfig withClock(Clock newClock) {
        return new FleetSimConfig(
                clusters,
                gkePort,
                computePort,
                poolCreationDelay,
                poolDeletionDelay,
                simulatorTick,
                newClock,
                recordFile);
    }
}
