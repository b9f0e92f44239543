package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Drives the Job/Pod simulator through a plain fabric8 client, as Falcon's executor would. */
class JobLifecycleSimulatorTest {

    private static final String PROJECT = "falcon-test";
    private static final String LOCATION = "us-central1";
    private static final String CLUSTER = "edge-jobs";
    private static final String POOL = "tpu-pool";
    private static final String NS = "default";
    private static final Duration WAIT = Duration.ofSeconds(6);

    private static FleetSim sim;
    private static KubernetesClient k8s;

    @BeforeAll
    static void start() {
        sim = FleetSim.start(FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu-v5-lite-podslice"))
                .withPoolDelays(Duration.ofMillis(100), Duration.ofMillis(100)));
        try (ClusterManagerClient gke = GkeClients.clusterManager(sim)) {
            NodePool pool = NodePool.newBuilder()
                    .setName(POOL)
                    .setConfig(NodeConfig.newBuilder().setMachineType("ct5lp-hightpu-4t"))
                    .setInitialNodeCount(2)
                    .setPlacementPolicy(NodePool.PlacementPolicy.newBuilder().setTpuTopology("2x4"))
                    .build();
            String cluster = "projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + CLUSTER;
            GkeClients.awaitDone(gke, PROJECT, LOCATION, gke.createNodePool(cluster, pool));
        }
        k8s = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl(sim.kubernetesUrl(PROJECT, LOCATION, CLUSTER))
                        .build())
                .build();
        Await.valueMatching(
                "2 nodes of " + POOL,
                WAIT,
                () -> k8s.nodes()
                        .withLabel("cloud.google.com/gke-nodepool", POOL)
                        .list()
                        .getItems(),
                l -> l.size() == 2);
    }

    @AfterAll
    static void stop() {
        if (k8s != null) {
            k8s.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    private static Job job(
            String name, String pool, int completions, String image, Map<String, String> env, boolean tpu) {
        var container = new io.fabric8.kubernetes.api.model.ContainerBuilder()
                .withName("main")
                .withImage(image);
        env.forEach((k, v) -> container.addNewEnv().withName(k).withValue(v).endEnv());
        if (tpu) {
            container
                    .withNewResources()
                    .addToLimits("google.com/tpu", new Quantity("4"))
                    .endResources();
        }
        return new JobBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withCompletionMode("Indexed")
                .withCompletions(completions)
                .withParallelism(completions)
                .withBackoffLimit(0)
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("falcon.io/run", name)
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .addToNodeSelector("cloud.google.com/gke-nodepool", pool)
                .withContainers(container.build())
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    private static List<Pod> pods(String job) {
        return k8s.pods().inNamespace(NS).withLabel("job-name", job).list().getItems();
    }

    private static Job awaitCondition(String job, String type) {
        return Await.valueMatching(
                "job " + job + " condition " + type,
                WAIT,
                () -> k8s.batch().v1().jobs().inNamespace(NS).withName(job).get(),
                j -> condition(j, type).isPresent());
    }

    private static Optional<JobCondition> condition(Job job, String type) {
        if (job == null || job.getStatus() == null || job.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return job.getStatus().getConditions().stream()
                .filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus()))
                .findFirst();
    }

    private static ContainerStatus container(Pod pod) {
        return pod.getStatus().getContainerStatuses().get(0);
    }

    @Test
    void indexedJobRunsOnePodPerNodeAndCompletes() {
        k8s.resource(job(
                        "train",
                        POOL,
                        2,
                        "us-docker.pkg.dev/falcon/train:1",
                        Map.of("FALCON_SIM_DURATION_SECONDS", "0.6"),
                        true))
                .create();

        List<Pod> running = Await.valueMatching(
                "2 running pods of train",
                WAIT,
                () -> pods("train"),
                l -> l.size() == 2
                        && l.stream()
                                .allMatch(p -> "Running".equals(p.getStatus().getPhase())));
        assertThat(running)
                .extracting(p -> p.getSpec().getNodeName())
                .containsExactlyInAnyOrder("gke-edge-jobs-tpu-pool-0", "gke-edge-jobs-tpu-pool-1");
        assertThat(running)
                .extracting(p -> p.getMetadata().getLabels().get("batch.kubernetes.io/job-completion-index"))
                .containsExactlyInAnyOrder("0", "1");
        assertThat(running).allSatisfy(p -> {
            assertThat(p.getMetadata().getName()).matches("train-[01]-[a-z0-9]{5}");
            assertThat(p.getMetadata().getLabels()).containsEntry("falcon.io/run", "train");
            assertThat(container(p).getState().getRunning()).isNotNull();
        });
        // The simulator writes the pods' status before the Job's: wait for the Job to catch up.
        Job active = Await.valueMatching(
                "train active=2",
                WAIT,
                () -> k8s.batch().v1().jobs().inNamespace(NS).withName("train").get(),
                j -> j.getStatus() != null
                        && Integer.valueOf(2).equals(j.getStatus().getActive()));
        assertThat(active.getStatus().getActive()).isEqualTo(2);
        assertThat(active.getStatus().getStartTime()).isNotNull();

        Job done = awaitCondition("train", "Complete");
        assertThat(done.getStatus().getSucceeded()).isEqualTo(2);
        assertThat(done.getStatus().getActive()).isNull();
        assertThat(done.getStatus().getCompletionTime()).isNotNull();
        assertThat(done.getStatus().getCompletedIndexes()).isEqualTo("0-1");
        assertThat(pods("train")).allSatisfy(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Succeeded");
            assertThat(container(p).getState().getTerminated().getExitCode()).isZero();
            assertThat(container(p).getState().getTerminated().getReason()).isEqualTo("Completed");
        });
    }

    @Test
    void aFinalStatusWhoseWriteFailedIsWrittenAgainAtTheNextReconcile() {
        k8s.resource(job(
                        "write-fails",
                        POOL,
                        1,
                        "us-docker.pkg.dev/falcon/train:1",
                        Map.of("FALCON_SIM_DURATION_SECONDS", "0.5"),
                        true))
                .create();
        Await.valueMatching(
                "write-fails active",
                WAIT,
                () -> k8s.batch()
                        .v1()
                        .jobs()
                        .inNamespace(NS)
                        .withName("write-fails")
                        .get(),
                j -> j != null
                        && j.getStatus() != null
                        && Integer.valueOf(1).equals(j.getStatus().getActive()));
        // the controller's next status writes fail (the completion's among them): it must write it again
        sim.kubernetesKnobs(PROJECT, LOCATION, CLUSTER).failNextJobStatusWrites(3);

        Job done = awaitCondition("write-fails", "Complete");

        assertThat(done.getStatus().getSucceeded()).isEqualTo(1);
    }

    @Test
    void nonZeroExitCodeFailsTheJob() {
        k8s.resource(job(
                        "exit3",
                        POOL,
                        1,
                        "img:1",
                        Map.of("FALCON_SIM_DURATION_SECONDS", "0.1", "FALCON_SIM_EXIT_CODE", "3"),
                        false))
                .create();

        Job failed = awaitCondition("exit3", "Failed");

        assertThat(condition(failed, "Failed").orElseThrow().getReason()).isEqualTo("BackoffLimitExceeded");
        assertThat(failed.getStatus().getFailed()).isEqualTo(1);
        assertThat(condition(failed, "Complete")).isEmpty();
        Pod pod = pods("exit3").get(0);
        assertThat(pod.getStatus().getPhase()).isEqualTo("Failed");
        assertThat(container(pod).getState().getTerminated().getExitCode()).isEqualTo(3);
        assertThat(container(pod).getState().getTerminated().getReason()).isEqualTo("Error");
    }

    @Test
    void oomKilledPodReports137() {
        k8s.resource(job(
                        "oom",
                        POOL,
                        1,
                        "img:1",
                        Map.of("FALCON_SIM_DURATION_SECONDS", "0.1", "FALCON_SIM_OOM", "true"),
                        false))
                .create();

        awaitCondition("oom", "Failed");

        Pod pod = pods("oom").get(0);
        assertThat(container(pod).getState().getTerminated().getExitCode()).isEqualTo(137);
        assertThat(container(pod).getState().getTerminated().getReason()).isEqualTo("OOMKilled");
    }

    @Test
    void missingImageStaysPendingWithErrImagePull() {
        k8s.resource(job("badimg", POOL, 1, "us-docker.pkg.dev/falcon/does-not-exist:1", Map.of(), false))
                .create();

        Pod pod = Await.valueMatching(
                        "badimg pod with container status",
                        WAIT,
                        () -> pods("badimg"),
                        l -> l.size() == 1
                                && l.get(0).getStatus().getContainerStatuses() != null
                                && !l.get(0).getStatus().getContainerStatuses().isEmpty())
                .get(0);

        assertThat(pod.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(container(pod).getState().getWaiting().getReason()).isIn("ErrImagePull", "ImagePullBackOff");
        Pod later = Await.valueMatching(
                "ImagePullBackOff",
                WAIT,
                () -> pods("badimg").get(0),
                p -> "ImagePullBackOff"
                        .equals(container(p).getState().getWaiting().getReason()));
        assertThat(later.getStatus().getPhase()).isEqualTo("Pending");
        Job job = k8s.batch().v1().jobs().inNamespace(NS).withName("badimg").get();
        assertThat(job.getStatus().getActive()).isEqualTo(1);
        assertThat(job.getStatus().getReady()).isZero();
        assertThat(condition(job, "Failed")).isEmpty();
    }

    @Test
    void jobForPoolWithoutNodesStaysPendingUnschedulable() throws InterruptedException {
        k8s.resource(job("nowhere", "no-such-pool", 1, "img:1", Map.of(), false))
                .create();

        Pod pod = Await.valueMatching("nowhere pod", WAIT, () -> pods("nowhere"), l -> l.size() == 1)
                .get(0);
        Thread.sleep(300);
        pod = pods("nowhere").get(0);

        assertThat(pod.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(pod.getSpec().getNodeName()).isNull();
        assertThat(pod.getStatus().getConditions())
                .anyMatch(
                        c -> c.getType().equals("PodScheduled") && c.getReason().equals("Unschedulable"));
    }

    @Test
    void deletingTheJobDeletesItsPods() {
        k8s.resource(job("doomed", POOL, 2, "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "30"), false))
                .create();
        Await.valueMatching("2 doomed pods", WAIT, () -> pods("doomed"), l -> l.size() == 2);

        k8s.batch().v1().jobs().inNamespace(NS).withName("doomed").delete();

        Await.valueMatching("doomed pods gone", WAIT, () -> pods("doomed"), List::isEmpty);
        assertThat(k8s.batch().v1().jobs().inNamespace(NS).withName("doomed").get())
                .isNull();
    }

    @Test
    void aDeletedJobsRunningPodsTerminateForTheirWorkloadsExitTimeHoldingTheirNodes() {
        sim.kubernetesKnobs(PROJECT, LOCATION, CLUSTER).podExitTime(Duration.ofSeconds(2));
        try {
            k8s.resource(job("slow-exit", POOL, 2, "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "60"), true))
                    .create();
            Await.valueMatching(
                    "2 running pods",
                    WAIT,
                    () -> pods("slow-exit"),
                    l -> l.size() == 2
                            && l.stream()
                                    .allMatch(
                                            p -> "Running".equals(p.getStatus().getPhase())));

            k8s.batch().v1().jobs().inNamespace(NS).withName("slow-exit").delete();

            List<Pod> terminating = Await.valueMatching(
                    "pods terminating",
                    WAIT,
                    () -> pods("slow-exit"),
                    l -> l.size() == 2
                            && l.stream().allMatch(p -> p.getMetadata().getDeletionTimestamp() != null));
            assertThat(terminating).allSatisfy(p -> {
                assertThat(p.getStatus().getPhase()).isEqualTo("Running");
                assertThat(p.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(30L);
            });
            // their TPU nodes are not free meanwhile: a new TPU pod on the pool waits
            k8s.resource(job("next", POOL, 1, "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "0.2"), true))
                    .create();
            Await.valueMatching("the next pod pending", WAIT, () -> pods("next"), l -> l.size() == 1);
            assertThat(pods("next").get(0).getSpec().getNodeName()).isNull();

            Await.valueMatching("terminated pods gone", WAIT, () -> pods("slow-exit"), List::isEmpty);
            awaitCondition("next", "Complete");
        } finally {
            sim.kubernetesKnobs(PROJECT, LOCATION, CLUSTER).podExitTime(Duration.ZERO);
        }
    }

    @Test
    void aPodWhoseJobIsGoneIsGarbageCollectedAlsoWhenTheJobsDeletionEventNeverArrived() {
        // what a lost DELETED watch event leaves: the Job is gone, its pod (Pending on its image, on a node) is not
        Pod stray = new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata()
                .withName("lost-0-abcde")
                .withNamespace(NS)
                .addToLabels("controller-uid", "0000-gone")
                .addToLabels("batch.kubernetes.io/controller-uid", "0000-gone")
                .addToLabels("job-name", "lost")
                .addNewOwnerReference()
                .withApiVersion("batch/v1")
                .withKind("Job")
                .withName("lost")
                .withUid("0000-gone")
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("us-docker.pkg.dev/falcon/does-not-exist:1")
                .endContainer()
                .withRestartPolicy("Never")
                .endSpec()
                .build();
        k8s.pods().inNamespace(NS).resource(stray).create();

        Await.until(
                "the pod of the deleted Job garbage-collected",
                WAIT,
                () -> k8s.pods().inNamespace(NS).withName("lost-0-abcde").get() == null,
                () -> String.valueOf(
                        k8s.pods().inNamespace(NS).withName("lost-0-abcde").get()));
    }

    @Test
    void jobCreationsCanBeDeniedByTheApiServer() {
        sim.kubernetesKnobs(PROJECT, LOCATION, CLUSTER)
                .rejectNextJobCreations(1, 403, "Forbidden", "admission webhook \"deny.test\" denied the request: no");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> k8s.batch()
                        .v1()
                        .jobs()
                        .inNamespace(NS)
                        .resource(job("denied", POOL, 1, "img:1", Map.of(), false))
                        .create())
                .isInstanceOfSatisfying(io.fabric8.kubernetes.client.KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(403);
                    assertThat(e.getStatus().getMessage())
                            .isEqualTo("admission webhook \"deny.test\" denied the request: no");
                    assertThat(e.getStatus().getReason()).isEqualTo("Forbidden");
                });
        assertThat(k8s.batch().v1().jobs().inNamespace(NS).withName("denied").get())
                .isNull();

        // only the next one: the same Job is accepted afterwards
        k8s.batch()
                .v1()
                .jobs()
                .inNamespace(NS)
                .resource(job("denied", POOL, 1, "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "0.1"), false))
                .create();
        assertThat(k8s.batch().v1().jobs().inNamespace(NS).withName("denied").get())
                .isNotNull();
    }
}
