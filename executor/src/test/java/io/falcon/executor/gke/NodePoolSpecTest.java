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
        NodePool pool = NodePoolSpec.render(Fixtures.ensurePool("job-1", "2x2x4", SupplyMode.RESERVATION, "res-a"));

        assertThat(pool.getName()).isEqualTo("falcon-job-1");
        assertThat(pool.getInitialNodeCount()).isEqualTo(4);
        assertThat(pool.getConfig().getMachineType()).isEqualTo("tpu7x-standard-4t");
        // TPU7x: placed by the workload policy of the topology, never by tpu_topology
        assertThat(pool.getPlacementPolicy().getPolicyName()).isEqualTo("falcon-v7x-ht-2x2x4");
        assertThat(pool.getPlacementPolicy().getTpuTopology()).isEmpty();
        ReservationAffinity affinity = pool.getConfig().getReservationAffinity();
        assertThat(affinity.getConsumeReservationType()).isEqualTo(ReservationAffinity.Type.SPECIFIC_RESERVATION);
        assertThat(affinity.getKey()).isEqualTo("compute.googleapis.com/reservation-name");
        assertThat(affinity.getValuesList()).containsExactly("res-a");
        assertThat(pool.getConfig().getFlexStart()).isFalse();
        assertThat(pool.getConfig().getResourceLabelsMap())
                .containsEntry("managed-by", "falcon")
                .containsEntry("falcon-job", "job-1")
                .containsEntry("falcon-topology", "2x2x4");
        assertThat(pool.getConfig().getLabelsMap())
                .containsEntry("managed-by", "falcon")
                .containsEntry("falcon-job", "job-1")
                .containsEntry("falcon-topology", "2x2x4");
    }

    @Test
    void flexStartSingleHost() {
        NodePool pool = NodePoolSpec.render(Fixtures.ensurePool("job-1", "2x2x1", SupplyMode.FLEX_START, null));

        // from zero, as GKE's flex-start examples: the VMs come for the Job's pending pods
        assertThat(pool.getInitialNodeCount()).isZero();
        assertThat(pool.getAutoscaling().getEnabled()).isTrue();
        assertThat(pool.getAutoscaling().getTotalMinNodeCount()).isZero();
        assertThat(pool.getAutoscaling().getTotalMaxNodeCount()).isEqualTo(1);
        assertThat(pool.hasPlacementPolicy()).isFalse();
        assertThat(pool.getConfig().getFlexStart()).isTrue();
        assertThat(pool.getQueuedProvisioning().getEnabled()).isFalse();
        assertThat(pool.getConfig().getReservationAffinity().getConsumeReservationType())
                .isEqualTo(ReservationAffinity.Type.NO_RESERVATION);
    }

    @Test
    void onDemandIsPlainAndConsumesNoReservation() {
        NodePool pool = NodePoolSpec.render(Fixtures.ensurePool("job-1", "2x2x2", SupplyMode.ON_DEMAND, null));
        assertThat(pool.getInitialNodeCount()).isEqualTo(2);
        assertThat(pool.getConfig().getFlexStart()).isFalse();
        // not GKE's default (ANY): it would eat a matching reservation's slices
        assertThat(pool.getConfig().getReservationAffinity().getConsumeReservationType())
                .isEqualTo(ReservationAffinity.Type.NO_RESERVATION);
        assertThat(pool.getPlacementPolicy().getPolicyName()).isEqualTo("falcon-v7x-ht-2x2x2");
    }

    /** tpu type, topology -> machine type, nodes, placement (tpu_topology or workload policy name), or refused. */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0} {1}")
    @org.junit.jupiter.params.provider.CsvSource({
        "v5e, 2x2, ct5lp-hightpu-4t, 1, , ",
        "v5e, 2x4, ct5lp-hightpu-8t, 1, , ",
        "v5e, 4x4, ct5lp-hightpu-4t, 4, 4x4, ",
        "v6e, 2x2, ct6e-standard-4t, 1, , ",
        "v6e, 2x4, ct6e-standard-8t, 1, , ",
        "v6e, 8x16, ct6e-standard-4t, 32, 8x16, ",
        "v5p, 2x2x1, ct5p-hightpu-4t, 1, , ",
        "v5p, 2x2x2, ct5p-hightpu-4t, 2, 2x2x2, ",
        "v5p, 4x4x4, ct5p-hightpu-4t, 16, 4x4x4, ",
        "v7x, 2x2x1, tpu7x-standard-4t, 1, , ",
        "v7x, 2x2x2, tpu7x-standard-4t, 2, , falcon-v7x-ht-2x2x2",
        "v7x, 4x4x8, tpu7x-standard-4t, 32, , falcon-v7x-ht-4x4x8",
    })
    void machineTypeNodesAndPlacementPerGenerationAndTopology(
            String tpuType, String topology, String machineType, int nodes, String tpuTopology, String policy) {
        NodePool pool = NodePoolSpec.render(executorCommand("j")
                .cluster(Fixtures.cluster())
                .tpuType(tpuType)
                .topology(topology)
                .supplyMode(SupplyMode.ON_DEMAND)
                .ensureNodePool());

        assertThat(pool.getConfig().getMachineType()).isEqualTo(machineType);
        assertThat(pool.getInitialNodeCount()).isEqualTo(nodes);
        assertThat(pool.getAutoscaling().getTotalMaxNodeCount()).isEqualTo(nodes);
        assertThat(pool.getPlacementPolicy().getTpuTopology()).isEqualTo(tpuTopology == null ? "" : tpuTopology);
        assertThat(pool.getPlacementPolicy().getPolicyName()).isEqualTo(policy == null ? "" : policy);
        assertThat(pool.hasPlacementPolicy()).isEqualTo(nodes > 1);
    }

    @Test
    void aShapeTheGenerationDoesNotHaveIsRefusedNamingTheValidOnes() {
        assertThatThrownBy(() -> NodePoolSpec.render(executorCommand("j")
                        .cluster(Fixtures.cluster())
                        .tpuType("v7x")
                        .topology("2x4")
                        .supplyMode(SupplyMode.ON_DEMAND)
                        .ensureNodePool()))
                .isInstanceOf(NodePoolSpec.InvalidNodePoolException.class)
                .hasMessageContaining("'2x4' is not a v7x slice shape");
    }

    @Test
    void reservationModeNeedsAReservation() {
        assertThatThrownBy(
                        () -> NodePoolSpec.render(Fixtures.ensurePool("job-1", "2x2x1", SupplyMode.RESERVATION, null)))
                .hasMessageContaining("reservation");
    }

    @Test
    void scaleDownDelayFollowsTheActualSupplyMode() {
        var scaleDown = new NodePoolSpec.ScaleDown(Duration.ofMinutes(10), Duration.ofMinutes(20), Duration.ofHours(6));
        NodePool reservation =
                NodePoolSpec.render(Fixtures.ensurePool("j", "2x2x2", SupplyMode.RESERVATION, "r"), scaleDown);
        NodePool onDemand =
                NodePoolSpec.render(Fixtures.ensurePool("j", "2x2x2", SupplyMode.ON_DEMAND, null), scaleDown);
        NodePool flex = NodePoolSpec.render(Fixtures.ensurePool("j", "2x2x2", SupplyMode.FLEX_START, null), scaleDown);

        assertThat(reservation.getConfig().getConsolidationDelay().getSeconds()).isEqualTo(600);
        assertThat(onDemand.getConfig().getConsolidationDelay().getSeconds()).isEqualTo(1200);
        assertThat(flex.getConfig().getConsolidationDelay().getSeconds()).isEqualTo(6 * 3600);
        // defaults: the seed's table
        assertThat(NodePoolSpec.render(Fixtures.ensurePool("j", "2x2x2", SupplyMode.FLEX_START, null))
                        .getConfig()
                        .getConsolidationDelay()
                        .getSeconds())
                .isEqualTo(6 * 3600);
        assertThat(NodePoolSpec.render(Fixtures.ensurePool("j", "2x2x2", SupplyMode.RESERVATION, "r"))
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
                .topology("2x2x4")
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
                NodePoolSpec.render(Fixtures.ensurePool("j", "2x2x1", SupplyMode.ON_DEMAND, null)), Fixtures.T0);
        assertThat(pool.getConfig().getResourceLabelsMap())
                .containsEntry("falcon-created-at", Long.toString(Fixtures.T0.getEpochSecond()));
    }
}
