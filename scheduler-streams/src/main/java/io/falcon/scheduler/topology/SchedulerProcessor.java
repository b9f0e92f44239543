package io.falcon.scheduler.topology;

import io.falcon.events.SchedulerInput;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.ops.FalconMdc;
import io.falcon.ops.FalconMetrics;
import io.falcon.scheduler.core.Decisions;
import io.falcon.scheduler.core.Intake;
import io.falcon.scheduler.core.NodePool;
import io.falcon.scheduler.core.QueueKey;
import io.falcon.scheduler.core.ScheduledJob;
import io.falcon.scheduler.core.Scheduler;
import io.falcon.scheduler.core.SchedulerSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thin shell around {@link Scheduler}: rebuilds it from the changelogged stores on start, feeds it each input
 * with the wall-clock time, persists what it changed and forwards statuses and commands.
 */
final class SchedulerProcessor implements Processor<String, byte[], String, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerProcessor.class);

    private static final Duration GAUGE_INTERVAL = Duration.ofSeconds(10);

    private final Duration tickInterval;
    private final SchedulerSettings scheduling;
    private final FalconMetrics metrics;
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, ScheduledJob> jobStore;
    private KeyValueStore<String, NodePool> poolStore;
    private KeyValueStore<String, ClusterRow> clusterStore;
    private KeyValueStore<String, String> queueStore;
    private Scheduler scheduler;

    SchedulerProcessor(Duration tickInterval, SchedulerSettings scheduling, FalconMetrics metrics) {
        this.tickInterval = tickInterval;
        this.scheduling = scheduling;
        this.metrics = metrics;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        jobStore = context.getStateStore(SchedulerTopology.JOB_STORE);
        poolStore = context.getStateStore(SchedulerTopology.POOL_STORE);
        clusterStore = context.getStateStore(SchedulerTopology.CLUSTER_STORE);
        queueStore = context.getStateStore(SchedulerTopology.QUEUE_STORE);
        scheduler = restore();
        context.schedule(tickInterval, PunctuationType.WALL_CLOCK_TIME, ms -> apply(scheduler.tick(Instant.ofEpochMilli(ms)), ms));
        context.schedule(GAUGE_INTERVAL, PunctuationType.WALL_CLOCK_TIME, ms -> updateGauges());
    }

    private Scheduler restore() {
        Scheduler restored = new Scheduler(scheduling);
        int jobs = 0;
        try (KeyValueIterator<String, ClusterRow> it = clusterStore.all()) {
            it.forEachRemaining(kv -> restored.restoreCluster(kv.value));
        }
        try (KeyValueIterator<String, NodePool> it = poolStore.all()) {
            it.forEachRemaining(kv -> restored.restorePool(kv.value));
        }
        try (KeyValueIterator<String, String> it = queueStore.all()) {
            it.forEachRemaining(kv -> restored.restoreQueue(QueueKey.parse(kv.key), Optional.of(kv.value)));
        }
        try (KeyValueIterator<String, ScheduledJob> it = jobStore.all()) {
            while (it.hasNext()) {
                restored.restoreJob(it.next().value);
                jobs++;
            }
        }
        LOG.info("scheduler task {} restored {} jobs and {} clusters", context.taskId(), jobs,
                restored.clusters().size());
        return restored;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        long nowMs = context.currentSystemTimeMs();
        Instant now = Instant.ofEpochMilli(nowMs);
        String topic = context.recordMetadata().map(m -> m.topic()).orElse("");
        if (topic.equals(Topics.EXECUTOR_EVENTS.name())) {
            SchedulerTopology.DEAD_LETTERS.decode(Topics.EXECUTOR_EVENTS.valueSerde(), record, context)
                    .ifPresent(event -> apply(scheduler.observe(event, now), nowMs));
            return;
        }
        SchedulerTopology.DEAD_LETTERS.decode(Topics.SCHEDULER_INPUT.valueSerde(), record, context).ifPresent(input -> {
            if (input instanceof SchedulerInput.JobChanged job) {
                Intake.classify(job.change(), now).ifPresent(intent -> {
                    if (intent instanceof Intake.Submit submit) {
                        apply(scheduler.submit(submit.request(), now), nowMs);
                    } else if (intent instanceof Intake.Abort abort) {
                        apply(scheduler.abort(abort.jobId(), now), nowMs);
                    }
                });
            } else if (input instanceof SchedulerInput.ClusterChanged cluster) {
                Optional<ClusterRow> after = cluster.change().after();
                if (after.isPresent()) {
                    clusterStore.put(after.get().id(), after.get());
                    apply(scheduler.clusterUpserted(after.get(), now), nowMs);
                } else {
                    clusterStore.delete(cluster.change().clusterId());
                    apply(scheduler.clusterRemoved(cluster.change().clusterId(), now), nowMs);
                }
            }
        });
    }

    private void record(Decisions decisions, long nowMs) {
        for (TaskStatus status : decisions.statuses()) {
            if (status.status() == Status.Failed) {
                metrics.failure(status.reason().map(Enum::name).orElse("unknown"));
            }
        }
        for (ScheduledJob started : decisions.startedJobs()) {
            metrics.dispatchLatency(started.request().tpuType().wireName(), started.clusterId().orElse(""))
                    .record(Duration.between(started.request().submittedAt(), Instant.ofEpochMilli(nowMs)));
        }
    }

    private void updateGauges() {
        scheduler.queueDepths().forEach((key, depth) -> metrics.queueDepth(key.clusterId(), key.topology(), depth));
        scheduler.runningJobsByCluster().forEach(metrics::runningJobs);
    }

    private void apply(Decisions decisions, long nowMs) {
        for (String jobId : decisions.changedJobs()) {
            scheduler.job(jobId).ifPresentOrElse(job -> jobStore.put(jobId, job), () -> jobStore.delete(jobId));
        }
        for (NodePool.PoolKey key : decisions.changedPools()) {
            scheduler.pool(key).ifPresentOrElse(pool -> poolStore.put(key.asString(), pool),
                    () -> poolStore.delete(key.asString()));
        }
        for (QueueKey key : decisions.changedQueues()) {
            scheduler.lastServedActor(key).ifPresent(actor -> queueStore.put(key.asString(), actor));
        }
        record(decisions, nowMs);
        for (TaskStatus status : decisions.statuses()) {
            try (FalconMdc mdc = FalconMdc.job(status.jobId()).cluster(status.clusterId().orElse(""))
                    .nodePool(status.nodePoolName().orElse(""))) {
                LOG.info("job={} status={} reason={} cluster={} pool={} message={}", status.jobId(), status.status(),
                        status.reason().map(Enum::name).orElse(""), status.clusterId().orElse(""),
                        status.nodePoolName().orElse(""), status.message());
            }
            context.forward(new Record<>(status.jobId(), (Object) status, nowMs), SchedulerTopology.STATUS_SINK);
        }
        for (ExecutorCommand command : decisions.commands()) {
            try (FalconMdc mdc = FalconMdc.job(command.jobId()).cluster(command.cluster().clusterId())) {
                LOG.info("job={} cluster={} command={}", command.jobId(), command.cluster().clusterId(),
                        command.getClass().getSimpleName());
            }
            context.forward(new Record<>(command.cluster().clusterId(), (Object) command, nowMs),
                    SchedulerTopology.COMMAND_SINK);
        }
    }
}
