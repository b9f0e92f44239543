package io.falcon.executor.gke;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.executor.SimHarness;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The real ReservationsClient against fleet-sim's Compute API; every capacity read reaches the observer. */
class ReservationLookupIT {
    @Test
    void readsCountMinusInUseAndTellsTheObserver() throws Exception {
        try (SimHarness h = new SimHarness(Map.of())) {
            h.sim.reservations().setInUseCount(SimHarness.PROJECT, SimHarness.LOCATION, "res-a", 3);
            List<Long> observed = new ArrayList<>();
            ReservationLookup lookup = new ReservationLookup(
                    h.reservationsClient, (cluster, reservation, capacity) -> observed.add(capacity.remaining()));

            io.falcon.executor.core.GkeApi.Capacity capacity = lookup.capacity(SimHarness.cluster(), "res-a");

            assertThat(capacity.count()).isEqualTo(8);
            assertThat(capacity.remaining()).isEqualTo(5);
            assertThat(observed).containsExactly(5L);
            assertThatThrownBy(() -> lookup.capacity(SimHarness.cluster(), "no-such-reservation"))
                    .isInstanceOf(ReservationLookup.ReservationNotFoundException.class);
            assertThat(observed).containsExactly(5L);
        }
    }
}
