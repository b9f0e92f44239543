package io.falcon.fleetsim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.rpc.NotFoundException;
import com.google.cloud.compute.v1.Reservation;
import com.google.cloud.compute.v1.ReservationsClient;
import com.google.cloud.compute.v1.ReservationsSettings;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.ReservationAffinity;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Drives the Compute reservations sim through the real google-cloud-compute client (REST). */
class ComputeReservationsTest {

    private static final String PROJECT = "falcon-test";
    private static final String ZONE = "us-central1-a";

    private static FleetSim sim;
    private static ReservationsClient reservations;

    @BeforeAll
    static void start() throws IOException {
        sim = FleetSim.start(
                FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, "us-central1", "edge-1", "tpu-v5-lite-podslice")
                        .withReservation(new ReservationConfig(ZONE, "tpu-res", "ct5lp-hightpu-4t", 4, 1))));
        reservations = ReservationsClient.create(ReservationsSettings.newBuilder()
                .setEndpoint(sim.computeEndpoint())
                .setCredentialsProvider(NoCredentialsProvider.create())
                .build());
    }

    @AfterAll
    static void stop() {
        if (reservations != null) {
            reservations.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    @Test
    void getReturnsCountAndInUseCount() {
        Reservation reservation = reservations.get(PROJECT, ZONE, "tpu-res");

        assertThat(reservation.getName()).isEqualTo("tpu-res");
        assertThat(reservation.getZone()).endsWith("/zones/" + ZONE);
        assertThat(reservation.getStatus()).isEqualTo("READY");
        assertThat(reservation.getSpecificReservation().getCount()).isEqualTo(4);
        assertThat(reservation.getSpecificReservation().getInUseCount()).isEqualTo(1);
        assertThat(reservation.getSpecificReservation().getInstanceProperties().getMachineType())
                .isEqualTo("ct5lp-hightpu-4t");
    }

    @Test
    void countsChangedFromJavaAreServed() {
        sim.reservations().define(PROJECT, ZONE, "changing", "ct5lp-hightpu-4t", 2, 0);
        sim.reservations().setCount(PROJECT, ZONE, "changing", 8);
        sim.reservations().setInUseCount(PROJECT, ZONE, "changing", 5);

        Reservation reservation = reservations.get(PROJECT, ZONE, "changing");

        assertThat(reservation.getSpecificReservation().getCount()).isEqualTo(8);
        assertThat(reservation.getSpecificReservation().getInUseCount()).isEqualTo(5);
        assertThat(reservations.list(PROJECT, ZONE).iterateAll())
                .extracting(Reservation::getName)
                .contains("tpu-res", "changing");
    }

    @Test
    void aggregatedListFindsReservationsByNameAcrossZones() {
        sim.reservations().define(PROJECT, "us-central1-b", "agg-res", "ct5lp-hightpu-4t", 6, 2);
        sim.reservations().define(PROJECT, "europe-west4-a", "agg-other", "ct5lp-hightpu-4t", 1, 0);

        var all = new java.util.LinkedHashMap<String, java.util.List<String>>();
        for (var scope : reservations.aggregatedList(PROJECT).iterateAll()) {
            all.put(
                    scope.getKey(),
                    scope.getValue().getReservationsList().stream()
                            .map(Reservation::getName)
                            .toList());
        }
        assertThat(all)
                .containsEntry("zones/us-central1-b", java.util.List.of("agg-res"))
                .containsEntry("zones/europe-west4-a", java.util.List.of("agg-other"))
                .containsKey("zones/" + ZONE);

        var filtered = new java.util.ArrayList<Reservation>();
        for (var scope : reservations
                .aggregatedList(com.google.cloud.compute.v1.AggregatedListReservationsRequest.newBuilder()
                        .setProject(PROJECT)
                        .setFilter("name = \"agg-res\"")
                        .build())
                .iterateAll()) {
            filtered.addAll(scope.getValue().getReservationsList());
        }
        assertThat(filtered).singleElement().satisfies(r -> {
            assertThat(r.getZone()).endsWith("/zones/us-central1-b");
            assertThat(r.getSpecificReservation().getCount()).isEqualTo(6);
            assertThat(r.getSpecificReservation().getInUseCount()).isEqualTo(2);
        });
    }

    @Test
    void unknownReservationIsNotFound() {
        assertThatThrownBy(() -> reservations.get(PROJECT, ZONE, "missing"))
                .isInstanceOf(NotFoundException.class)
                // gax keeps the Google error body on the underlying HttpResponseException.
                .rootCause()
                .hasMessageContaining("The resource 'projects/falcon-test/zones/us-central1-a/reservations/"
                        + "missing' was not found");
    }

    @Test
    void nodePoolOnReservationConsumesAndReleasesCapacity() throws Exception {
        sim.reservations().define(PROJECT, ZONE, "pool-res", "ct5lp-hightpu-4t", 2, 0);
        try (var gke = GkeClients.clusterManager(sim)) {
            String cluster = "projects/" + PROJECT + "/locations/us-central1/clusters/edge-1";
            NodePool pool = NodePool.newBuilder()
                    .setName("reserved")
                    .setInitialNodeCount(2)
                    .setConfig(NodeConfig.newBuilder()
                            .setMachineType("ct5lp-hightpu-4t")
                            .setReservationAffinity(ReservationAffinity.newBuilder()
                                    .setConsumeReservationType(ReservationAffinity.Type.SPECIFIC_RESERVATION)
                                    .setKey("compute.googleapis.com/reservation-name")
                                    .addValues("pool-res")))
                    .build();

            GkeClients.awaitDone(gke, PROJECT, "us-central1", gke.createNodePool(cluster, pool));
            assertThat(reservations
                            .get(PROJECT, ZONE, "pool-res")
                            .getSpecificReservation()
                            .getInUseCount())
                    .isEqualTo(2);

            GkeClients.awaitDone(gke, PROJECT, "us-central1", gke.deleteNodePool(cluster + "/nodePools/reserved"));
            assertThat(reservations
                            .get(PROJECT, ZONE, "pool-res")
                            .getSpecificReservation()
                            .getInUseCount())
                    .isEqualTo(0);

            // A pool asking for a reservation that does not exist fails like an invalid reservation.
            var done = GkeClients.awaitDone(
                    gke,
                    PROJECT,
                    "us-central1",
                    gke.createNodePool(
                            cluster,
                            pool.toBuilder()
                                    .setName("bad-res")
                                    .setConfig(pool.getConfig().toBuilder()
                                            .setReservationAffinity(
                                                    pool.getConfig().getReservationAffinity().toBuilder()
                                                            .setValues(0, "nope")))
                                    .build()));
            assertThat(done.getError().getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT.value());
        }
    }
}
