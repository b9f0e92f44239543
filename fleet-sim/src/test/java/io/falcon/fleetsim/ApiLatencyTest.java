package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.container.v1.ClusterManagerClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** fleet-sim's APIs answer after the latency a harness sets, through the real clients, and at once by default. */
class ApiLatencyTest {
    private static final String PROJECT = "falcon-test";
    private static final String LOCATION = "us-central1";
    private static final String CLUSTER = "edge-1";

    private static FleetSim sim;
    private static ClusterManagerClient gke;

    @BeforeAll
    static void start() {
        sim = FleetSim.start(
                FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu-v5-lite-podslice")));
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

    private static long millisOf(Runnable call) {
        long start = System.nanoTime();
        call.run();
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Test
    void aGkeCallAndAKubernetesRequestTakeAtLeastTheirLatency() {
        String cluster = "projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + CLUSTER;
        String url = sim.kubernetesClient(PROJECT, LOCATION, CLUSTER)
                .getConfiguration()
                .getMasterUrl();
        try (KubernetesClient outsider = new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                .withConfig(new io.fabric8.kubernetes.client.ConfigBuilder()
                        .withMasterUrl(url)
                        .withUserAgent("falcon-executor")
                        .build())
                .build()) {
            gke.listNodePools(cluster); // connections up before anything is timed
            outsider.batch().v1().jobs().inNamespace("default").list();

            sim.apiLatency().gke(Duration.ofMillis(400)).kubernetes(Duration.ofMillis(250));
            try {
                assertThat(millisOf(() -> gke.listNodePools(cluster))).isGreaterThanOrEqualTo(400);
                assertThat(millisOf(() -> outsider.batch()
                                .v1()
                                .jobs()
                                .inNamespace("default")
                                .list()))
                        .isGreaterThanOrEqualTo(250);
            } finally {
                sim.apiLatency().gke(Duration.ZERO).kubernetes(Duration.ZERO);
            }
        }
    }

    /**
     * fleet-sim's own requests (kubelets registering nodes, the Job controller writing status) stand for work inside
     * the cluster, which fleet-sim times itself: a harness's latency must not slow them, or every node of every pool
     * would register one network round trip after another on the fleet's one thread.
     */
    @Test
    void theSimulatorsOwnRequestsDoNotPayTheLatency() {
        KubernetesClient own = sim.kubernetesClient(PROJECT, LOCATION, CLUSTER);
        own.batch().v1().jobs().inNamespace("default").list();
        sim.apiLatency().kubernetes(Duration.ofMillis(2000));
        try {
            assertThat(millisOf(
                            () -> own.batch().v1().jobs().inNamespace("default").list()))
                    .isLessThan(2000);
        } finally {
            sim.apiLatency().kubernetes(Duration.ZERO);
        }
    }
}
