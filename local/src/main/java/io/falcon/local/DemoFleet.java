package io.falcon.local;

import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.ReservationConfig;
import java.util.List;
import java.util.Optional;

/** The simulated edge clusters of the local demo, with the clusters rows that register them. */
public final class DemoFleet {
    /** One edge cluster: its registry row and its simulation. */
    public record DemoCluster(String id, String name, String project, String location, String tpuType,
            String gcsBucket, Optional<String> defaultReservation) {

        EdgeClusterConfig simulation() {
            EdgeClusterConfig config = EdgeClusterConfig.of(project, location, name, tpuType);
            return defaultReservation
                    .map(r -> config.withReservation(new ReservationConfig(null, r, "ct6e-standard-4t", 16, 0)))
                    .orElse(config);
        }
    }

    public static final List<DemoCluster> CLUSTERS = List.of(
            new DemoCluster("6a0f3c1e-0000-4000-8000-00000000000a", "tpuv6e-edge-a", "falcon-edge-a",
                    "us-central1", "v6e", "falcon-artifacts-a", Optional.of("falcon-v6e-reservation")),
            new DemoCluster("6a0f3c1e-0000-4000-8000-00000000000b", "tpuv6e-edge-b", "falcon-edge-b",
                    "us-east5", "v6e", "falcon-artifacts-b", Optional.empty()));

    private DemoFleet() {
    }
}
