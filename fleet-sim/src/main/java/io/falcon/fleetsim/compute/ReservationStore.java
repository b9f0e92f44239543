package io.falcon.fleetsim.compute;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The reservations the Compute REST sim serves; tests and the GKE sim change them at runtime. */
public final class ReservationStore {

    private static final Logger log = LoggerFactory.getLogger(ReservationStore.class);

    private final ConcurrentMap<ReservationKey, SimulatedReservation> reservations = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(7_000_000_000_000_000_000L);
    private final Clock clock;

    public ReservationStore(Clock clock) {
        this.clock = clock;
    }

    /** Defines (or redefines) a reservation that only VMs naming it consume (specificReservationRequired). */
    public SimulatedReservation define(
            String project, String zone, String name, String machineType, long count, long inUseCount) {
        return define(project, zone, name, machineType, count, inUseCount, true);
    }

    /**
     * Defines (or redefines) a reservation; without specificRequired, any matching VM whose reservation affinity is
     * ANY (GKE's default) consumes it too.
     */
    public SimulatedReservation define(
            String project,
            String zone,
            String name,
            String machineType,
            long count,
            long inUseCount,
            boolean specificRequired) {
        ReservationKey key = new ReservationKey(project, zone, name);
        SimulatedReservation reservation = new SimulatedReservation(
                key, ids.incrementAndGet(), machineType, count, inUseCount, clock.instant(), specificRequired);
        reservations.put(key, reservation);
        log.info(
                "reservation defined: {} machineType={} count={} inUseCount={}",
                key.path(),
                machineType,
                count,
                inUseCount);
        return reservation;
    }

    public Optional<SimulatedReservation> get(String project, String zone, String name) {
        return Optional.ofNullable(reservations.get(new ReservationKey(project, zone, name)));
    }

    public List<SimulatedReservation> list(String project, String zone) {
        return reservations.values().stream()
                .filter(r -> r.key().project().equals(project) && r.key().zone().equals(zone))
                .sorted((a, b) -> a.key().name().compareTo(b.key().name()))
                .toList();
    }

    /** Every reservation of a project, in all zones, by zone then name. */
    public List<SimulatedReservation> all(String project) {
        return reservations.values().stream()
                .filter(r -> r.key().project().equals(project))
                .sorted(java.util.Comparator.comparing(
                                (SimulatedReservation r) -> r.key().zone())
                        .thenComparing(r -> r.key().name()))
                .toList();
    }

    public void setCount(String project, String zone, String name, long count) {
        update(project, zone, name, r -> r.withCount(count));
    }

    public void setInUseCount(String project, String zone, String name, long inUseCount) {
        update(project, zone, name, r -> r.withInUseCount(inUseCount));
    }

    /** Compute's specificReservationRequired of the reservation. */
    public void setSpecificRequired(String project, String zone, String name, boolean required) {
        update(project, zone, name, r -> r.withSpecificRequired(required));
    }

    /**
     * A reservation that VMs of this machine type, in this location (a zone, or a region and its zones), with GKE's
     * default ANY reservation affinity consume: one that does not require specific consumption and has room for them.
     */
    public Optional<SimulatedReservation> anyMatching(String project, String location, String machineType, long hosts) {
        return reservations.values().stream()
                .filter(r -> r.key().project().equals(project))
                .filter(r -> r.key().zone().equals(location) || r.key().zone().startsWith(location + "-"))
                .filter(r -> r.machineType().equals(machineType))
                .filter(r -> !r.specificRequired())
                .filter(r -> r.available() >= hosts)
                .min(java.util.Comparator.comparing(r -> r.key().path()));
    }

    /**
     * Consumes {@code hosts} VMs of a reservation if that many are free (the GKE sim calls this when a node pool
     * that targets the reservation comes up).
     *
     * @return false if the reservation is unknown or has too little free capacity
     */
    public boolean tryConsume(ReservationKey key, long hosts) {
        boolean[] consumed = {false};
        reservations.computeIfPresent(key, (k, r) -> {
            if (r.available() < hosts) {
                return r;
            }
            consumed[0] = true;
            return r.withInUseCount(r.inUseCount() + hosts);
        });
        return consumed[0];
    }

    /** Gives back VMs consumed by {@link #tryConsume}. */
    public void release(ReservationKey key, long hosts) {
        reservations.computeIfPresent(key, (k, r) -> r.withInUseCount(Math.max(0, r.inUseCount() - hosts)));
    }

    /** Reservations may live in any zone of a region; finds one by project and name. */
    public Optional<SimulatedReservation> findByName(String project, String name) {
        return reservations.values().stream()
                .filter(r -> r.key().project().equals(project) && r.key().name().equals(name))
                .findFirst();
    }

    private void update(
            String project, String zone, String name, java.util.function.UnaryOperator<SimulatedReservation> change) {
        ReservationKey key = new ReservationKey(project, zone, name);
        SimulatedReservation updated = reservations.computeIfPresent(key, (k, r) -> change.apply(r));
        if (updated == null) {
            throw new IllegalArgumentException("no such reservation: " + key.path());
        }
        log.info("reservation updated: {} count={} inUseCount={}", key.path(), updated.count(), updated.inUseCount());
    }
}
