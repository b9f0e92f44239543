package io.falcon.scheduler.core;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/** The scheduler's tables in maps, as a restart reads them. */
final class MemoryStore {
    final Map<String, ScheduledJob> jobs = new HashMap<>();
    final Map<String, NodePool> pools = new HashMap<>();
    final Map<String, io.falcon.events.cdc.ClusterRow> clusters = new HashMap<>();
    final Map<String, String> queues = new HashMap<>();
    final Map<String, JobDeletion> deletions = new HashMap<>();
    final Map<String, QueueHistory> histories = new HashMap<>();
    final Map<String, io.falcon.events.control.RetrySwitch> controls = new HashMap<>();

    SchedulerStore store() {
        return new SchedulerStore(
                table(jobs),
                table(pools),
                table(clusters),
                table(queues),
                table(deletions),
                table(histories),
                RetiredJobs.inMemory(Duration.ofHours(24)),
                table(controls));
    }

    private static <V> SchedulerStore.Table<V> table(Map<String, V> map) {
        return new SchedulerStore.Table<>() {
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
        };
    }
}
