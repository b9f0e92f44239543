package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.SupplyMode;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Seed section 3: among the active clusters of the job's TPU type, prefer one holding an idle node pool of the
 * same topology (saves the 5-10 minutes of creation), else the one with the shortest (cluster, topology) queue.
 * Ties go to the smaller cluster id, so the choice is deterministic.
 */
public final class ClusterChoice {
    private ClusterChoice() {}

    public sealed interface Result {}

    public record Chosen(ClusterRow cluster) implements Result {}

    public record NoneEligible(String why) implements Result {}

    public static Result choose(
            String tpuType,
            Optional<SupplyMode> requestedSupply,
            Collection<ClusterRow> clusters,
            Predicate<ClusterRow> hasIdlePool,
            ToIntFunction<ClusterRow> queueDepth) {
        var ofType = clusters.stream().filter(c -> c.tpuType().equals(tpuType)).toList();
        if (ofType.isEmpty()) {
            return new NoneEligible("no cluster is registered for it");
        }
        var active = ofType.stream().filter(ClusterRow::isActive).toList();
        if (active.isEmpty()) {
            return new NoneEligible("all " + ofType.size() + " of its clusters are in maintenance or offline");
        }
        var eligible = requestedSupply.filter(SupplyMode.RESERVATION::equals).isPresent()
                ? active.stream()
                        .filter(c ->
                                c.defaultReservation().filter(r -> !r.isBlank()).isPresent())
                        .toList()
                : active;
        if (eligible.isEmpty()) {
            return new NoneEligible(
                    "supply_mode=reservation but none of its active clusters has a default_reservation");
        }
        Comparator<ClusterRow> preference = Comparator.comparing((ClusterRow c) -> !hasIdlePool.test(c))
                .thenComparingInt(queueDepth)
                .thenComparing(ClusterRow::id);
        return new Chosen(eligible.stream().min(preference).orElseThrow());
    }
}
