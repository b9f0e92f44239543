package io.falcon.executor.gke;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ClusterTarget;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReservationLookupTest {
    private static final ClusterTarget REGIONAL = new ClusterTarget("c", "edge", "proj", "us-central1", "v6e", "b");
    private static final ClusterTarget ZONAL = new ClusterTarget("c", "edge", "proj", "us-east5-b", "v6e", "b");

    @Test
    void freeSlicesAreWholeSlicesOfTheJobsHosts() {
        var capacity = new io.falcon.executor.core.GkeApi.Capacity("r", 8, 3);
        assertThat(capacity.remaining()).isEqualTo(5);
        assertThat(capacity.freeSlices(1)).isEqualTo(5);
        assertThat(capacity.freeSlices(2)).isEqualTo(2);
        assertThat(capacity.freeSlices(4)).isEqualTo(1);
        assertThat(capacity.freeSlices(8)).isZero();
        assertThat(new io.falcon.executor.core.GkeApi.Capacity("r", 2, 5).freeSlices(1))
                .isZero(); // over-consumed
    }

    @Test
    void whereToLook() {
        assertThat(ReservationLookup.where(REGIONAL, "res-a"))
                .isEqualTo(new ReservationLookup.Where("proj", Optional.empty(), "res-a"));
        assertThat(ReservationLookup.where(ZONAL, "res-a"))
                .isEqualTo(new ReservationLookup.Where("proj", Optional.of("us-east5-b"), "res-a"));
        assertThat(ReservationLookup.where(REGIONAL, "projects/owner/zones/us-central1-c/reservations/shared"))
                .isEqualTo(new ReservationLookup.Where("owner", Optional.of("us-central1-c"), "shared"));
        assertThat(ReservationLookup.where(REGIONAL, "projects/owner/reservations/shared"))
                .isEqualTo(new ReservationLookup.Where("owner", Optional.empty(), "shared"));
    }

    @Test
    void zonesAndRegions() {
        assertThat(ReservationLookup.isZone("us-central1-a")).isTrue();
        assertThat(ReservationLookup.isZone("us-central1")).isFalse();
        assertThat(ReservationLookup.region("europe-west4-b")).isEqualTo("europe-west4");
        assertThat(ReservationLookup.region("europe-west4")).isEqualTo("europe-west4");
    }
}
