package io.falcon.console.view;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The fleet: every cluster with what Falcon knows of it. */
public record FleetPage(List<Card> clusters, int isolatedDevices, int jobsHeld, Instant at) {
    public FleetPage {
        clusters = List.copyOf(clusters);
    }

    /**
     * One cluster: its row, its node pools in use (by topology and supply mode, reservation pools counted apart),
     * the ledger's latest word on its reservation running short, its isolated devices.
     */
    public record Card(
            ClusterInfo cluster,
            int activePools,
            int reservationPoolsInUse,
            Optional<String> capacityNote,
            Reservation reservation,
            Health health,
            List<PoolGroup> poolGroups,
            List<IsolatedDevice> isolated) {
        public Card {
            poolGroups = List.copyOf(poolGroups);
            isolated = List.copyOf(isolated);
        }
    }

    /**
     * The cluster's default reservation as far as Falcon's topics tell it: its count and how much of it is in use
     * (all tenants) as the executor last read them, and remaining = count - in use, or what a later shortage said
     * ("unknown" until the executor has read it once); in use by Falcon is its node pools on the reservation.
     */
    public record Reservation(String count, String inUse, String remaining) {}

    /**
     * The cluster's health: {@code state} one of healthy, refusing (work refused since work last went through there),
     * avoided (the scheduler sends it no work for a cool-down), not-active, unknown; {@code detail} says why and when.
     */
    public record Health(String state, String detail) {}

    public record PoolGroup(String topology, String supplyMode, int count) {}

    public record IsolatedDevice(String node, String device, String codes, Instant since) {
        private static final java.time.format.DateTimeFormatter CLOCK = java.time.format.DateTimeFormatter.ofPattern(
                        "MM-dd HH:mm:ss 'UTC'")
                .withZone(java.time.ZoneOffset.UTC);

        /** When it was isolated last, as a person reads it ("12-02 10:00:00 UTC"); unknown without a detail. */
        public String sinceText() {
            return since.equals(Instant.EPOCH) ? "unknown" : CLOCK.format(since);
        }
    }
}
