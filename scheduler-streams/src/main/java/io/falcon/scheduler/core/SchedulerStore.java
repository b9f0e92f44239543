package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The durable state of a {@link Scheduler}, as tables of immutable values: Kafka Streams' changelogged stores in
 * production, maps in the deterministic simulation. {@link #persist} writes exactly what a step changed; {@link
 * #restore} rebuilds a scheduler from it, as after a restart.
 *
 * @param queues per queue (QueueKey.asString), the actor served last, for the round-robin
 * @param histories per (cluster, topology, supply mode) (HistoryKey.asString), the slot hold and run times the
 *     start-time estimates are made from
 * @param retired the finished jobs, for the retention (written by the core itself as jobs finish, read on demand;
 *     never loaded into memory on restore)
 * @param controls the operator's switches, by key (RetrySwitch.KEY)
 */
public record SchedulerStore(
        Table<ScheduledJob> jobs,
        Table<NodePool> pools,
        Table<ClusterRow> clusters,
        Table<String> queues,
        Table<JobDeletion> deletions,
        Table<QueueHistory> histories,
        RetiredJobs retired,
        Table<io.falcon.events.control.RetrySwitch> controls) {

    /** One key-value table. */
    public interface Table<V> {
        void put(String key, V value);

        void delete(String key);

        void forEach(BiConsumer<String, V> action);
    }

    /** Writes what the step changed, reading the values from the scheduler it ran on. */
    public static void persist(Scheduler scheduler, Decisions decisions, SchedulerStore store) {
        for (String jobId : decisions.changedJobs()) {
            write(store.jobs(), jobId, scheduler.liveJob(jobId)); // a finished job leaves the table
        }
        for (NodePool.PoolKey key : decisions.changedPools()) {
            write(store.pools(), key.asString(), scheduler.pool(key));
        }
        for (QueueKey key : decisions.changedQueues()) {
            write(store.queues(), key.asString(), scheduler.lastServedActor(key));
        }
        for (JobDeletion.Key key : decisions.changedDeletions()) {
            write(store.deletions(), key.asString(), scheduler.deletion(key));
        }
        for (HistoryKey key : decisions.changedHistories()) {
            write(store.histories(), key.asString(), scheduler.history(key));
        }
        for (String clusterId : decisions.changedClusters()) {
            write(store.clusters(), clusterId, scheduler.cluster(clusterId));
        }
        if (decisions.changedRetrySwitch()) {
            write(store.controls(), io.falcon.events.control.RetrySwitch.KEY, scheduler.retrySwitch());
        }
    }

    /** A scheduler holding exactly what the store holds; timers are rebuilt from the jobs' deadlines. */
    public static Scheduler restore(SchedulerStore store, SchedulerSettings settings) {
        Scheduler restored = new Scheduler(settings, store.retired());
        store.controls().forEach((key, value) -> restored.restoreRetrySwitch(value));
        store.clusters().forEach((key, row) -> restored.restoreCluster(row));
        store.pools().forEach((key, pool) -> restored.restorePool(pool));
        store.deletions().forEach((key, deletion) -> restored.restoreDeletion(deletion));
        store.queues().forEach((key, actor) -> restored.restoreQueue(QueueKey.parse(key), Optional.of(actor)));
        store.histories().forEach((key, history) -> restored.restoreHistory(HistoryKey.parse(key), history));
        store.jobs().forEach((key, job) -> restored.restoreJob(job));
        return restored;
    }

    private static <V> void write(Table<V> table, String key, Optional<V> value) {
        value.ifPresentOrElse(v -> table.put(key, v), () -> table.delete(key));
    }
}
