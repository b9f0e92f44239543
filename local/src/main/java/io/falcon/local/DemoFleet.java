package io.falcon.local;

import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.ReservationConfig;
import java.util.List;
import java.util.Optional;

/** The simulated edge clusters of the local demo, with the clusters rows that register them. */
public final class DemoFleet {
    /** One edge cluster: its registry row and its simulation. */
    public record DemoCluster(
            String id,
            String name,
            String project,
            String location,
            String tpuType,
            String gcsBucket,
            Optional<String> defaultReservation) {

        public EdgeClusterConfig simulation() {
            EdgeClusterConfig config = EdgeClusterConfig.of(project, location, name, tpuType);
            return defaultReservation
                    .map(r -> config.withReservation(new ReservationConfig(null, r, "ct6e-standard-4t", 16, 0)))
                    .orElse(config);
        }
    }

    public static final List<DemoCluster> CLUSTERS = List.of(
            new DemoCluster(
                    "6a0f3c1e-0000-4000-8000-00000000000a",
                    "tpuv6e-edge-a",
                    "falcon-edge-a",
                    "us-central1",
                    "v6e",
                    "falcon-artifacts-a",
                    Optional.of("falcon-v6e-reservation")),
            new DemoCluster(
                    "6a0f3c1e-0000-4000-8000-00000000000b",
                    "tpuv6e-edge-b",
                    "falcon-edge-b",
                    "us-east5",
                    "v6e",
                    "falcon-artifacts-b",
                    Optional.empty()));

    private DemoFleet() {}

    /** Registers the clusters as upper components do: rows in the clusters table, active; a known id is kept. */
    public static void register(java.sql.Connection connection, List<DemoCluster> clusters)
            throws java.sql.SQLException {
        try (java.sql.PreparedStatement insert = connection.prepareStatement(
                "INSERT IGNORE INTO clusters (id, name, project, location, tpu_type, gcs_bucket, default_reservation,"
                        + " status) VALUES (?, ?, ?, ?, ?, ?, ?, 'active')")) {
            for (DemoCluster cluster : clusters) {
                insert.setString(1, cluster.id());
                insert.setString(2, cluster.name());
                insert.setString(3, cluster.project());
                insert.setString(4, cluster.location());
                insert.setString(5, cluster.tpuType());
                insert.setString(6, cluster.gcsBucket());
                insert.setString(7, cluster.defaultReservation().orElse(null));
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }
}
