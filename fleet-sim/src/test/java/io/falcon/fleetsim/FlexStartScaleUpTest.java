package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodePoolAutoscaling;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.falcon.fleetsim.gke.NodePoolKnobs;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Flex-start pools created from zero (initialNodeCount 0, autoscaling on) get nodes only for pending pods that select
 * them, through the real google-cloud-container and fabric8 clients (issue 19). One fleet for the class. Where a test
 * checks that something did NOT happen, it first waits for a later scale-up that the sim orders after the one that
 * must not happen (the scale-up delay is shorter than the pool creation delay, and scale-ups register in order).
 */
class FlexStartScaleUpTest {

    private static final String PROJECT = "falcon-flex";
    private static final String LOCATION = "us-central1";
    private static final String CLUSTER = "edge-flex";
    private static final String CLUSTER_PATH =
            "projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + CLUSTER;
    private static final String NS = "default";
    private static final Duration WAIT = Duration.ofSeconds(8);
    private static final Duration SCALE_UP_DELAY = Duration.ofMillis(100);

    private static FleetSim sim;
    private static ClusterManagerClient gke;
    private static KubernetesClient k8s;
    private static NodePoolKnobs knobs;
    private static final List<FleetMilestones.Milestone> milestones = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        sim = FleetSim.start(FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu-v5-lite-podslice"))
                .withPoolDelays(Duration.ofMillis(300), Duration.ofMillis(50)));
        knobs = sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER).scaleUpDelay(SCALE_UP_DELAY);
        sim.milestones().listen(milestones::add);
        gke = GkeClients.clusterManager(sim);
        k8s = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl(sim.kubernetesUrl(PROJECT, LOCATION, CLUSTER))
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        if (k8s != null) {
            k8s.close();
        }
        if (gke != null) {
            gke.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    @AfterEach
    void restoreKnobs() {
        knobs.stockout(false).scaleUpDelay(SCALE_UP_DELAY).scaleDownAfter(null);
    }

    /** A flex-start pool as GKE's examples create it: no nodes to start with, autoscaling 0..the slice's VMs. */
    private static NodePool flexFromZero(String name, String topology, int vms) {
        return NodePool.newBuilder()
                .setName(name)
                .setInitialNodeCount(0)
                .setAutoscaling(NodePoolAutoscaling.newBuilder()
                        .setEnabled(true)
                        .setTotalMinNodeCount(0)
                        .setTotalMaxNodeCount(vms)
                        .setLocationPolicy(NodePoolAutoscaling.LocationPolicy.ANY))
                .setConfig(NodeConfig.newBuilder()
                        .setMachineType("ct5lp-hightpu-4t")
                        .setFlexStart(true)
                        .putLabels("falcon.io/pool", name))
                .setPlacementPolicy(NodePool.PlacementPolicy.newBuilder().setTpuTopology(topology))
                .build();
    }

    private static NodePool running(NodePool pool) {
        GkeClients.awaitDone(gke, PROJECT, LOCATION, gke.createNodePool(CLUSTER_PATH, pool));
        NodePool got = gke.getNodePool(CLUSTER_PATH + "/nodePools/" + pool.getName());
        assertThat(got.getStatus()).isEqualTo(NodePool.Status.RUNNING);
        return got;
    }

    private static List<Node> nodes(String pool) {
        return k8s.nodes()
                .withLabel("cloud.google.com/gke-nodepool", pool)
                .list()
                .getItems();
    }

    private static List<Node> awaitNodes(String pool, int count) {
        return Await.valueMatching(count + " nodes of " + pool, WAIT, () -> nodes(pool), l -> l.size() == count);
    }

    /** An Indexed Job of {@code pods} TPU pods selecting {@code pool}, each running {@code seconds}. */
    private static void postJob(String name, String pool, int pods, String seconds) {
        k8s.resource(new JobBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .endMetadata()
                        .withNewSpec()
                        .withCompletionMode("Indexed")
                        .withCompletions(pods)
                        .withParallelism(pods)
                        .withBackoffLimit(0)
                        .withNewTemplate()
                        .withNewSpec()
                        .withRestartPolicy("Never")
                        .addToNodeSelector("cloud.google.com/gke-nodepool", pool)
                        .addNewContainer()
                        .withName("main")
                        .withImage("us-docker.pkg.dev/falcon/train:1")
                        .addNewEnv()
                        .withName("FALCON_SIM_DURATION_SECONDS")
                        .withValue(seconds)
                        .endEnv()
                        .withNewResources()
                        .addToLimits("google.com/tpu", new Quantity("4"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build())
                .create();
    }

    private static List<Pod> pods(String job) {
        return k8s.pods().inNamespace(NS).withLabel("job-name", job).list().getItems();
    }

    private static boolean unschedulable(Pod pod) {
        List<PodCondition> conditions =
                pod.getStatus() == null ? null : pod.getStatus().getConditions();
        return "Pending".equals(pod.getStatus() == null ? null : pod.getStatus().getPhase())
                && conditions != null
                && conditions.stream()
                        .anyMatch(c -> "PodScheduled".equals(c.getType())
                                && "False".equals(c.getStatus())
                                && "Unschedulable".equals(c.getReason()));
    }

    private static List<Pod> awaitUnschedulable(String job, int count) {
        return Await.valueMatching(
                count + " unschedulable pods of " + job,
                WAIT,
                () -> pods(job),
                l -> l.size() == count && l.stream().allMatch(FlexStartScaleUpTest::unschedulable));
    }

    private static Job awaitComplete(String job) {
        return Await.valueMatching(
                "job " + job + " Complete",
                WAIT,
                () -> k8s.batch().v1().jobs().inNamespace(NS).withName(job).get(),
                j -> j.getStatus() != null
                        && j.getStatus().getConditions() != null
                        && j.getStatus().getConditions().stream()
                                .anyMatch(c -> "Complete".equals(c.getType()) && "True".equals(c.getStatus())));
    }

    @Test
    void aJobsPendingPodsBringTheWholeMultiHostSliceThenRunAndTheJobCompletes() {
        NodePool pool = running(flexFromZero("flex-multi", "2x4", 2));
        assertThat(pool.getInitialNodeCount()).isZero();
        assertThat(nodes("flex-multi")).isEmpty();

        postJob("train-multi", "flex-multi", 2, "0.3");

        // First the pods find no node; the autoscaler then adds both VMs of the slice
        awaitUnschedulable("train-multi", 2);
        List<Node> slice = awaitNodes("flex-multi", 2);
        assertThat(slice)
                .extracting(n -> n.getMetadata().getName())
                .containsExactlyInAnyOrder("gke-edge-flex-flex-multi-0", "gke-edge-flex-flex-multi-1");
        assertThat(slice).allSatisfy(n -> {
            assertThat(n.getMetadata().getLabels())
                    .containsEntry("cloud.google.com/gke-tpu-topology", "2x4")
                    .containsEntry("cloud.google.com/gke-tpu-accelerator", "tpu-v5-lite-podslice")
                    .containsEntry("falcon.io/pool", "flex-multi");
            assertThat(n.getStatus().getConditions())
                    .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
        });
        Await.until(
                "NODES_READY for flex-multi",
                WAIT,
                () -> milestones.stream()
                        .anyMatch(m -> m.type() == FleetMilestones.Type.NODES_READY
                                && m.name().equals("flex-multi")),
                milestones::toString);

        Job done = awaitComplete("train-multi");
        assertThat(done.getStatus().getSucceeded()).isEqualTo(2);
        assertThat(pods("train-multi"))
                .extracting(p -> p.getSpec().getNodeName())
                .containsExactlyInAnyOrder("gke-edge-flex-flex-multi-0", "gke-edge-flex-flex-multi-1");
        // GKE's own scale-up went through no API the executor calls: nobody but the sim created a node
        assertThat(sim.apiCalls().by(caller -> !ApiCalls.SIM_USER_AGENT.equals(caller)))
                .noneMatch(c -> c.resource().equals("nodes") && c.method().equals("create"));
    }

    @Test
    void oneWaitingPodBringsAllVmsOfTheSliceAndAStockoutHoldsTheScaleUpUntilCleared() {
        running(flexFromZero("flex-stockout", "2x4", 2));
        knobs.stockout(true);

        postJob("one-pod", "flex-stockout", 1, "0.2");
        awaitUnschedulable("one-pod", 1);
        // A pool created at full size now gets its node after the creation delay, later than flex-stockout's
        // scale-up would have registered had the stockout not held it
        NodePool marker = NodePool.newBuilder()
                .setName("marker-full")
                .setInitialNodeCount(1)
                .setConfig(NodeConfig.newBuilder().setMachineType("ct5lp-hightpu-4t"))
                .build();
        running(marker);
        awaitNodes("marker-full", 1);
        assertThat(nodes("flex-stockout")).isEmpty();
        assertThat(pods("one-pod")).singleElement().matches(FlexStartScaleUpTest::unschedulable);
        assertThat(gke.getNodePool(CLUSTER_PATH + "/nodePools/flex-stockout").getStatus())
                .isEqualTo(NodePool.Status.RUNNING);

        knobs.stockout(false);
        // One pod, yet both VMs: a multi-host slice scales atomically
        awaitNodes("flex-stockout", 2);
        awaitComplete("one-pod");
    }

    @Test
    void aSingleHostPoolGetsOneVmPerWaitingPodAnotherPoolNoneAndADeletedPoolNone() {
        running(flexFromZero("flex-idle", "2x4", 2));
        running(flexFromZero("flex-doomed", "2x4", 2));
        // single-host VMs, up to 3 of them
        running(flexFromZero("flex-other", "2x2", 3));
        // Long enough for flex-doomed to be deleted while its scale-up is under way, even on a loaded machine;
        // flex-other's scale-up, started later with the same delay, registers after it (and after any of
        // flex-idle's, an older pool)
        knobs.scaleUpDelay(Duration.ofMillis(1500));

        postJob("doomed", "flex-doomed", 1, "0.2");
        awaitUnschedulable("doomed", 1);
        // The autoscaler hears of a pod that found no node at the end of the simulator's tick: a pod of a Job posted
        // now is created in a later tick, so once it shows, flex-doomed's scale-up has started
        postJob("probe", "no-such-pool", 1, "0.2");
        awaitUnschedulable("probe", 1);
        k8s.batch().v1().jobs().inNamespace(NS).withName("probe").delete();
        GkeClients.awaitDone(gke, PROJECT, LOCATION, gke.deleteNodePool(CLUSTER_PATH + "/nodePools/flex-doomed"));

        postJob("other", "flex-other", 2, "0.2");
        awaitNodes("flex-other", 2);
        awaitComplete("other");
        // one VM per waiting pod, not the pool's maximum, and none again for pods whose VMs are on their way
        assertThat(nodes("flex-other")).hasSize(2);

        assertThat(nodes("flex-idle")).isEmpty();
        assertThat(nodes("flex-doomed")).isEmpty();
        assertThat(gke.getNodePool(CLUSTER_PATH + "/nodePools/flex-idle").getStatus())
                .isEqualTo(NodePool.Status.RUNNING);
        assertThat(pods("doomed")).singleElement().matches(FlexStartScaleUpTest::unschedulable);
    }

    /**
     * The autoscaler removes a pool's nodes once none of them has held a pod for the consolidation delay (here the
     * knob's 400 ms instead of minutes), keeps the pool RUNNING, and brings the nodes back for the next Job's pods;
     * a pool whose pods still run keeps its nodes.
     */
    @Test
    void anUnneededPoolLosesItsNodesAfterTheConsolidationDelayAndGetsThemBackForNewPods() {
        running(flexFromZero("flex-busy", "2x4", 2));
        running(flexFromZero("flex-down", "2x4", 2));
        postJob("long", "flex-busy", 2, "30");
        awaitNodes("flex-busy", 2);
        postJob("short", "flex-down", 2, "0.2");
        awaitNodes("flex-down", 2);
        awaitComplete("short");
        knobs.scaleDownAfter(Duration.ofMillis(400));

        awaitNodes("flex-down", 0);
        assertThat(gke.getNodePool(CLUSTER_PATH + "/nodePools/flex-down").getStatus())
                .isEqualTo(NodePool.Status.RUNNING);
        // flex-busy's pods run on: its nodes stay, though it is as old as flex-down
        assertThat(nodes("flex-busy")).hasSize(2);
        assertThat(pods("long"))
                .allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));

        postJob("again", "flex-down", 2, "0.2");
        awaitUnschedulable("again", 2);
        awaitNodes("flex-down", 2);
        awaitComplete("again");
        k8s.batch().v1().jobs().inNamespace(NS).withName("long").delete();
    }
}
