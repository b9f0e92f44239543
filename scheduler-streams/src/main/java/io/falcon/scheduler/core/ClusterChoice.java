package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.SupplyMode;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Seed section 3, with expected starts (issue 17): among the active clusters of the job's TPU type, prefer one
 * holding an idle node pool of the same topology (the job starts at once: no history-based estimate can beat that,
 * and history cannot tell a reuse from a creation in advance); else, when every candidate's queue has history
 * enough to tell, the one where the job is expected to start soonest (to the minute); else, and among equals, the
 * one with the shortest (cluster, topology) queue. Ties go to the smaller cluster id, so the choice is
 * deterministic. Without history on some candidate, the seed's rule alone decides, so a new cluster gets its share
 * and history of its own.
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
            ToIntFunction<ClusterRow> queueDepth,
            Function<ClusterRow, OptionalDouble> expectedWaitMillis) {
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
        Map<String, OptionalDouble> expected = new HashMap<>();
        eligible.forEach(c -> expected.put(c.id(), expectedWaitMillis.apply(c)));
        boolean byEstimate = expected.values().stream().allMatch(OptionalDouble::isPresent);
        Comparator<ClusterRow> preference = Comparator.comparing((ClusterRow c) -> !hasIdlePool.test(c))
                .thenComparingLong(
                        c -> byEstimate ? Math.round(expected.get(c.id()).getAsDouble() / 60_000) : 0)
                .thenComparingInt(queueDepth)
                .thenComparing(ClusterRow::id);
        return new Chosen(eligible.stream().min(preference).orElseThrow());
    }
}
