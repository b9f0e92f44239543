package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.decision.Decision;
import io.falcon.events.executor.SupplyMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
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

    /** The choice, and every cluster of the job's type as it was weighed (for the decision ledger). */
    public sealed interface Result {
        List<Decision.Candidate> candidates();

        /** How many clusters of the type were weighed (candidates lists at most {@link Decision#MAX_CANDIDATES}). */
        int weighed();
    }

    public record Chosen(ClusterRow cluster, List<Decision.Candidate> candidates, int weighed) implements Result {}

    public record NoneEligible(String why, List<Decision.Candidate> candidates, int weighed) implements Result {}

    public static Result choose(
            String tpuType,
            Optional<SupplyMode> requestedSupply,
            Collection<ClusterRow> clusters,
            Predicate<ClusterRow> hasIdlePool,
            ToIntFunction<ClusterRow> queueDepth,
            Function<ClusterRow, OptionalDouble> expectedWaitMillis,
            Instant now) {
        return choose(
                tpuType,
                requestedSupply,
                clusters,
                hasIdlePool,
                queueDepth,
                expectedWaitMillis,
                c -> Optional.empty(),
                now);
    }

    /**
     * As above; avoided says why a cluster that keeps refusing work is avoided for now (its health, {@link
     * ClusterHealth}), and such a cluster is not chosen.
     */
    public static Result choose(
            String tpuType,
            Optional<SupplyMode> requestedSupply,
            Collection<ClusterRow> clusters,
            Predicate<ClusterRow> hasIdlePool,
            ToIntFunction<ClusterRow> queueDepth,
            Function<ClusterRow, OptionalDouble> expectedWaitMillis,
            Function<ClusterRow, Optional<String>> avoided,
            Instant now) {
        // 1. The clusters of the job's TPU type; none at all is the one case without candidates.
        var ofType = clusters.stream()
                .filter(c -> c.tpuType().equals(tpuType))
                .sorted(Comparator.comparing(ClusterRow::id))
                .toList();
        if (ofType.isEmpty()) {
            return new NoneEligible("no cluster is registered for it", List.of(), 0);
        }
        // 2. Only active clusters take new jobs; 3. supply_mode=reservation needs a default_reservation.
        boolean wantsReservation =
                requestedSupply.filter(SupplyMode.RESERVATION::equals).isPresent();
        Map<String, Decision.Outcome> excluded = new HashMap<>();
        Map<String, String> avoidedWhy = new HashMap<>();
        for (ClusterRow c : ofType) {
            if (!c.isActive()) {
                excluded.put(c.id(), Decision.Outcome.NOT_ACTIVE);
            } else if (wantsReservation
                    && c.defaultReservation().filter(r -> !r.isBlank()).isEmpty()) {
                excluded.put(c.id(), Decision.Outcome.NO_DEFAULT_RESERVATION);
            } else {
                avoided.apply(c).ifPresent(why -> {
                    excluded.put(c.id(), Decision.Outcome.AVOIDED);
                    avoidedWhy.put(c.id(), why);
                });
            }
        }
        var eligible =
                ofType.stream().filter(c -> !excluded.containsKey(c.id())).toList();
        // 4. Among the eligible: an idle pool of the topology, then the soonest expected start (when every one has
        // history), then the shortest queue, then the id.
        Map<String, OptionalDouble> expected = new HashMap<>();
        Map<String, Boolean> idle = new HashMap<>();
        eligible.forEach(c -> {
            expected.put(c.id(), expectedWaitMillis.apply(c));
            idle.put(c.id(), hasIdlePool.test(c));
        });
        boolean byEstimate = !eligible.isEmpty() && expected.values().stream().allMatch(OptionalDouble::isPresent);
        Comparator<ClusterRow> preference = Comparator.comparing((ClusterRow c) -> !idle.get(c.id()))
                .thenComparingLong(
                        c -> byEstimate ? Math.round(expected.get(c.id()).getAsDouble() / 60_000) : 0)
                .thenComparingInt(queueDepth)
                .thenComparing(ClusterRow::id);
        Optional<ClusterRow> best = eligible.stream().min(preference);
        // 5. Each cluster as it was weighed, with why it was not taken.
        List<Decision.Candidate> candidates = new ArrayList<>(ofType.size());
        for (ClusterRow c : ofType) {
            Decision.Outcome outcome = excluded.getOrDefault(
                    c.id(),
                    best.filter(b -> b.id().equals(c.id())).isPresent()
                            ? Decision.Outcome.CHOSEN
                            : Decision.Outcome.LESS_PREFERRED);
            boolean weighed = !excluded.containsKey(c.id());
            int depth = weighed ? queueDepth.applyAsInt(c) : 0;
            Optional<Instant> start = weighed && expected.get(c.id()).isPresent()
                    ? Optional.of(now.plusMillis(Math.round(expected.get(c.id()).getAsDouble())))
                    : Optional.empty();
            String why = switch (outcome) {
                case NOT_ACTIVE -> "status " + c.status().wireName() + ": takes no new jobs";
                case NO_DEFAULT_RESERVATION -> "supply_mode=reservation but it has no default_reservation";
                case AVOIDED -> avoidedWhy.get(c.id());
                case CHOSEN ->
                    idle.get(c.id())
                            ? "holds an idle node pool of the topology"
                            : byEstimate ? "soonest expected start" : "shortest queue (" + depth + " waiting)";
                case LESS_PREFERRED ->
                    best.map(b -> idle.get(b.id())
                                    ? "no idle node pool of the topology, " + b.id() + " has one"
                                    : byEstimate
                                            ? "later expected start than on " + b.id()
                                            : depth + " waiting against " + queueDepth.applyAsInt(b) + " on " + b.id())
                            .orElse("");
            };
            candidates.add(new Decision.Candidate(
                    c.id(),
                    c.status().wireName(),
                    depth,
                    weighed && idle.get(c.id()),
                    c.defaultReservation().filter(r -> !r.isBlank()),
                    start,
                    outcome,
                    why));
        }
        // 6. Many clusters of a type: record the chosen one, those ruled out, then the best of the others.
        if (candidates.size() > Decision.MAX_CANDIDATES) {
            Map<String, ClusterRow> byId = new HashMap<>();
            ofType.forEach(c -> byId.put(c.id(), c));
            Comparator<Decision.Candidate> worth = Comparator.comparingInt(
                            (Decision.Candidate c) -> switch (c.outcome()) {
                                case CHOSEN -> 0;
                                case NOT_ACTIVE, NO_DEFAULT_RESERVATION, AVOIDED -> 1;
                                case LESS_PREFERRED -> 2;
                            })
                    .thenComparing((a, b) -> a.outcome() == Decision.Outcome.LESS_PREFERRED
                            ? preference.compare(byId.get(a.clusterId()), byId.get(b.clusterId()))
                            : a.clusterId().compareTo(b.clusterId()));
            candidates.sort(worth);
            candidates = new ArrayList<>(candidates.subList(0, Decision.MAX_CANDIDATES));
        }
        int weighed = ofType.size();
        if (best.isEmpty()) {
            String why;
            if (excluded.values().stream().allMatch(Decision.Outcome.NOT_ACTIVE::equals)) {
                why = "all " + ofType.size() + " of its clusters are in maintenance or offline";
            } else if (excluded.containsValue(Decision.Outcome.AVOIDED)) {
                why = "its clusters keep refusing work and are avoided for now ("
                        + avoidedWhy.entrySet().stream()
                                .sorted(Map.Entry.comparingByKey())
                                .map(e -> e.getKey() + ": " + e.getValue())
                                .collect(java.util.stream.Collectors.joining("; "))
                        + ")";
            } else {
                why = "supply_mode=reservation but none of its active clusters has a default_reservation";
            }
            return new NoneEligible(why, List.copyOf(candidates), weighed);
        }
        return new Chosen(best.get(), List.copyOf(candidates), weighed);
    }
}
