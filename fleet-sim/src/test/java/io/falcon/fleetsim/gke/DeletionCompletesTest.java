package io.falcon.fleetsim.gke;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import io.falcon.fleetsim.FleetRecord;
import io.falcon.fleetsim.compute.ReservationStore;
import io.falcon.testkit.Await;
import io.grpc.StatusRuntimeException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A deletion GKE accepted completes even when the simulated Kubernetes API fails to answer while it removes the
 * pool's nodes (the chaos run: the mock server's event loop stalled 20 s when a killed executor's watches dropped,
 * and the pool stayed STOPPING for ever, which no executor could do anything about).
 */
class DeletionCompletesTest {
    @Test
    void aDeletionWhoseNodeRemovalFailsIsTriedAgainUntilThePoolIsGone() {
        AtomicInteger removals = new AtomicInteger();
        NodeRegistrar flaky = new NodeRegistrar() {
            @Override
            public void addNodes(PoolNodes nodes) {}

            @Override
            public void removeNodes(String cluster, String pool) {
                if (removals.incrementAndGet() <= 2) {
                    throw new IllegalStateException("Operation: [list] for kind: [Node] failed (timed out)");
                }
            }
        };
        ClusterRef ref = new ClusterRef("proj", "us-central1", "edge");
        GkeFleet fleet =
                new GkeFleet(Clock.systemUTC(), new ReservationStore(Clock.systemUTC()), FleetRecord.inMemory());
        fleet.addCluster(
                ref,
                "tpu7x",
                "https://127.0.0.1:1",
                "",
                new NodePoolKnobs(Duration.ofMillis(50), Duration.ofMillis(50)),
                flaky);
        fleet.createNodePool(
                ref,
                NodePool.newBuilder()
                        .setName("p1")
                        .setInitialNodeCount(1)
                        .setConfig(NodeConfig.newBuilder().setMachineType("e2-standard-4"))
                        .build());
        Await.until(
                "p1 RUNNING",
                Duration.ofSeconds(10),
                () -> fleet.getNodePool(ref, "p1").getStatus() == NodePool.Status.RUNNING,
                () -> fleet.getNodePool(ref, "p1").getStatus().name());

        fleet.deleteNodePool(ref, "p1");
        Await.until(
                "p1 gone",
                Duration.ofSeconds(10),
                () -> gone(fleet, ref),
                () -> "still " + fleet.getNodePool(ref, "p1").getStatus());
        assertThat(removals.get()).isEqualTo(3);
    }

    private static boolean gone(GkeFleet fleet, ClusterRef ref) {
        try {
            fleet.getNodePool(ref, "p1");
            return false;
        } catch (StatusRuntimeException e) {
            return true;
        }
    }
}
