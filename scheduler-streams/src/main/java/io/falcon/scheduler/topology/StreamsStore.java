package io.falcon.scheduler.topology;

import io.falcon.scheduler.core.SchedulerStore;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/** The scheduler's durable state in the topology's changelogged key-value stores. */
final class StreamsStore {
    private StreamsStore() {}

    static SchedulerStore of(ProcessorContext<?, ?> context) {
        return new SchedulerStore(
                table(context.getStateStore(SchedulerTopology.JOB_STORE)),
                table(context.getStateStore(SchedulerTopology.POOL_STORE)),
                table(context.getStateStore(SchedulerTopology.CLUSTER_STORE)),
                table(context.getStateStore(SchedulerTopology.QUEUE_STORE)),
                table(context.getStateStore(SchedulerTopology.DELETION_STORE)));
    }

    private static <V> SchedulerStore.Table<V> table(KeyValueStore<String, V> store) {
        return new SchedulerStore.Table<>() {
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
}
