package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.rpc.AlreadyExistsException;
import com.google.api.gax.rpc.NotFoundException;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.falcon.fleetsim.FleetRecord.Entry;
import io.falcon.fleetsim.FleetRecord.Kind;
import io.falcon.fleetsim.FleetRecord.Outcome;
import io.falcon.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every create and delete fleet-sim serves is in its record, with the answer it gave, readable from the file. */
class FleetRecordTest {

    private static final String PROJECT = "falcon-test";
    private static final String LOCATION = "us-central1";
    private static final String CLUSTER = "edge-rec";
    private static final String CLUSTER_PATH =
            "projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + CLUSTER;

    @TempDir
    Path dir;

    @Test
    void nodePoolAndJobCreatesAndDeletesAreRecordedWithTheirOutcomesInTheFile() throws Exception {
        Path file = dir.resolve("record.jsonl");
        try (FleetSim sim = FleetSim.start(
                        FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu-v5-lite-podslice"))
                                .withPoolDelays(Duration.ofMillis(50), Duration.ofMillis(50))
                                .withRecordFile(file));
                ClusterManagerClient gke = GkeClients.clusterManager(sim)) {
            NodePool pool = NodePool.newBuilder()
                    .setName("falcon-j1")
                    .setConfig(NodeConfig.newBuilder()
                            .setMachineType("ct5lp-hightpu-4t")
                            .putMetadata("falcon-job-id", "J_1"))
                    .setInitialNodeCount(2)
                    .setPlacementPolicy(NodePool.PlacementPolicy.newBuilder().setTpuTopology("2x4"))
                    .build();
            GkeClients.awaitDone(gke, PROJECT, LOCATION, gke.createNodePool(CLUSTER_PATH, pool));
            assertThatThrownBy(() -> gke.createNodePool(CLUSTER_PATH, pool)).isInstanceOf(AlreadyExistsException.class);
            GkeClients.awaitDone(gke, PROJECT, LOCATION, gke.deleteNodePool(CLUSTER_PATH + "/nodePools/falcon-j1"));
            Await.valueMatching(
                    "falcon-j1 gone",
                    Duration.ofSeconds(5),
                    () -> gke.listNodePools(CLUSTER_PATH).getNodePoolsList(),
                    List::isEmpty);
            assertThatThrownBy(() -> gke.deleteNodePool(CLUSTER_PATH + "/nodePools/falcon-j1"))
                    .isInstanceOf(NotFoundException.class);

            KubernetesClient k8s = sim.kubernetesClient(PROJECT, LOCATION, CLUSTER);
            Job job = new JobBuilder()
                    .withNewMetadata()
                    .withName("falcon-j1")
                    .withNamespace("default")
                    .addToAnnotations("falcon.io/job-id", "J_1")
                    .endMetadata()
                    .withNewSpec()
                    .withNewTemplate()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("main")
                    .withImage("busybox")
                    .endContainer()
                    .withRestartPolicy("Never")
                    .endSpec()
                    .endTemplate()
                    .endSpec()
                    .build();
            k8s.batch().v1().jobs().inNamespace("default").resource(job).create();
            assertThatThrownBy(() -> k8s.batch()
                            .v1()
                            .jobs()
                            .inNamespace("default")
                            .resource(job)
                            .create())
                    .isInstanceOf(KubernetesClientException.class);
            k8s.batch().v1().jobs().inNamespace("default").withName("falcon-j1").delete();
            k8s.batch().v1().jobs().inNamespace("default").withName("falcon-j1").delete();

            List<Entry> expected = List.of(
                    entry(Kind.NODE_POOL_CREATE, Outcome.ACCEPTED, Optional.of("J_1")),
                    entry(Kind.NODE_POOL_CREATE, Outcome.ALREADY_EXISTS, Optional.of("J_1")),
                    entry(Kind.NODE_POOL_DELETE, Outcome.ACCEPTED, Optional.of("J_1")),
                    entry(Kind.NODE_POOL_DELETE, Outcome.NOT_FOUND, Optional.empty()),
                    entry(Kind.K8S_JOB_CREATE, Outcome.ACCEPTED, Optional.of("J_1")),
                    entry(Kind.K8S_JOB_CREATE, Outcome.ALREADY_EXISTS, Optional.of("J_1")),
                    entry(Kind.K8S_JOB_DELETE, Outcome.ACCEPTED, Optional.empty()),
                    entry(Kind.K8S_JOB_DELETE, Outcome.NOT_FOUND, Optional.empty()));
            assertThat(withoutTime(sim.record().entries())).containsExactlyElementsOf(expected);
            assertThat(withoutTime(FleetRecord.read(file))).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void aCreateWhoseOperationFailsForWantOfReservationCapacityIsRecordedAsFailedAfterItWasAccepted() throws Exception {
        Path file = dir.resolve("failed.jsonl");
        try (FleetSim sim = FleetSim.start(FleetSimConfig.of(EdgeClusterConfig.of(
                                        PROJECT, LOCATION, CLUSTER, "tpu-v5-lite-podslice")
                                .withReservation(new ReservationConfig(null, "one-vm", "ct5lp-hightpu-4t", 1, 0)))
                        .withPoolDelays(Duration.ofMillis(50), Duration.ofMillis(50))
                        .withRecordFile(file));
                ClusterManagerClient gke = GkeClients.clusterManager(sim)) {
            // both accepted at once; GKE takes the capacity when the VMs come up, so the second one fails then
            var first = gke.createNodePool(CLUSTER_PATH, reservedPool("falcon-j1", "J_1"));
            var second = gke.createNodePool(CLUSTER_PATH, reservedPool("falcon-j2", "J_2"));
            GkeClients.awaitDone(gke, PROJECT, LOCATION, first);
            assertThat(GkeClients.awaitDone(gke, PROJECT, LOCATION, second)
                            .getError()
                            .getCode())
                    .isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED.value());

            assertThat(withoutTime(FleetRecord.read(file)))
                    .containsExactly(
                            new Entry(
                                    java.time.Instant.EPOCH,
                                    Kind.NODE_POOL_CREATE,
                                    Outcome.ACCEPTED,
                                    CLUSTER,
                                    "falcon-j1",
                                    Optional.of("J_1")),
                            new Entry(
                                    java.time.Instant.EPOCH,
                                    Kind.NODE_POOL_CREATE,
                                    Outcome.ACCEPTED,
                                    CLUSTER,
                                    "falcon-j2",
                                    Optional.of("J_2")),
                            new Entry(
                                    java.time.Instant.EPOCH,
                                    Kind.NODE_POOL_CREATE_FAILED,
                                    Outcome.REFUSED,
                                    CLUSTER,
                                    "falcon-j2",
                                    Optional.of("J_2")));
        }
    }

    private static NodePool reservedPool(String name, String job) {
        return NodePool.newBuilder()
                .setName(name)
                .setInitialNodeCount(1)
                .setConfig(NodeConfig.newBuilder()
                        .setMachineType("ct5lp-hightpu-4t")
                        .putMetadata("falcon-job-id", job)
                        .setReservationAffinity(com.google.container.v1.ReservationAffinity.newBuilder()
                                .setConsumeReservationType(
                                        com.google.container.v1.ReservationAffinity.Type.SPECIFIC_RESERVATION)
                                .setKey("compute.googleapis.com/reservation-name")
                                .addValues("one-vm")))
                .build();
    }

    @Test
    void aTornLastLineOfAKilledSimIsSkippedButATornLineInTheMiddleIsAnError() throws Exception {
        Path file = dir.resolve("torn.jsonl");
        try (FleetRecord record = FleetRecord.appendingTo(file)) {
            record.add(new Entry(
                    java.time.Instant.EPOCH, Kind.K8S_JOB_CREATE, Outcome.ACCEPTED, "c", "falcon-a", Optional.of("a")));
        }
        Files.writeString(
                file,
                "{\"at\":\"1970-01-01T00:00:00Z\",\"kind\":\"K8S_JO",
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
        assertThat(FleetRecord.read(file)).extracting(Entry::name).containsExactly("falcon-a");

        Files.writeString(
                file,
                "\n{\"at\":\"1970-01-01T00:00:00Z\",\"kind\":\"K8S_JOB_DELETE\",\"outcome\":\"ACCEPTED\","
                        + "\"cluster\":\"c\",\"name\":\"falcon-a\"}\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
        assertThatThrownBy(() -> FleetRecord.read(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a fleet record line");
    }

    private static Entry entry(Kind kind, Outcome outcome, Optional<String> job) {
        return new Entry(java.time.Instant.EPOCH, kind, outcome, CLUSTER, "falcon-j1", job);
    }

    private static List<Entry> withoutTime(List<Entry> entries) {
        return entries.stream()
                .map(e -> new Entry(java.time.Instant.EPOCH, e.kind(), e.outcome(), e.cluster(), e.name(), e.job()))
                .toList();
    }
}
