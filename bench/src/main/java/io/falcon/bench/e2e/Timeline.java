package io.falcon.bench.e2e;

import io.falcon.fleetsim.FleetMilestones.Milestone;
import io.falcon.fleetsim.FleetMilestones.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

/** Everything the fleet announced (server-side times) and when each job was INSERTed (the harness's clock). */
final class Timeline {
    private final ConcurrentLinkedQueue<Milestone> milestones = new ConcurrentLinkedQueue<>();
    private final Map<String, Instant> inserted = new ConcurrentHashMap<>();

    void add(Milestone m) {
        milestones.add(m);
    }

    void inserted(String jobId, Instant at) {
        inserted.put(jobId, at);
    }

    Optional<Instant> insertedAt(String jobId) {
        return Optional.ofNullable(inserted.get(jobId));
    }

    /** A snapshot, in time order. */
    List<Milestone> snapshot() {
        List<Milestone> all = new ArrayList<>(milestones);
        all.sort(Comparator.comparing(Milestone::at));
        return all;
    }

    /** A snapshot indexed by job and by pool. */
    Index index() {
        return new Index(snapshot());
    }

    /** Milestones by job (the first of each type) and by pool (all, in time order). */
    static final class Index {
        final List<Milestone> all;
        private final Map<String, Map<Type, Milestone>> firstByJob = new java.util.HashMap<>();
        private final Map<String, List<Milestone>> byPool = new java.util.HashMap<>();

        Index(List<Milestone> all) {
            this.all = all;
            for (Milestone m : all) {
                m.job()
                        .ifPresent(j -> firstByJob
                                .computeIfAbsent(j, k -> new java.util.EnumMap<>(Type.class))
                                .putIfAbsent(m.type(), m));
                m.pool()
                        .ifPresent(p -> byPool.computeIfAbsent(m.cluster() + "/" + p, k -> new ArrayList<>())
                                .add(m));
            }
        }

        Optional<Milestone> first(String jobId, Type type) {
            return Optional.ofNullable(firstByJob.getOrDefault(jobId, Map.of()).get(type));
        }

        /** Everything that happened to a pool (its create, nodes, the Jobs on it, its delete), in time order. */
        List<Milestone> pool(String cluster, String pool) {
            return byPool.getOrDefault(cluster + "/" + pool, List.of());
        }

        List<Milestone> of(Predicate<Milestone> which) {
            return all.stream().filter(which).toList();
        }
    }

    long count(Type type, Predicate<Milestone> which) {
        return milestones.stream()
                .filter(m -> m.type() == type && which.test(m))
                .count();
    }
}
