package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.rpc.InvalidArgumentException;
import com.google.cloud.compute.v1.ResourcePoliciesClient;
import com.google.cloud.compute.v1.ResourcePoliciesSettings;
import com.google.cloud.compute.v1.ResourcePolicy;
import com.google.cloud.compute.v1.ResourcePolicyWorkloadPolicy;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodePoolAutoscaling;
import com.google.container.v1.ReservationAffinity;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * fleet-sim refuses the node pools GKE refuses, per TPU generation, and brings up the nodes GKE would (issue 19):
 * through the real google-cloud-container and google-cloud-compute clients. Each case names the rule it checks
 * (the rules cite their pages in NodePoolRules).
 */
class NodePoolRulesTest {
    private static final String PROJECT = "falcon-rules";
    private static final String LOCATION = "us-central1";
    private static final String CLUSTER = "edge-rules";
    private static final String CLUSTER_PATH =
            "projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + CLUSTER;

    private static FleetSim sim;
    private static ClusterManagerClient gke;
    private static ResourcePoliciesClient policies;

    @BeforeAll
    static void start() throws Exception {
        sim = FleetSim.start(FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu7x"))
                .withPoolDelays(Duration.ofMillis(100), Duration.ofMillis(50)));
        gke = GkeClients.clusterManager(sim);
        policies = ResourcePoliciesClient.create(ResourcePoliciesSettings.newBuilder()
                .setEndpoint(sim.computeEndpoint())
                .setCredentialsProvider(NoCredentialsProvider.create())
                .build());
    }

    @AfterAll
    static void stop() {
        if (policies != null) {
            policies.close();
        }
        if (gke != null) {
            gke.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    private static NodePool.Builder pool(String name, String machineType) {
        return NodePool.newBuilder()
                .setName(name)
                .setConfig(NodeConfig.newBuilder().setMachineType(machineType));
    }

    private static void refused(NodePool pool, String field, String why) {
        assertThatThrownBy(() -> gke.createNodePool(CLUSTER_PATH, pool))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("Invalid value for field '" + field + "'")
                .hasMessageContaining(why);
    }

    private static List<Node> nodes(String pool, int count) {
        KubernetesClient k8s = sim.kubernetesClient(PROJECT, LOCATION, CLUSTER);
        return Await.valueMatching(
                count + " nodes of " + pool,
                Duration.ofSeconds(10),
                () -> k8s.nodes()
                        .withLabel("cloud.google.com/gke-nodepool", pool)
                        .list()
                        .getItems(),
                l -> l.size() == count);
    }

    private static void createPolicy(String name, String topology) throws Exception {
        policies.insertAsync(
                        PROJECT,
                        "us-central1",
                        ResourcePolicy.newBuilder()
                                .setName(name)
                                .setWorkloadPolicy(ResourcePolicyWorkloadPolicy.newBuilder()
                                        .setType("HIGH_THROUGHPUT")
                                        .setAcceleratorTopology(topology))
                                .build())
                .get();
    }

    @Test
    void anEightChipMachineTypeIsSingleHostOnly() {
        refused(
                pool("v6e-8t-multi", "ct6e-standard-8t")
                        .setInitialNodeCount(2)
                        .setPlacementPolicy(
                                NodePool.PlacementPolicy.newBuilder().setTpuTopology("4x4"))
                        .build(),
                "nodePool.placementPolicy.tpuTopology",
                "single-host slices only");
    }

    @Test
    void aSingleHostEightChipPoolBringsOneNodeWithEightChipsAndTheShapeAsTopology() {
        GkeClients.awaitDone(
                gke,
                PROJECT,
                LOCATION,
                gke.createNodePool(
                        CLUSTER_PATH,
                        pool("v6e-8t", "ct6e-standard-8t")
                                .setInitialNodeCount(1)
                                .build()));

        Node node = nodes("v6e-8t", 1).get(0);
        assertThat(node.getMetadata().getLabels())
                .containsEntry("cloud.google.com/gke-tpu-accelerator", "tpu-v6e-slice")
                .containsEntry("cloud.google.com/gke-tpu-topology", "2x4");
        assertThat(node.getStatus().getCapacity().get("google.com/tpu").getAmount())
                .isEqualTo("8");
    }

    @Test
    void tpu7xIsPlacedByAWorkloadPolicyNotByTpuTopology() {
        refused(
                pool("v7x-topology", "tpu7x-standard-4t")
                        .setInitialNodeCount(2)
                        .setPlacementPolicy(NodePool.PlacementPolicy.newBuilder()
                                .setType(NodePool.PlacementPolicy.Type.COMPACT)
                                .setTpuTopology("2x2x2"))
                        .build(),
                "nodePool.placementPolicy.tpuTopology",
                "placed by a workload policy");
    }

    @Test
    void aWorkloadPolicyThatDoesNotExistIsRefused() {
        refused(
                pool("v7x-no-policy", "tpu7x-standard-4t")
                        .setInitialNodeCount(2)
                        .setPlacementPolicy(
                                NodePool.PlacementPolicy.newBuilder().setPolicyName("nowhere-2x2x2"))
                        .build(),
                "nodePool.placementPolicy.policyName",
                "was not found");
    }

    @Test
    void aTpu7xPoolOnItsWorkloadPolicyComesUpWithOneNodePerVmOfThePolicysTopology() throws Exception {
        createPolicy("rules-ht-2x2x2", "2x2x2");
        refused(
                pool("v7x-wrong-count", "tpu7x-standard-4t")
                        .setInitialNodeCount(4)
                        .setPlacementPolicy(
                                NodePool.PlacementPolicy.newBuilder().setPolicyName("rules-ht-2x2x2"))
                        .build(),
                "nodePool.initialNodeCount",
                "has 2 nodes, got 4");

        GkeClients.awaitDone(
                gke,
                PROJECT,
                LOCATION,
                gke.createNodePool(
                        CLUSTER_PATH,
                        pool("v7x-ok", "tpu7x-standard-4t")
                                .setInitialNodeCount(2)
                                .setPlacementPolicy(
                                        NodePool.PlacementPolicy.newBuilder().setPolicyName("rules-ht-2x2x2"))
                                .build()));

        List<Node> nodes = nodes("v7x-ok", 2);
        assertThat(nodes)
                .allSatisfy(n -> assertThat(n.getMetadata().getLabels())
                        .containsEntry("cloud.google.com/gke-tpu-accelerator", "tpu7x")
                        .containsEntry("cloud.google.com/gke-tpu-topology", "2x2x2"));
        assertThat(nodes.get(0).getStatus().getCapacity().get("google.com/tpu").getAmount())
                .isEqualTo("4");
    }

    @Test
    void aSecondWorkloadPolicyOfTheSameNameIsAlreadyExistsAndABadTypeIsRefused() throws Exception {
        createPolicy("rules-ht-4x4x4", "4x4x4");
        assertThatThrownBy(() -> createPolicy("rules-ht-4x4x4", "4x4x4"))
                .isInstanceOf(ExecutionException.class)
                .hasStackTraceContaining("409")
                .hasStackTraceContaining("already exists");
        assertThatThrownBy(() -> policies.insertAsync(
                                PROJECT,
                                "us-central1",
                                ResourcePolicy.newBuilder()
                                        .setName("rules-bad-type")
                                        .setWorkloadPolicy(ResourcePolicyWorkloadPolicy.newBuilder()
                                                .setType("FASTEST"))
                                        .build())
                        .get())
                .isInstanceOf(ExecutionException.class)
                .hasStackTraceContaining("'resource.workloadPolicy.type'");
        assertThat(policies.get(PROJECT, "us-central1", "rules-ht-4x4x4")
                        .getWorkloadPolicy()
                        .getAcceleratorTopology())
                .isEqualTo("4x4x4");
    }

    @Test
    void aShapeOfTheWrongDimensionOrNotWholeVmsIsRefused() {
        refused(
                pool("v5e-3d", "ct5lp-hightpu-4t")
                        .setInitialNodeCount(2)
                        .setPlacementPolicy(
                                NodePool.PlacementPolicy.newBuilder().setTpuTopology("2x2x2"))
                        .build(),
                "nodePool.placementPolicy.tpuTopology",
                "is not a 2-D topology");
    }

    @Test
    void flexStartCannotConsumeASpecificReservationAndUnknownTpuMachineTypesAreRefused() {
        NodePool.Builder flex = pool("flex-res", "ct6e-standard-4t").setInitialNodeCount(1);
        flex.getConfigBuilder()
                .setFlexStart(true)
                .setReservationAffinity(ReservationAffinity.newBuilder()
                        .setConsumeReservationType(ReservationAffinity.Type.SPECIFIC_RESERVATION)
                        .setKey("compute.googleapis.com/reservation-name")
                        .addValues("res-a"));
        refused(flex.build(), "nodePool.config.flexStart", "cannot consume a specific reservation");
        refused(
                pool("v9", "ct9z-hightpu-4t").setInitialNodeCount(1).build(),
                "nodePool.config.machineType",
                "not a supported TPU machine type");
    }

    @Test
    void aMultiHostPoolMayStartFromZeroOnlyWithAutoscalingThatReachesTheSlice() {
        NodePool.PlacementPolicy v5e2x4 =
                NodePool.PlacementPolicy.newBuilder().setTpuTopology("2x4").build();
        NodePoolAutoscaling upToTheSlice = NodePoolAutoscaling.newBuilder()
                .setEnabled(true)
                .setTotalMinNodeCount(0)
                .setTotalMaxNodeCount(2)
                .build();
        refused(
                pool("v5e-zero-fixed", "ct5lp-hightpu-4t")
                        .setInitialNodeCount(0)
                        .setPlacementPolicy(v5e2x4)
                        .build(),
                "nodePool.initialNodeCount",
                "has 2 nodes, got 0; 0 needs autoscaling enabled");
        refused(
                pool("v5e-zero-small-max", "ct5lp-hightpu-4t")
                        .setInitialNodeCount(0)
                        .setAutoscaling(upToTheSlice.toBuilder().setTotalMaxNodeCount(1))
                        .setPlacementPolicy(v5e2x4)
                        .build(),
                "nodePool.autoscaling.totalMaxNodeCount",
                "scales atomically to 2 nodes, got a maximum of 1");
        refused(
                pool("v5e-three", "ct5lp-hightpu-4t")
                        .setInitialNodeCount(3)
                        .setAutoscaling(upToTheSlice)
                        .setPlacementPolicy(v5e2x4)
                        .build(),
                "nodePool.initialNodeCount",
                "has 2 nodes, got 3");

        GkeClients.awaitDone(
                gke,
                PROJECT,
                LOCATION,
                gke.createNodePool(
                        CLUSTER_PATH,
                        pool("v5e-from-zero", "ct5lp-hightpu-4t")
                                .setInitialNodeCount(0)
                                .setAutoscaling(upToTheSlice)
                                .setPlacementPolicy(v5e2x4)
                                .build()));
        assertThat(gke.getNodePool(CLUSTER_PATH + "/nodePools/v5e-from-zero").getStatus())
                .isEqualTo(NodePool.Status.RUNNING);
    }
}
