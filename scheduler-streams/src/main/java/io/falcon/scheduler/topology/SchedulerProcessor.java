package io.falcon.scheduler.topology;

import io.falcon.events.ClusterStatus;
import io.falcon.events.SchedulerInput;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.decision.Decision;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.ops.FalconMdc;
import io.falcon.ops.FalconMetrics;
import io.falcon.scheduler.core.Decisions;
import io.falcon.scheduler.core.Intake;
import io.falcon.scheduler.core.NodePool;
import io.falcon.scheduler.core.ScheduledJob;
import io.falcon.scheduler.core.Scheduler;
import io.falcon.scheduler.core.SchedulerSettings;
import io.falcon.scheduler.core.SchedulerStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thin shell around {@link Scheduler}: rebuilds it from the changelogged stores on start, feeds it each input
 * with the wall-clock time, persists what it changed and forwards statuses and commands.
 */
final class SchedulerProcessor implements Processor<String, byte[], String, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerProcessor.class);

    private static final Duration GAUGE_INTERVAL = Duration.ofSeconds(10);
    /** A step that takes longer is logged with how long it decided and how long it wrote (see {@link #apply}). */
    private static final Duration SLOW_STEP = Duration.ofSeconds(1);

    private long stepStartedNanos = System.nanoTime();

    /** The least time between two commits asked for by urgent steps (see {@link #apply}). */
    static final Duration PROMPT_COMMIT_GAP = Duration.ofMillis(20);
    /** Input older than this when processed means the stream is behind: no prompt commits then. */
    static final Duration PROMPT_COMMIT_MAX_LAG = Duration.ofMillis(100);

    private final Duration tickInterval;
    private final SchedulerSettings scheduling;
    private final FalconMetrics metrics;
    private ProcessorContext<String, Object> context;
    private SchedulerStore store;
    private Scheduler scheduler;
    private long lastPromptCommitMs;
    private boolean promptCommitWanted;
    private boolean caughtUp = true;

    SchedulerProcessor(Duration tickInterval, SchedulerSettings scheduling, FalconMetrics metrics) {
        this.tickInterval = tickInterval;
        this.scheduling = scheduling;
        this.metrics = metrics;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        store = StreamsStore.of(context);
        scheduler = restore();
        context.schedule(tickInterval, PunctuationType.WALL_CLOCK_TIME, this::tick);
        context.schedule(GAUGE_INTERVAL, PunctuationType.WALL_CLOCK_TIME, ms -> updateGauges());
    }

    private Scheduler restore() {
        long started = System.nanoTime();
        Scheduler restored = SchedulerStore.restore(store, scheduling);
        LOG.info(
                "scheduler task {} restored {} live jobs, {} pools, {} pending Job deletions and {} clusters from its"
                        + " stores in {} ms",
                context.taskId(),
                restored.jobs().size(),
                restored.pools().size(),
                restored.deletions().size(),
                restored.clusters().size(),
                (System.nanoTime() - started) / 1_000_000);
        return restored;
    }

    /**
     * A step that threw may have left the in-memory core half-changed: rebuild it from the stores, which hold the
     * state as of the last completed step.
     */
    private void rebuild() {
        scheduler = restore();
    }

    private void tick(long ms) {
        stepStartedNanos = System.nanoTime();
        try {
            apply(scheduler.tick(Instant.ofEpochMilli(ms)), ms);
        } catch (RuntimeException e) {
            // The timer that threw has been taken off the index: the next tick does not repeat it.
            LOG.error("scheduler tick failed; rebuilding the scheduler from its stores", e);
            metrics.deadLetter("timer", "process");
            rebuild();
        }
    }

    @Override
    public void process(Record<String, byte[]> record) {
        SchedulerTopology.DEAD_LETTERS.guard(
                record, context, metrics::deadLetter, () -> processSafely(record), this::rebuild);
    }

    private void processSafely(Record<String, byte[]> record) {
        stepStartedNanos = System.nanoTime();
        long nowMs = context.currentSystemTimeMs();
        // Behind the input by more than a few commits' worth: the stream is catching up, and commits per urgent
        // step would slow it further (each costs a transaction); the commit interval batches them instead.
        caughtUp = nowMs - record.timestamp() <= PROMPT_COMMIT_MAX_LAG.toMillis();
        Instant now = Instant.ofEpochMilli(nowMs);
        String topic = context.recordMetadata().map(m -> m.topic()).orElse("");
        if (topic.equals(Topics.EXECUTOR_EVENTS.name())) {
            SchedulerTopology.DEAD_LETTERS
                    .decode(Topics.EXECUTOR_EVENTS.valueSerde(), record, context, metrics::deadLetter)
                    .ifPresent(event -> apply(scheduler.observe(event, now), nowMs));
            return;
        }
        SchedulerTopology.DEAD_LETTERS
                .decode(Topics.SCHEDULER_INPUT.valueSerde(), record, context, metrics::deadLetter)
                .ifPresent(input -> {
                    if (input instanceof SchedulerInput.JobChanged job) {
                        Intake.classify(job.change(), now).ifPresent(intent -> {
                            if (intent instanceof Intake.Submit submit) {
                                apply(
                                        submit.rowWrittenByFalcon()
                                                ? scheduler.submitSnapshotted(submit.request(), now)
                                                : scheduler.submit(submit.request(), now),
                                        nowMs);
                            } else if (intent instanceof Intake.Abort abort) {
                                apply(scheduler.abort(abort.jobId(), now), nowMs);
                            } else if (intent instanceof Intake.Rewrite rewrite) {
                                apply(scheduler.rewrite(rewrite.jobId(), rewrite.written(), now), nowMs);
                            } else if (intent instanceof Intake.Reprioritize change) {
                                apply(scheduler.reprioritize(change.jobId(), change.priority(), now), nowMs);
                            }
                        });
                    } else if (input instanceof SchedulerInput.ClusterChanged cluster) {
                        Optional<ClusterRow> after = cluster.change().after();
                        if (after.isPresent()) {
                            if (after.get().status() == ClusterStatus.UNKNOWN) {
                                LOG.warn(
                                        "cluster {} has a status this Falcon does not know: treated as not schedulable (no new "
                                                + "jobs start there, its waiting jobs move, its running jobs keep running)",
                                        after.get().id());
                            }
                            apply(scheduler.clusterUpserted(after.get(), now), nowMs);
                        } else {
                            apply(scheduler.clusterRemoved(cluster.change().clusterId(), now), nowMs);
                        }
                    } else if (input instanceof SchedulerInput.ClusterLeft left) {
                        apply(scheduler.clusterRemoved(left.clusterId(), now), nowMs);
                    } else if (input instanceof SchedulerInput.FaultNoted fault) {
                        apply(scheduler.faultNoted(fault.verdict(), now), nowMs);
                    } else if (input instanceof SchedulerInput.RetriesSwitched switched) {
                        LOG.warn(
                                "retries {} (falcon.scheduler.controls)",
                                switched.value().told());
                        apply(scheduler.retriesSwitched(switched.value(), now), nowMs);
                    }
                });
    }

    private void record(Decisions decisions, long nowMs) {
        for (TaskStatus status : decisions.statuses()) {
            if (status.status() == Status.Failed) {
                metrics.failure(status.reason().map(Enum::name).orElse("unknown"));
            }
        }
        for (NodePool reused : decisions.reusedPools()) {
            metrics.nodePoolReuse(reused.clusterId(), reused.supplyMode().wireName());
        }
        for (Decisions.SlotGrant grant : decisions.slotGrants()) {
            metrics.queueWait(grant.queue().clusterId(), grant.queue().topology())
                    .record(durationTo(grant.job().request().submittedAt(), nowMs));
        }
        for (ScheduledJob ended : decisions.retiredJobs()) {
            // Only jobs whose pods ran have a run time; one that ended waiting or provisioning is in the failures.
            ended.dispatchedAt()
                    .ifPresent(ranFrom -> metrics.jobDuration(
                                    ended.request().tpuType().wireName(),
                                    ended.request().topology().text(),
                                    ended.status().name())
                            .record(Duration.between(ranFrom, ended.phaseSince().orElse(Instant.ofEpochMilli(nowMs)))));
        }
        for (Decisions.RetryOutcome retry : decisions.retryOutcomes()) {
            metrics.retry(retry.reason(), retry.category(), retry.outcome());
        }
        for (ScheduledJob started : decisions.startedJobs()) {
            metrics.dispatchLatency(
                            started.request().tpuType().wireName(),
                            started.clusterId().orElse(""))
                    .record(Duration.between(started.request().submittedAt(), Instant.ofEpochMilli(nowMs)));
        }
    }

    /** From then to now, never negative (a row's submitted_at comes from the database's clock). */
    private static Duration durationTo(Instant then, long nowMs) {
        Duration d = Duration.between(then, Instant.ofEpochMilli(nowMs));
        return d.isNegative() ? Duration.ZERO : d;
    }

    private void updateGauges() {
        scheduler.queueDepths().forEach((key, depth) -> metrics.queueDepth(key.clusterId(), key.topology(), depth));
        scheduler.runningJobsByCluster().forEach(metrics::runningJobs);
    }

    private void apply(Decisions decisions, long nowMs) {
        long applyStarted = System.nanoTime();
        SchedulerStore.persist(scheduler, decisions, store);
        record(decisions, nowMs);
        for (TaskStatus status : decisions.statuses()) {
            boolean waiting = Decisions.isPositionUpdate(status);
            if (!waiting || LOG.isDebugEnabled()) {
                try (FalconMdc mdc = FalconMdc.job(status.jobId())
                        .cluster(status.clusterId().orElse(""))
                        .nodePool(status.nodePoolName().orElse(""))) {
                    // A waiting job's position changes with every job ahead of it: those are DEBUG (the status
                    // topic keeps every one), the moves from phase to phase are INFO.
                    String format = "job={} status={} reason={} cluster={} pool={} message={}";
                    Object[] args = {
                        status.jobId(),
                        status.status(),
                        status.reason().map(Enum::name).orElse(""),
                        status.clusterId().orElse(""),
                        status.nodePoolName().orElse(""),
                        status.message()
                    };
                    if (waiting) {
                        LOG.debug(format, args);
                    } else {
                        LOG.info(format, args);
                    }
                }
            }
            context.forward(new Record<>(status.jobId(), (Object) status, nowMs), SchedulerTopology.STATUS_SINK);
        }
        // A command to the executor or a move to another phase should not wait out the commit interval (up to
        // falcon.scheduler.commit-interval added to a hop); bulk queue-position updates do. At most one such commit
        // per PROMPT_COMMIT_GAP: a flood of them (10,000 aborts) committed one record at a time would run at the
        // broker's transaction rate, so within the gap they ride on the next one; and none while the stream is
        // catching up (see processSafely).
        promptCommitWanted |= decisions.urgent();
        if (promptCommitWanted && caughtUp && nowMs - lastPromptCommitMs >= PROMPT_COMMIT_GAP.toMillis()) {
            context.commit();
            lastPromptCommitMs = nowMs;
            promptCommitWanted = false;
        }
        for (Decision decision : decisions.ledger()) {
            context.forward(new Record<>(decision.jobId(), (Object) decision, nowMs), SchedulerTopology.DECISION_SINK);
        }
        for (ExecutorCommand command : decisions.commands()) {
            try (FalconMdc mdc =
                    FalconMdc.job(command.jobId()).cluster(command.cluster().clusterId())) {
                LOG.info(
                        "job={} cluster={} command={}",
                        command.jobId(),
                        command.cluster().clusterId(),
                        command.getClass().getSimpleName());
            }
            context.forward(
                    new Record<>(command.cluster().clusterId(), (Object) command, nowMs),
                    SchedulerTopology.COMMAND_SINK);
        }
        long end = System.nanoTime();
        long decidedMs = (applyStarted - stepStartedNanos) / 1_000_000;
        long appliedMs = (end - applyStarted) / 1_000_000;
        if (decidedMs + appliedMs >= SLOW_STEP.toMillis()) {
            // The exactly-once transaction is open from the step's first store write or output to the commit after
            // it; Kafka Streams gives it 10 s (transaction.timeout.ms) before the broker aborts it.
            LOG.warn(
                    "slow scheduler step: decided in {} ms, stores written and outputs sent in {} ms ({} statuses,"
                            + " {} ledger records, {} commands)",
                    decidedMs,
                    appliedMs,
                    decisions.statuses().size(),
                    decisions.ledger().size(),
                    decisions.commands().size());
        }
    }
}
