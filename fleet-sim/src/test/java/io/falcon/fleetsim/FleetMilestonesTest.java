package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.falcon.fleetsim.FleetMilestones.Milestone;
import io.falcon.fleetsim.FleetMilestones.Type;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A listener sees each moment of a job's life once, in order, naming the job and the pool. */
class FleetMilestonesTest {

    private static final String PROJECT = "falcon-test";
    private static final String LOCATION = "us-central1";
    private static final String CLUSTER = "edge-ms";
    private static final String CLUSTER_PATH =
            "projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + CLUSTER;

    @Test
    void aJobsLifeIsAnnouncedOnceEachInOrder() throws Exception {
        List<Milestone> seen = new CopyOnWriteArrayList<>();
        try (FleetSim sim = FleetSim.start(
                        FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu-v5-lite-podslice"))
                                .withPoolDelays(Duration.ofMillis(20), Duration.ofMillis(20))
                                .withSimulatorTick(Duration.ofMillis(10)));
                ClusterManagerClient gke = GkeClients.clusterManager(sim)) {
            sim.milestones().listen(seen::add);
            NodePool pool = NodePool.newBuilder()
                    .setName("falcon-j1")
                    .setConfig(NodeConfig.newBuilder()
                            .setMachineType("ct5lp-hightpu-4t")
                            .putMetadata("falcon-job-id", "J_1"))
                    .setInitialNodeCount(2)
                    .setPlacementPolicy(NodePool.PlacementPolicy.newBuilder().setTpuTopology("2x4"))
                    .build();
            GkeClients.awaitDone(gke, PROJECT, LOCATION, gke.createNodePool(CLUSTER_PATH, pool));
            Await.until(
                    "nodes ready",
                    Duration.ofSeconds(5),
                    () -> seen.stream().anyMatch(m -> m.type() == Type.NODES_READY),
                    seen::toString);

            Job job = new JobBuilder()
                    .withNewMetadata()
                    .withName("falcon-j1")
                    .withNamespace("default")
                    .addToAnnotations("falcon.io/job-id", "J_1")
                    .endMetadata()
                    .withNewSpec()
                    .withCompletions(2)
                    .withParallelism(2)
                    .withCompletionMode("Indexed")
                    .withNewTemplate()
                    .withNewSpec()
                    .addToNodeSelector("cloud.google.com/gke-nodepool", "falcon-j1")
                    .addNewContainer()
                    .withName("main")
                    .withImage("busybox")
                    .addNewEnv()
                    .withName("FALCON_SIM_DURATION_SECONDS")
                    .withValue("0.2")
                    .endEnv()
                    .endContainer()
                    .withRestartPolicy("Never")
                    .endSpec()
                    .endTemplate()
                    .endSpec()
                    .build();
            sim.kubernetesClient(PROJECT, LOCATION, CLUSTER)
                    .batch()
                    .v1()
                    .jobs()
                    .inNamespace("default")
                    .resource(job)
                    .create();
            Await.until(
                    "job finished",
                    Duration.ofSeconds(10),
                    () -> seen.stream().anyMatch(m -> m.type() == Type.K8S_JOB_FINISHED),
                    seen::toString);
            GkeClients.awaitDone(gke, PROJECT, LOCATION, gke.deleteNodePool(CLUSTER_PATH + "/nodePools/falcon-j1"));
            Thread.sleep(100);
        }
        assertThat(seen)
                .extracting(Milestone::type)
                .containsExactly(
                        Type.NODE_POOL_CREATED,
                        Type.NODES_READY,
                        Type.K8S_JOB_POSTED,
                        Type.PODS_RUNNING,
                        Type.K8S_JOB_FINISHED,
                        Type.NODE_POOL_DELETED);
        assertThat(seen).allSatisfy(m -> {
            assertThat(m.job()).contains("J_1");
            assertThat(m.pool()).contains("falcon-j1");
            assertThat(m.cluster()).isEqualTo(CLUSTER);
        });
        assertThat(seen).extracting(Milestone::at).isSorted();
        assertThat(seen.get(2).name()).isEqualTo("falcon-j1");
        assertThat(Optional.of(seen.get(0).name())).contains("falcon-j1");
    }
}
