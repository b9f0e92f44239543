package io.falcon.scheduler.topology;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.scheduler.core.JobDeletion;
import io.falcon.scheduler.core.NodePool;
import io.falcon.scheduler.core.ScheduledJob;
import io.falcon.scheduler.core.SchedulerStore;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/** The scheduler's durable state in the topology's changelogged key-value stores. */
final class StreamsStore implements SchedulerStore {
    private final Table<ScheduledJob> jobs;
    private final Table<NodePool> pools;
    private final Table<ClusterRow> clusters;
    private final Table<String> queues;
    private final Table<JobDeletion> deletions;

    StreamsStore(ProcessorContext<?, ?> context) {
        jobs = table(context.getStateStore(SchedulerTopology.JOB_STORE));
        pools = table(context.getStateStore(SchedulerTopology.POOL_STORE));
        clusters = table(context.getStateStore(SchedulerTopology.CLUSTER_STORE));
        queues = table(context.getStateStore(SchedulerTopology.QUEUE_STORE));
        deletions = table(context.getStateStore(SchedulerTopology.DELETION_STORE));
    }

    private static <V> Table<V> table(KeyValueStore<String, V> store) {
        return new Table<>() {
            @Override
            public void put(String key, V value) {
                store.put(key, value);
            }

            @Override
            public void delete(String key) {
                store.delete(key);
            }

            @Override
            public void forEach(BiConsumer<String, V> action) {
                try (KeyValueIterator<String, V> it = store.all()) {
                    it.forEachRemaining(kv -> action.accept(kv.key, kv.value));
                }
            }
        };
    }

    @Override
    public Table<ScheduledJob> jobs() {
        return jobs;
    }

    @Override
    public Table<NodePool> pools() {
        return pools;
    }

    @Override
    public Table<ClusterRow> clusters() {
        return clusters;
    }

    @Override
    public Table<String> queues() {
        return queues;
    }

    @Override
    public Table<JobDeletion> deletions() {
        return deletions;
    }
}
