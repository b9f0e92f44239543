package io.falcon.executor.gke;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import io.falcon.events.executor.ExecutorEvent.ObservedPool;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.Fixtures;
import io.falcon.executor.core.NodePoolDriver;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pure parts of the node-pool manager: inventory rows and expected hosts. */
class NodePoolObservationTest {

    @Test
    void inventoryReportsOnlyThisInstallationsPoolsByTheirLabelsNeverByName() {
        NodePool falcon = NodePoolSpec.withCreatedAt(
                        NodePoolSpec.render(Fixtures.ensurePool("job-1", "2x2x2", SupplyMode.ON_DEMAND, null)),
                        Fixtures.T0)
                .toBuilder()
                .setStatus(NodePool.Status.RUNNING)
                .build();
        NodePool noLabels = NodePool.newBuilder()
                .setName("falcon-stray")
                .setStatus(NodePool.Status.ERROR)
                .build();
        NodePool otherFalcon = NodePoolSpec.render(
                        Fixtures.ensurePool("job-1", "2x2x2", SupplyMode.ON_DEMAND, null),
                        NodePoolSpec.ScaleDown.DEFAULT,
                        new io.falcon.executor.core.Ownership("falcon-b"))
                .toBuilder()
                .setName("falcon-job-1-b")
                .build();
        NodePool system = NodePool.newBuilder()
                .setName("default-pool")
                .setStatus(NodePool.Status.RUNNING)
                .build();

        List<ObservedPool> observed = NodePoolDriver.observe(
                List.of(falcon, noLabels, otherFalcon, system).stream()
                        .map(GkeClusterApi::info)
                        .toList(),
                io.falcon.executor.core.Ownership.DEFAULT);

        // a falcon-* name without Falcon's labels, and another installation's pool, are not this Falcon's to sweep
        assertThat(observed)
                .containsExactly(
                        new ObservedPool("falcon-job-1", "RUNNING", "job-1", "2x2x2", Optional.of(Fixtures.T0)));
    }

    @Test
    void expectedHosts() {
        assertThat(GkeClusterApi.expectedHosts(
                        NodePool.newBuilder().setInitialNodeCount(4).build()))
                .isEqualTo(4);
        assertThat(GkeClusterApi.expectedHosts(NodePool.newBuilder()
                        .setPlacementPolicy(
                                NodePool.PlacementPolicy.newBuilder().setTpuTopology("4x4x4"))
                        .build()))
                .isEqualTo(16);
        assertThat(GkeClusterApi.expectedHosts(NodePool.newBuilder()
                        .setConfig(NodeConfig.newBuilder().putResourceLabels("falcon-topology", "2x2x2"))
                        .build()))
                .isEqualTo(2);
        assertThat(GkeClusterApi.expectedHosts(NodePool.getDefaultInstance())).isEqualTo(1);
    }
}
