package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.ReservationAffinity;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node pool's reservation affinity decides which reservation its VMs consume, as on GKE: one that sets none gets
 * Compute's default, ANY, and consumes a matching reservation (same machine type and zone) unless the reservation
 * requires specific consumption; NO_RESERVATION consumes none.
 */
class ReservationAffinityTest {
    private static final String PROJECT = "falcon-test";
    private static final String LOCATION = "us-central1";
    private static final String CLUSTER = "edge-affinity";
    private static final String PARENT = "projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + CLUSTER;

    private static FleetSim sim;
    private static ClusterManagerClient gke;

    @BeforeAll
    static void start() {
        sim = FleetSim.start(FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu-v6e-slice"))
                .withPoolDelays(Duration.ofMillis(50), Duration.ofMillis(50)));
        gke = GkeClients.clusterManager(sim);
    }

    @AfterAll
    static void stop() {
        gke.close();
        sim.close();
    }

    private static void create(String name, ReservationAffinity affinity) {
        NodeConfig.Builder config = NodeConfig.newBuilder().setMachineType("ct6e-standard-4t");
        if (affinity != null) {
            config.setReservationAffinity(affinity);
        }
        NodePool pool = NodePool.newBuilder()
                .setName(name)
                .setConfig(config)
                .setInitialNodeCount(1)
                .build();
        GkeClients.awaitDone(gke, PROJECT, LOCATION, gke.createNodePool(PARENT, pool));
    }

    private static long inUse(String reservation) {
        return sim.reservations()
                .get(PROJECT, "us-central1-a", reservation)
                .orElseThrow()
                .inUseCount();
    }

    @Test
    void aPoolWithoutAnAffinityConsumesAMatchingReservationThatDoesNotRequireSpecificConsumption() {
        sim.reservations().define(PROJECT, "us-central1-a", "open", "ct6e-standard-4t", 2, 0, false);
        sim.reservations().define(PROJECT, "us-central1-a", "closed", "ct6e-standard-4t", 2, 0, true);
        try {
            create("default-affinity", null);
            assertThat(inUse("open")).as("GKE's default affinity is ANY").isEqualTo(1);
            assertThat(inUse("closed")).isZero();

            create(
                    "none",
                    ReservationAffinity.newBuilder()
                            .setConsumeReservationType(ReservationAffinity.Type.NO_RESERVATION)
                            .build());
            assertThat(inUse("open")).isEqualTo(1);

            gke.deleteNodePool(PARENT + "/nodePools/default-affinity");
            io.falcon.testkit.Await.until(
                    "the reservation given back", Duration.ofSeconds(10), () -> inUse("open") == 0, () -> "in use");
        } finally {
            sim.reservations().define(PROJECT, "us-central1-a", "open", "ct6e-standard-4t", 0, 0, true);
        }
    }
}
