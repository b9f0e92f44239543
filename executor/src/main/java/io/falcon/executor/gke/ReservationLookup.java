package io.falcon.executor.gke;

import com.google.api.gax.rpc.NotFoundException;
import com.google.cloud.compute.v1.AggregatedListReservationsRequest;
import com.google.cloud.compute.v1.Reservation;
import com.google.cloud.compute.v1.ReservationsClient;
import com.google.cloud.compute.v1.ReservationsScopedList;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.core.GkeApi.Capacity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Remaining capacity of a specific TPU reservation (count - inUseCount), from the Compute API. Reservations are
 * zonal while clusters are usually regional, so a bare name is looked up in the cluster's zone (zonal cluster) or
 * found by name across the project's zones (aggregated list), preferring zones of the cluster's region.
 */
public final class ReservationLookup {
    private static final Pattern ZONAL = Pattern.compile("projects/([^/]+)/zones/([^/]+)/reservations/([^/]+)");
    private static final Pattern SHARED = Pattern.compile("projects/([^/]+)/reservations/([^/]+)");

    private final ReservationsClient reservations;
    private final CapacityObserver observer;

    /** Told every capacity the lookup reads (the reservation-remaining gauge). */
    @FunctionalInterface
    public interface CapacityObserver {
        void observed(ClusterTarget cluster, String reservation, Capacity capacity);
    }

    public ReservationLookup(ReservationsClient reservations) {
        this(reservations, (cluster, reservation, capacity) -> {});
    }

    public ReservationLookup(ReservationsClient reservations, CapacityObserver observer) {
        this.reservations = reservations;
        this.observer = observer;
    }

    /** Thrown when no reservation of that name exists where the cluster could use it. */
    public static final class ReservationNotFoundException extends RuntimeException {
        public ReservationNotFoundException(String message) {
            super(message);
        }
    }

    /** A reservation's size in VMs; for TPU reservations one VM is one host of a slice. */

    /** Where to look for a reservation (pure). */
    record Where(String project, Optional<String> zone, String name) {}

    static Where where(ClusterTarget cluster, String reservation) {
        String r = reservation.trim();
        Matcher zonal = ZONAL.matcher(r);
        if (zonal.matches()) {
            return new Where(zonal.group(1), Optional.of(zonal.group(2)), zonal.group(3));
        }
        Matcher shared = SHARED.matcher(r);
        if (shared.matches()) {
            return new Where(shared.group(1), Optional.empty(), shared.group(2));
        }
        return new Where(
                cluster.project(), isZone(cluster.location()) ? Optional.of(cluster.location()) : Optional.empty(), r);
    }

    /** us-central1-a is a zone, us-central1 a region. */
    static boolean isZone(String location) {
        return location.matches("[a-z]+-[a-z]+\\d+-[a-z]");
    }

    static String region(String location) {
        return isZone(location) ? location.substring(0, location.lastIndexOf('-')) : location;
    }

    /**
     * The capacity of the reservation the cluster's pools would consume.
     *
     * @throws ReservationNotFoundException when it does not exist (in the cluster's zone or region)
     */
    public Capacity capacity(ClusterTarget cluster, String reservation) {
        Capacity capacity = lookUp(cluster, reservation);
        observer.observed(cluster, reservation, capacity);
        return capacity;
    }

    private Capacity lookUp(ClusterTarget cluster, String reservation) {
        Where where = where(cluster, reservation);
        if (where.zone().isPresent()) {
            try {
                return capacityOf(reservations.get(where.project(), where.zone().get(), where.name()));
            } catch (NotFoundException e) {
                throw new ReservationNotFoundException("reservation '" + where.name() + "' not found in projects/"
                        + where.project() + "/zones/" + where.zone().get() + ": " + GkeErrors.describe(e));
            }
        }
        String region = region(cluster.location());
        List<Reservation> inRegion = new ArrayList<>();
        List<Reservation> elsewhere = new ArrayList<>();
        AggregatedListReservationsRequest request = AggregatedListReservationsRequest.newBuilder()
                .setProject(where.project())
                .setFilter("name = \"" + where.name() + "\"")
                .build();
        for (Map.Entry<String, ReservationsScopedList> scope :
                reservations.aggregatedList(request).iterateAll()) {
            String zone =
                    scope.getKey().startsWith("zones/") ? scope.getKey().substring("zones/".length()) : scope.getKey();
            for (Reservation r : scope.getValue().getReservationsList()) {
                if (!r.getName().equals(where.name())) {
                    continue;
                }
                (zone.equals(region) || zone.startsWith(region + "-") ? inRegion : elsewhere).add(r);
            }
        }
        if (!inRegion.isEmpty()) {
            return capacityOf(inRegion.get(0));
        }
        if (!elsewhere.isEmpty()) {
            return capacityOf(elsewhere.get(0));
        }
        throw new ReservationNotFoundException("reservation '" + where.name() + "' not found in project "
                + where.project() + " (region " + region + ")");
    }

    private static Capacity capacityOf(Reservation r) {
        var sku = r.getSpecificReservation();
        String path = r.getSelfLink().isEmpty()
                ? r.getName()
                : r.getSelfLink().replaceFirst("^https://[^/]+/compute/v1/", "");
        return new Capacity(path, sku.getCount(), sku.getInUseCount());
    }
}
