package io.falcon.executor.gke;

import static io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.container.v1.NodePool;
import com.google.container.v1.NodePoolAutoscaling;
import com.google.container.v1.ReservationAffinity;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.Fixtures;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class NodePoolSpecTest {

    @Test
    void reservationMultiHost() {
        NodePool pool = NodePoolSpec.render(Fixtures.ensurePool("job-1", "4x4", SupplyMode.RESERVATION, "res-a"));

        assertThat(pool.getName()).isEqualTo("falcon-job-1");
        assertThat(pool.getInitialNodeCount()).isEqualTo(4);
        assertThat(pool.getConfig().getMachineType()).isEqualTo("tpu7x-standard-4t");
        assertThat(pool.getPlacementPolicy().getType()).isEqualTo(NodePool.PlacementPolicy.Type.COMPACT);
        assertThat(pool.getPlacementPolicy().getTpuTopology()).isEqualTo("4x4");
        ReservationAffinity affinity = pool.getConfig().getReservationAffinity();
        assertThat(affinity.getConsumeReservationType()).isEqualTo(ReservationAffinity.Type.SPECIFIC_RESERVATION);
        assertThat(affinity.getKey()).isEqualTo("compute.googleapis.com/reservation-name");
        assertThat(affinity.getValuesList()).containsExactly("res-a");
        assertThat(pool.getConfig().getFlexStart()).isFalse();
        assertThat(pool.getConfig().getResourceLabelsMap())
                .containsEntry("managed-by", "falcon")
                .containsEntry("falcon-job", "job-1")
                .containsEntry("falcon-topology", "4x4");
        assertThat(pool.getConfig().getLabelsMap())
                .containsEntry("managed-by", "falcon")
                .containsEntry("falcon-job", "job-1")
                .containsEntry("falcon-topology", "4x4");
    }

    @Test
    void flexStartSingleHost() {
        NodePool pool = NodePoolSpec.render(Fixtures.ensurePool("job-1", "2x2", SupplyMode.FLEX_START, null));

        assertThat(pool.getInitialNodeCount()).isEqualTo(1);
        assertThat(pool.hasPlacementPolicy()).isFalse();
        assertThat(pool.getConfig().getFlexStart()).isTrue();
        assertThat(pool.getQueuedProvisioning().getEnabled()).isFalse();
        assertThat(pool.getConfig().getReservationAffinity().getConsumeReservationType())
                .isEqualTo(ReservationAffinity.Type.NO_RESERVATION);
    }

    @Test
    void onDemandIsPlain() {
        NodePool pool = NodePoolSpec.render(Fixtures.ensurePool("job-1", "2x4", SupplyMode.ON_DEMAND, null));
        assertThat(pool.getInitialNodeCount()).isEqualTo(2);
        assertThat(pool.getConfig().getFlexStart()).isFalse();
        assertThat(pool.getConfig().hasReservationAffinity()).isFalse();
        assertThat(pool.getPlacementPolicy().getTpuTopology()).isEqualTo("2x4");
    }

    @Test
    void machineTypePerTpuType() {
        for (String[] row : new String[][] {
            {"v5e", "ct5lp-hightpu-4t"},
            {"v5p", "ct5p-hightpu-4t"},
            {"v6e", "ct6e-standard-4t"},
            {"v7x", "tpu7x-standard-4t"}
        }) {
            var cmd = executorCommand("j")
                    .cluster(Fixtures.cluster())
                    .tpuType(row[0])
                    .topology("2x2")
                    .ensureNodePool();
            assertThat(NodePoolSpec.render(cmd).getConfig().getMachineType()).isEqualTo(row[1]);
        }
    }

    @Test
    void reservationModeNeedsAReservation() {
        assertThatThrownBy(() -> NodePoolSpec.render(Fixtures.ensurePool("job-1", "2x2", SupplyMode.RESERVATION, null)))
                .hasMessageContaining("reservation");
    }

    @Test
    void scaleDownDelayFollowsTheActualSupplyMode() {
        var scaleDown = new NodePoolSpec.ScaleDown(Duration.ofMinutes(10), Duration.ofMinutes(20), Duration.ofHours(6));
        NodePool reservation =
                NodePoolSpec.render(Fixtures.ensurePool("j", "2x4", SupplyMode.RESERVATION, "r"), scaleDown);
        NodePool onDemand = NodePoolSpec.render(Fixtures.ensurePool("j", "2x4", SupplyMode.ON_DEMAND, null), scaleDown);
        NodePool flex = NodePoolSpec.render(Fixtures.ensurePool("j", "2x4", SupplyMode.FLEX_START, null), scaleDown);

        assertThat(reservation.getConfig().getConsolidationDelay().getSeconds()).isEqualTo(600);
        assertThat(onDemand.getConfig().getConsolidationDelay().getSeconds()).isEqualTo(1200);
        assertThat(flex.getConfig().getConsolidationDelay().getSeconds()).isEqualTo(6 * 3600);
        // defaults: the seed's table
        assertThat(NodePoolSpec.render(Fixtures.ensurePool("j", "2x4", SupplyMode.FLEX_START, null))
                        .getConfig()
                        .getConsolidationDelay()
                        .getSeconds())
                .isEqualTo(6 * 3600);
        assertThat(NodePoolSpec.render(Fixtures.ensurePool("j", "2x4", SupplyMode.RESERVATION, "r"))
                        .getConfig()
                        .getConsolidationDelay()
                        .getSeconds())
                .isEqualTo(600);
    }

    @Test
    void autoscalingKeepsTheSliceWholeAndTheJobIdTravelsInMetadata() {
        NodePool pool = NodePoolSpec.render(executorCommand("Job_1")
                .cluster(Fixtures.cluster())
                .nodePoolName("falcon-job-1-3f2a")
                .topology("4x4")
                .supplyMode(SupplyMode.FLEX_START)
                .ensureNodePool());

        NodePoolAutoscaling autoscaling = pool.getAutoscaling();
        assertThat(autoscaling.getEnabled()).isTrue();
        assertThat(autoscaling.getTotalMinNodeCount()).isZero();
        assertThat(autoscaling.getTotalMaxNodeCount()).isEqualTo(4);
        assertThat(autoscaling.getLocationPolicy()).isEqualTo(NodePoolAutoscaling.LocationPolicy.ANY);
        assertThat(pool.getConfig().getMetadataMap()).containsEntry("falcon-job-id", "Job_1");
        assertThat(pool.getConfig().getResourceLabelsMap()).containsEntry("falcon-job", "job_1");
    }

    @Test
    void creationTimeLabel() {
        NodePool pool = NodePoolSpec.withCreatedAt(
                NodePoolSpec.render(Fixtures.ensurePool("j", "2x2", SupplyMode.ON_DEMAND, null)), Fixtures.T0);
        assertThat(pool.getConfig().getResourceLabelsMap())
                .containsEntry("falcon-created-at", Long.toString(Fixtures.T0.getEpochSecond()));
    }
}
