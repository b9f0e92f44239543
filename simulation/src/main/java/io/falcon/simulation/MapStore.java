package io.falcon.simulation;

import io.falcon.events.JsonSerde;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.scheduler.core.JobDeletion;
import io.falcon.scheduler.core.NodePool;
import io.falcon.scheduler.core.QueueHistory;
import io.falcon.scheduler.core.RetiredJobs;
import io.falcon.scheduler.core.ScheduledJob;
import io.falcon.scheduler.core.SchedulerStore;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/** The scheduler's stores as sorted maps: a transaction's working copy, or the committed changelog. */
final class MapStore {
    private final MapTable<ScheduledJob> jobs;
    private final MapTable<NodePool> pools;
    private final MapTable<ClusterRow> clusters;
    private final MapTable<String> queues;
    private final MapTable<JobDeletion> deletions;
    private final MapTable<QueueHistory> histories;
    private final MapTable<ScheduledJob> retired;
    /** The operator's switches (the retry switch), kept as the scheduler's controls store keeps them. */
    private final MapTable<io.falcon.events.control.RetrySwitch> controls;

    MapStore() {
        this(
                new MapTable<>(),
                new MapTable<>(),
                new MapTable<>(),
                new MapTable<>(),
                new MapTable<>(),
                new MapTable<>(),
                new MapTable<>(),
                new MapTable<>());
    }

    private MapStore(
            MapTable<ScheduledJob> jobs,
            MapTable<NodePool> pools,
            MapTable<ClusterRow> clusters,
            MapTable<String> queues,
            MapTable<JobDeletion> deletions,
            MapTable<QueueHistory> histories,
            MapTable<ScheduledJob> retired,
            MapTable<io.falcon.events.control.RetrySwitch> controls) {
        this.histories = histories;
        this.jobs = jobs;
        this.retired = retired;
        this.pools = pools;
        this.clusters = clusters;
        this.queues = queues;
        this.deletions = deletions;
        this.controls = controls;
    }

    /** The same tables as the scheduler's persist and restore see them. */
    SchedulerStore store() {
        return new SchedulerStore(
                jobs, pools, clusters, queues, deletions, histories, new RetiredTable(retired), controls);
    }

    /** A copy (values are immutable records, so sharing them is safe). */
    MapStore copy() {
        return new MapStore(
                jobs.copy(UnaryOperator.identity()),
                pools.copy(UnaryOperator.identity()),
                clusters.copy(UnaryOperator.identity()),
                queues.copy(UnaryOperator.identity()),
                deletions.copy(UnaryOperator.identity()),
                histories.copy(UnaryOperator.identity()),
                retired.copy(UnaryOperator.identity()),
                controls.copy(UnaryOperator.identity()));
    }

    /**
     * A copy whose every value went through the JSON serde the changelogged stores use, as a restore from the
     * changelog would see it: a value that does not survive the round trip fails the run.
     */
    MapStore roundTrip() {
        return new MapStore(
                jobs.copy(through(JsonSerde.of(ScheduledJob.class))),
                pools.copy(through(JsonSerde.of(NodePool.class))),
                clusters.copy(through(JsonSerde.of(ClusterRow.class))),
                queues.copy(UnaryOperator.identity()),
                deletions.copy(through(JsonSerde.of(JobDeletion.class))),
                histories.copy(through(JsonSerde.of(QueueHistory.class))),
                retired.copy(through(JsonSerde.of(ScheduledJob.class))),
                controls.copy(through(JsonSerde.of(io.falcon.events.control.RetrySwitch.class))));
    }

    private static <V> UnaryOperator<V> through(JsonSerde<V> serde) {
        return value -> {
            V back = serde.fromBytes(serde.toBytes(value));
            if (!back.equals(value)) {
                throw new IllegalStateException("store value changed through JSON: " + value + " -> " + back);
            }
            return back;
        };
    }

    /** Every job the stores hold: the live ones and the finished ones still retained. */
    Map<String, ScheduledJob> jobMap() {
        Map<String, ScheduledJob> all = new TreeMap<>(retired.map);
        all.putAll(jobs.map);
        return all;
    }

    /** One job, live or retired, without copying the tables. */
    Optional<ScheduledJob> job(String id) {
        return Optional.ofNullable(jobs.map.get(id)).or(() -> Optional.ofNullable(retired.map.get(id)));
    }

    /** The live job table alone (the retirement invariant reads it). */
    Map<String, ScheduledJob> liveJobMap() {
        return jobs.map;
    }

    /** The retired store of the simulation: the core applies the retention on every lookup. */
    private record RetiredTable(MapTable<ScheduledJob> table) implements RetiredJobs {
        @Override
        public void put(ScheduledJob done) {
            table.put(done.id(), done);
        }

        @Override
        public Optional<ScheduledJob> get(String jobId) {
            return Optional.ofNullable(table.map.get(jobId));
        }
    }

    private static final class MapTable<V> implements SchedulerStore.Table<V> {
        final TreeMap<String, V> map = new TreeMap<>();

        MapTable<V> copy(UnaryOperator<V> each) {
            MapTable<V> copy = new MapTable<>();
            map.forEach((k, v) -> copy.map.put(k, each.apply(v)));
            return copy;
        }

        @Override
        public void put(String key, V value) {
            map.put(key, value);
        }

        @Override
        public void delete(String key) {
            map.remove(key);
        }

        @Override
        public void forEach(BiConsumer<String, V> action) {
            map.forEach(action);
        }
    }
}
