package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.cloud.compute.v1.ReservationsClient;
import com.google.cloud.compute.v1.ReservationsSettings;
import com.google.cloud.container.v1.ClusterManagerClient;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.falcon.fleetsim.ApiCalls.Api;
import io.falcon.fleetsim.ApiCalls.Call;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApiCallsTest {
    private static final String PROJECT = "falcon-test";
    private static final String LOCATION = "us-central1";
    private static final String CLUSTER = "edge-1";

    private static List<String> k8s(String method, String path) {
        return List.of(ApiCalls.kubernetesVerbAndResource(method, path));
    }

    @Test
    void kubernetesRequestsAreNamedByVerbAndResourceAsRbacNamesThem() {
        assertThat(k8s("GET", "/apis/batch/v1/namespaces/default/jobs/falcon-j1"))
                .containsExactly("get", "batch/jobs");
        assertThat(k8s("GET", "/apis/batch/v1/namespaces/default/jobs?labelSelector=managed-by%3Dfalcon"))
                .containsExactly("list", "batch/jobs");
        assertThat(k8s("GET", "/apis/batch/v1/namespaces/default/jobs?allowWatchBookmarks=true&watch=true"))
                .containsExactly("watch", "batch/jobs");
        assertThat(k8s("GET", "/api/v1/watch/namespaces/default/pods")).containsExactly("watch", "pods");
        assertThat(k8s("GET", "/api/v1/nodes?watch=1")).containsExactly("watch", "nodes");
        assertThat(k8s("GET", "/api/v1/nodes/n-1")).containsExactly("get", "nodes");
        assertThat(k8s("POST", "/api/v1/namespaces/cluster-system/configmaps")).containsExactly("create", "configmaps");
        assertThat(k8s("PUT", "/api/v1/namespaces/cluster-system/configmaps/cm"))
                .containsExactly("update", "configmaps");
        assertThat(k8s("PATCH", "/apis/batch/v1/namespaces/default/jobs/j/status"))
                .containsExactly("patch", "batch/jobs/status");
        assertThat(k8s("GET", "/api/v1/namespaces/default/pods/p/log")).containsExactly("get", "pods/log");
        assertThat(k8s("DELETE", "/api/v1/namespaces/default/services/s")).containsExactly("delete", "services");
        assertThat(k8s("DELETE", "/api/v1/namespaces/default/services"))
                .containsExactly("deletecollection", "services");
        assertThat(k8s("GET", "/api/v1/namespaces/default")).containsExactly("get", "namespaces");
        assertThat(k8s("GET", "/version")).containsExactly("get", "nonResourceURL:/version");
        assertThat(k8s("GET", "/apis")).containsExactly("get", "nonResourceURL:/apis");
    }

    @Test
    void kubernetesRequestsCarryTheNamespaceAndTheNamedObjectAsRbacScopesThem() {
        assertThat(ApiCalls.kubernetesRequest("GET", "/apis/batch/v1/namespaces/default/jobs/falcon-j1", "ex"))
                .isEqualTo(new ApiCalls.KubernetesRequest("get", "batch/jobs", "default", "falcon-j1", "ex"));
        // a list or watch that names one object through a metadata.name field selector (fabric8's withName().inform)
        assertThat(ApiCalls.kubernetesRequest(
                        "GET",
                        "/api/v1/namespaces/cluster-system/configmaps?fieldSelector=metadata.name%3Dclusterd-manual-info-cm"
                                + "&watch=true",
                        "ex"))
                .isEqualTo(new ApiCalls.KubernetesRequest(
                        "watch", "configmaps", "cluster-system", "clusterd-manual-info-cm", "ex"));
        // a selector that is not a name alone names nothing
        assertThat(ApiCalls.kubernetesRequest(
                                "GET",
                                "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da%2Cmetadata.namespace%3Dns",
                                "")
                        .name())
                .isEmpty();
        ApiCalls.KubernetesRequest nodes = ApiCalls.kubernetesRequest("GET", "/api/v1/nodes?watch=1", "");
        assertThat(nodes.namespace()).isEmpty();
        assertThat(nodes.group()).isEmpty();
        assertThat(nodes.plural()).isEqualTo("nodes");
        ApiCalls.KubernetesRequest status =
                ApiCalls.kubernetesRequest("PATCH", "/apis/batch/v1/namespaces/default/jobs/j/status", "");
        assertThat(status.group()).isEqualTo("batch");
        assertThat(status.plural()).isEqualTo("jobs/status");
        assertThat(status.name()).isEqualTo("j");
        assertThat(ApiCalls.kubernetesRequest("POST", "/api/v1/namespaces/cluster-system/configmaps", "")
                        .name())
                .isEmpty();
    }

    @Test
    void computePathsBecomeTemplates() {
        assertThat(ApiCalls.computeTemplate("/compute/v1/projects/p/zones/us-central1-a/reservations/r"))
                .isEqualTo("projects/{project}/zones/{zone}/reservations/{resource}");
        assertThat(ApiCalls.computeTemplate("/compute/v1/projects/p/zones/us-central1-a/reservations"))
                .isEqualTo("projects/{project}/zones/{zone}/reservations");
        assertThat(ApiCalls.computeTemplate("/compute/v1/projects/p/aggregated/reservations"))
                .isEqualTo("projects/{project}/aggregated/reservations");
        assertThat(ApiCalls.computeTemplate("/compute/v1/projects/p/regions/us-central1/resourcePolicies/pol"))
                .isEqualTo("projects/{project}/regions/{region}/resourcePolicies/{resource}");
        assertThat(ApiCalls.computeTemplate("/compute/v1/projects/p/zones/z/reservations/r/resize"))
                .isEqualTo("projects/{project}/zones/{zone}/reservations/{resource}/resize");
    }

    @Test
    void everyServerNotesTheCallsItServesWithTheirCaller() throws Exception {
        try (FleetSim sim = FleetSim.start(FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu7x")
                        .withReservation(new ReservationConfig("us-central1-a", "res", "tpu7x-standard-4t", 4, 0))));
                ClusterManagerClient gke = GkeClients.clusterManager(sim);
                ReservationsClient compute = ReservationsClient.create(ReservationsSettings.newBuilder()
                        .setEndpoint(sim.computeEndpoint())
                        .setCredentialsProvider(NoCredentialsProvider.create())
                        .build());
                KubernetesClient client = new KubernetesClientBuilder()
                        .withHttpClientFactory(new JdkHttpClientFactory())
                        .withConfig(new ConfigBuilder()
                                .withMasterUrl(sim.kubernetesUrl(PROJECT, LOCATION, CLUSTER))
                                .withUserAgent("test-client")
                                .build())
                        .build()) {
            gke.getCluster("projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + CLUSTER);
            compute.get(PROJECT, "us-central1-a", "res");
            client.configMaps()
                    .inNamespace("default")
                    .resource(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("cm")
                            .endMetadata()
                            .build())
                    .create();
            var watch = client.pods().inNamespace("default").watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, io.fabric8.kubernetes.api.model.Pod resource) {}

                @Override
                public void onClose(WatcherException cause) {}
            });
            // the sim's own client: not the test client's call
            sim.kubernetesClient(PROJECT, LOCATION, CLUSTER)
                    .secrets()
                    .inNamespace("default")
                    .list();

            ApiCalls calls = sim.apiCalls();
            Await.until(
                    "the pod watch noted",
                    Duration.ofSeconds(5),
                    () -> calls.distinct().stream().anyMatch(c -> c.method().equals("watch")),
                    () -> calls.distinct().toString());
            watch.close();

            List<String> byTestClient = calls.by("test-client"::equals).stream()
                    .map(Call::operation)
                    .toList();
            assertThat(byTestClient).containsExactlyInAnyOrder("KUBERNETES create configmaps", "KUBERNETES watch pods");
            assertThat(calls.by(ApiCalls.SIM_USER_AGENT::equals).stream().map(Call::operation))
                    .contains("KUBERNETES list secrets");
            assertThat(calls.distinct())
                    .anySatisfy(c -> {
                        assertThat(c.api()).isEqualTo(Api.GKE);
                        assertThat(c.method()).isEqualTo("google.container.v1.ClusterManager/GetCluster");
                        assertThat(c.caller()).isNotEmpty();
                    })
                    .anySatisfy(c -> {
                        assertThat(c.api()).isEqualTo(Api.COMPUTE);
                        assertThat(c.operation())
                                .isEqualTo("COMPUTE GET projects/{project}/zones/{zone}/reservations/{resource}");
                        assertThat(c.caller()).isNotEmpty();
                    });
            Call get = calls.distinct().stream()
                    .filter(c -> c.api() == Api.GKE)
                    .findFirst()
                    .orElseThrow();
            assertThat(calls.count(get)).isEqualTo(1);
        }
    }
}
