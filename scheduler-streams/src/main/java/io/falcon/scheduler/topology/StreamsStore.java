package io.falcon.scheduler.topology;

import io.falcon.scheduler.core.RetiredJobs;
import io.falcon.scheduler.core.ScheduledJob;
import io.falcon.scheduler.core.SchedulerStore;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/** The scheduler's durable state in the topology's changelogged key-value stores. */
final class StreamsStore {
    private StreamsStore() {}

    static SchedulerStore of(ProcessorContext<?, ?> context) {
        return new SchedulerStore(
                table(context.getStateStore(SchedulerTopology.JOB_STORE)),
                table(context.getStateStore(SchedulerTopology.POOL_STORE)),
                table(context.getStateStore(SchedulerTopology.CLUSTER_STORE)),
                table(context.getStateStore(SchedulerTopology.QUEUE_STORE)),
                table(context.getStateStore(SchedulerTopology.DELETION_STORE)),
                table(context.getStateStore(SchedulerTopology.HISTORY_STORE)),
                retired(context.getStateStore(SchedulerTopology.RETIRED_STORE)),
                table(context.getStateStore(SchedulerTopology.CONTROL_STORE)));
    }

    private static RetiredJobs retired(WindowStore<String, ScheduledJob> store) {
        return new RetiredJobs() {
            @Override
            public void put(ScheduledJob done) {
                store.put(done.id(), done, RetiredJobs.endedAt(done).toEpochMilli());
            }

            @Override
            public Optional<ScheduledJob> get(String jobId) {
                // Every entry of the id (there is one, at its end time) across the segments still kept.
                try (WindowStoreIterator<ScheduledJob> it =
                        store.fetch(jobId, Instant.EPOCH, Instant.ofEpochMilli(Long.MAX_VALUE / 2))) {
                    Optional<ScheduledJob> last = Optional.empty();
                    while (it.hasNext()) {
                        last = Optional.of(it.next().value);
                    }
                    return last;
                }
            }
        };
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
