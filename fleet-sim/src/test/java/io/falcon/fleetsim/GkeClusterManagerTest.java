package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.rpc.AlreadyExistsException;
import com.google.api.gax.rpc.NotFoundException;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.Cluster;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Drives the GKE sim through the real google-cloud-container client over gRPC. */
class GkeClusterManagerTest {

    private static final String PROJECT = "falcon-test";
    private static final String LOCATION = "us-central1";
    private static final String CLUSTER = "edge-1";
    private static final String CLUSTER_PATH =
            "projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + CLUSTER;
    private static final Duration WAIT = Duration.ofSeconds(5);

    private static FleetSim sim;
    private static ClusterManagerClient gke;

    @BeforeAll
    static void start() {
        sim = FleetSim.start(FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu-v5-lite-podslice"))
                .withPoolDelays(Duration.ofMillis(150), Duration.ofMillis(100)));
        gke = GkeClients.clusterManager(sim);
    }

    @AfterAll
    static void stop() {
        if (gke != null) {
            gke.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    private static NodePool tpuPool(String name, String topology, String labelValue) {
        return NodePool.newBuilder()
                .setName(name)
                .setConfig(NodeConfig.newBuilder()
                        .setMachineType("ct5lp-hightpu-4t")
                        .putResourceLabels("falcon-job", labelValue)
                        .putLabels("falcon.io/job", labelValue))
                .setPlacementPolicy(NodePool.PlacementPolicy.newBuilder().setTpuTopology(topology))
                // one node per 4-chip VM of the slice, as GKE wants of a pool created at full size
                .setInitialNodeCount(Math.max(
                        1,
                        java.util.Arrays.stream(topology.split("x"))
                                        .mapToInt(Integer::parseInt)
                                        .reduce(1, (a, b) -> a * b)
                                / 4))
                .build();
    }

    private static Operation awaitDone(Operation op) {
        return GkeClients.awaitDone(gke, PROJECT, LOCATION, op);
    }

    private static String poolPath(String pool) {
        return CLUSTER_PATH + "/nodePools/" + pool;
    }

    @Test
    void getClusterReturnsKubernetesUrlAndCaCertificate() throws Exception {
        Cluster cluster = gke.getCluster(CLUSTER_PATH);

        assertThat(cluster.getEndpoint())
                .isEqualTo(sim.kubernetesUrl(PROJECT, LOCATION, CLUSTER))
                .startsWith("http://127.0.0.1:");
        byte[] pem = Base64.getDecoder().decode(cluster.getMasterAuth().getClusterCaCertificate());
        // A real X.509 certificate, so clients that build a trust store from it (fabric8) accept it.
        java.security.cert.X509Certificate ca =
                (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
                        .generateCertificate(new java.io.ByteArrayInputStream(pem));
        assertThat(ca.getSubjectX500Principal().getName()).contains("fleet-sim");
        ca.checkValidity();
        assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0); // a CA
        io.fabric8.kubernetes.client.internal.CertUtils.createTrustStore(
                cluster.getMasterAuth().getClusterCaCertificate(), null, null, null);
        assertThat(cluster.getStatus()).isEqualTo(Cluster.Status.RUNNING);
    }

    @Test
    void createdPoolBecomesRunningWithNodesInKubernetes() {
        Operation op = gke.createNodePool(CLUSTER_PATH, tpuPool("pool-run", "2x4", "job-run"));

        assertThat(op.getStatus()).isEqualTo(Operation.Status.RUNNING);
        assertThat(op.getOperationType()).isEqualTo(Operation.Type.CREATE_NODE_POOL);
        assertThat(op.getTargetLink()).endsWith(poolPath("pool-run"));
        assertThat(gke.getNodePool(poolPath("pool-run")).getStatus()).isEqualTo(NodePool.Status.PROVISIONING);

        Operation done = awaitDone(op);
        assertThat(done.hasError()).isFalse();
        NodePool pool = gke.getNodePool(poolPath("pool-run"));
        assertThat(pool.getStatus()).isEqualTo(NodePool.Status.RUNNING);
        assertThat(pool.getConfig().getResourceLabelsMap()).containsEntry("falcon-job", "job-run");

        KubernetesClient k8s = sim.kubernetesClient(PROJECT, LOCATION, CLUSTER);
        List<Node> nodes = Await.valueMatching(
                "2 nodes of pool-run",
                WAIT,
                () -> k8s.nodes()
                        .withLabel("cloud.google.com/gke-nodepool", "pool-run")
                        .list()
                        .getItems(),
                l -> l.size() == 2);
        assertThat(nodes)
                .extracting(n -> n.getMetadata().getName())
                .containsExactlyInAnyOrder("gke-edge-1-pool-run-0", "gke-edge-1-pool-run-1");
        assertThat(nodes.get(0).getMetadata().getLabels())
                .containsEntry("cloud.google.com/gke-tpu-accelerator", "tpu-v5-lite-podslice")
                .containsEntry("cloud.google.com/gke-tpu-topology", "2x4")
                .containsEntry("falcon.io/job", "job-run");
        assertThat(nodes.get(0).getStatus().getConditions())
                .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    @Test
    void poolsCanBeListedByLabel() {
        awaitDone(gke.createNodePool(CLUSTER_PATH, tpuPool("pool-label-a", "2x2", "wanted")));
        awaitDone(gke.createNodePool(CLUSTER_PATH, tpuPool("pool-label-b", "2x2", "other")));

        List<String> wanted = gke.listNodePools(CLUSTER_PATH).getNodePoolsList().stream()
                .filter(p ->
                        "wanted".equals(p.getConfig().getResourceLabelsMap().get("falcon-job")))
                .map(NodePool::getName)
                .toList();

        assertThat(wanted).containsExactly("pool-label-a");
    }

    @Test
    void requestsGkeRefusesAreRefusedWithItsErrorShape() {
        NodePool wrongCount = tpuPool("pool-bad-count", "2x4", "bad").toBuilder()
                .setInitialNodeCount(3)
                .build();
        assertThatThrownBy(() -> gke.createNodePool(CLUSTER_PATH, wrongCount))
                .isInstanceOf(com.google.api.gax.rpc.InvalidArgumentException.class)
                .hasMessageContaining("Invalid value for field 'nodePool.initialNodeCount'")
                .hasMessageContaining("has 2 nodes, got 3");
        NodePool.Builder noName = tpuPool("pool-bad-res", "2x2", "bad").toBuilder();
        noName.getConfigBuilder()
                .setReservationAffinity(com.google.container.v1.ReservationAffinity.newBuilder()
                        .setConsumeReservationType(
                                com.google.container.v1.ReservationAffinity.Type.SPECIFIC_RESERVATION));
        assertThatThrownBy(() -> gke.createNodePool(CLUSTER_PATH, noName.build()))
                .isInstanceOf(com.google.api.gax.rpc.InvalidArgumentException.class)
                .hasMessageContaining("'nodePool.config.reservationAffinity'");
        // nothing was created
        assertThatThrownBy(() -> gke.getNodePool(poolPath("pool-bad-count")))
                .isInstanceOf(com.google.api.gax.rpc.NotFoundException.class);
    }

    @Test
    void duplicateCreateIsAlreadyExists() {
        gke.createNodePool(CLUSTER_PATH, tpuPool("pool-dup", "2x2", "dup"));

        assertThatThrownBy(() -> gke.createNodePool(CLUSTER_PATH, tpuPool("pool-dup", "2x2", "dup")))
                .isInstanceOf(AlreadyExistsException.class);
    }

    @Test
    void deletedPoolIsNotFoundAndItsNodesAreGone() {
        awaitDone(gke.createNodePool(CLUSTER_PATH, tpuPool("pool-del", "2x2", "del")));
        KubernetesClient k8s = sim.kubernetesClient(PROJECT, LOCATION, CLUSTER);
        Await.valueMatching(
                "node of pool-del",
                WAIT,
                () -> k8s.nodes()
                        .withLabel("cloud.google.com/gke-nodepool", "pool-del")
                        .list()
                        .getItems(),
                l -> l.size() == 1);

        Operation delete = gke.deleteNodePool(poolPath("pool-del"));
        assertThat(delete.getOperationType()).isEqualTo(Operation.Type.DELETE_NODE_POOL);
        assertThat(gke.getNodePool(poolPath("pool-del")).getStatus()).isEqualTo(NodePool.Status.STOPPING);
        assertThat(awaitDone(delete).hasError()).isFalse();

        assertThatThrownBy(() -> gke.getNodePool(poolPath("pool-del"))).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> gke.deleteNodePool(poolPath("pool-del"))).isInstanceOf(NotFoundException.class);
        assertThat(k8s.nodes()
                        .withLabel("cloud.google.com/gke-nodepool", "pool-del")
                        .list()
                        .getItems())
                .isEmpty();
    }

    @Test
    void deletingAPoolThatIsBeingDeletedIsAFailedPrecondition() {
        awaitDone(gke.createNodePool(CLUSTER_PATH, tpuPool("pool-del2", "2x2", "del2")));
        sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).deletionDelay(Duration.ofMillis(400));
        try {
            Operation delete = gke.deleteNodePool(poolPath("pool-del2"));

            assertThatThrownBy(() -> gke.deleteNodePool(poolPath("pool-del2")))
                    .isInstanceOf(com.google.api.gax.rpc.FailedPreconditionException.class)
                    .hasMessageContaining("is currently deleting node pool pool-del2")
                    .hasMessageContaining(delete.getName());
            assertThat(awaitDone(delete).hasError()).isFalse();
            assertThatThrownBy(() -> gke.deleteNodePool(poolPath("pool-del2"))).isInstanceOf(NotFoundException.class);
        } finally {
            sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).deletionDelay(Duration.ofMillis(100));
        }
    }

    @Test
    void failedDeletionLeavesThePoolRunningWithAnOperationError() {
        awaitDone(gke.createNodePool(CLUSTER_PATH, tpuPool("pool-delfail", "2x2", "delfail")));
        sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).failNextDeletions(1);

        Operation failed = awaitDone(gke.deleteNodePool(poolPath("pool-delfail")));

        assertThat(failed.getError().getCode()).isEqualTo(io.grpc.Status.Code.INTERNAL.value());
        assertThat(gke.getNodePool(poolPath("pool-delfail")).getStatus()).isEqualTo(NodePool.Status.RUNNING);
        assertThat(awaitDone(gke.deleteNodePool(poolPath("pool-delfail"))).hasError())
                .isFalse();
        assertThatThrownBy(() -> gke.getNodePool(poolPath("pool-delfail"))).isInstanceOf(NotFoundException.class);
    }

    @Test
    void deleteWhileCreatingCanBeRejectedLikeGke() {
        var knobs = sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER);
        knobs.rejectDeleteWhileCreating(true).creationDelay(Duration.ofMillis(400));
        try {
            Operation create = gke.createNodePool(CLUSTER_PATH, tpuPool("pool-busy", "2x2", "busy"));

            assertThatThrownBy(() -> gke.deleteNodePool(poolPath("pool-busy")))
                    .isInstanceOf(com.google.api.gax.rpc.FailedPreconditionException.class)
                    .hasMessageContaining("is currently creating node pool pool-busy");
            assertThat(awaitDone(create).hasError()).isFalse();
            assertThat(awaitDone(gke.deleteNodePool(poolPath("pool-busy"))).hasError())
                    .isFalse();
        } finally {
            knobs.rejectDeleteWhileCreating(false).creationDelay(Duration.ofMillis(150));
        }
    }

    @Test
    void quotaFailureShowsUpAsOperationError() {
        sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).failNextCreationsWithQuota(1);

        Operation done = awaitDone(gke.createNodePool(CLUSTER_PATH, tpuPool("pool-quota", "2x2", "quota")));

        assertThat(done.getError().getCode()).isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED.value());
        assertThat(done.getError().getMessage())
                .isEqualTo("Quota 'TPUS_PER_PROJECT' exceeded. Limit: 0.0 in region us-central1.");
        assertThat(gke.getNodePool(poolPath("pool-quota")).getStatus()).isEqualTo(NodePool.Status.ERROR);

        // Only the next creation was failed.
        assertThat(awaitDone(gke.createNodePool(CLUSTER_PATH, tpuPool("pool-after-quota", "2x2", "q")))
                        .hasError())
                .isFalse();
    }

    @Test
    void invalidReservationShowsUpAsOperationError() {
        sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).failNextCreationsWithInvalidReservation(1);

        Operation done = awaitDone(gke.createNodePool(CLUSTER_PATH, tpuPool("pool-badres", "2x2", "badres")));

        assertThat(done.getError().getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT.value());
        assertThat(done.getError().getMessage()).contains("reservation");
    }

    @Test
    void lateVisibleFlexStartPoolIsNotFoundThenAppears() {
        sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).lateVisibility(Duration.ofMillis(600));
        try {
            NodePool flex = tpuPool("pool-flex", "2x2", "flex").toBuilder()
                    .setConfig(tpuPool("pool-flex", "2x2", "flex").getConfig().toBuilder()
                            .setFlexStart(true))
                    .build();
            gke.createNodePool(CLUSTER_PATH, flex);

            assertThatThrownBy(() -> gke.getNodePool(poolPath("pool-flex"))).isInstanceOf(NotFoundException.class);
            assertThat(gke.listNodePools(CLUSTER_PATH).getNodePoolsList())
                    .extracting(NodePool::getName)
                    .doesNotContain("pool-flex");

            NodePool visible = Await.valueMatching(
                    "pool-flex visible", WAIT, () -> gke.getNodePool(poolPath("pool-flex")), p -> true);
            assertThat(visible.getName()).isEqualTo("pool-flex");
        } finally {
            sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).lateVisibility(Duration.ZERO);
        }
    }

    @Test
    void neverFinishingCreationStaysRunning() throws InterruptedException {
        sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).neverFinishCreations(true);
        Operation op;
        try {
            op = gke.createNodePool(CLUSTER_PATH, tpuPool("pool-stuck", "2x2", "stuck"));
        } finally {
            sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).neverFinishCreations(false);
        }
        Thread.sleep(400);

        String name = "projects/" + PROJECT + "/locations/" + LOCATION + "/operations/" + op.getName();
        assertThat(gke.getOperation(name).getStatus()).isEqualTo(Operation.Status.RUNNING);
        assertThat(gke.getNodePool(poolPath("pool-stuck")).getStatus()).isEqualTo(NodePool.Status.PROVISIONING);
        assertThat(gke.listOperations("projects/" + PROJECT + "/locations/" + LOCATION)
                        .getOperationsList())
                .extracting(Operation::getName)
                .contains(op.getName());
    }

    @Test
    void nodesCanRegisterLateAfterPoolIsRunning() throws InterruptedException {
        sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).nodeRegistrationDelay(Duration.ofMillis(700));
        try {
            awaitDone(gke.createNodePool(CLUSTER_PATH, tpuPool("pool-late-nodes", "2x2", "late")));
            assertThat(gke.getNodePool(poolPath("pool-late-nodes")).getStatus()).isEqualTo(NodePool.Status.RUNNING);
            KubernetesClient k8s = sim.kubernetesClient(PROJECT, LOCATION, CLUSTER);

            assertThat(k8s.nodes()
                            .withLabel("cloud.google.com/gke-nodepool", "pool-late-nodes")
                            .list()
                            .getItems())
                    .isEmpty();
            Await.valueMatching(
                    "late node",
                    WAIT,
                    () -> k8s.nodes()
                            .withLabel("cloud.google.com/gke-nodepool", "pool-late-nodes")
                            .list()
                            .getItems(),
                    l -> l.size() == 1);
        } finally {
            sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).nodeRegistrationDelay(Duration.ZERO);
        }
    }

    @Test
    void unknownClusterIsNotFound() {
        assertThatThrownBy(() -> gke.getCluster("projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/nope"))
                .isInstanceOf(NotFoundException.class);
    }
}
