package io.falcon.scheduler.core;

import io.falcon.events.decision.Decision;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one scheduler step decided: statuses to publish, commands to send, and which parts of the state changed
 * so that the shell persists exactly those.
 */
public final class Decisions {
    private final List<TaskStatus> statuses = new ArrayList<>();
    private final List<ExecutorCommand> commands = new ArrayList<>();
    private final Set<String> changedJobs = new LinkedHashSet<>();
    private final Set<NodePool.PoolKey> changedPools = new LinkedHashSet<>();
    private final Set<QueueKey> changedQueues = new LinkedHashSet<>();
    private final Set<JobDeletion.Key> changedDeletions = new LinkedHashSet<>();
    private final Set<String> changedClusters = new LinkedHashSet<>();
    private final Set<HistoryKey> changedHistories = new LinkedHashSet<>();
    private final List<ScheduledJob> startedJobs = new ArrayList<>();
    private final List<NodePool> reusedPools = new ArrayList<>();
    private final List<ScheduledJob> retiredJobs = new ArrayList<>();
    private final List<SlotGrant> slotGrants = new ArrayList<>();
    private final List<Decision> ledger = new ArrayList<>();

    /** A queue gave its acquiring slot to this job (as it was when it waited). */
    public record SlotGrant(ScheduledJob job, QueueKey queue) {}

    void publish(TaskStatus status) {
        statuses.add(status);
    }

    void send(ExecutorCommand command) {
        commands.add(command);
    }

    void jobChanged(String jobId) {
        changedJobs.add(jobId);
    }

    void poolChanged(NodePool.PoolKey key) {
        changedPools.add(key);
    }

    void queueChanged(QueueKey key) {
        changedQueues.add(key);
    }

    private boolean retrySwitchChanged;

    void retrySwitchChanged() {
        retrySwitchChanged = true;
    }

    /** Whether the step read an operator's retry switch (the store keeps it). */
    public boolean changedRetrySwitch() {
        return retrySwitchChanged;
    }

    void clusterChanged(String clusterId) {
        changedClusters.add(clusterId);
    }

    void historyChanged(HistoryKey key) {
        changedHistories.add(key);
    }

    public Set<HistoryKey> changedHistories() {
        return Collections.unmodifiableSet(changedHistories);
    }

    void deletionChanged(JobDeletion.Key key) {
        changedDeletions.add(key);
    }

    /** A job whose pods all run for the first time (for the dispatch-latency metric). */
    void started(ScheduledJob job) {
        startedJobs.add(job);
    }

    /** A job took a pool it did not create (seed section 5 reuse), for the reuse metric. */
    void reused(NodePool pool) {
        reusedPools.add(pool);
    }

    /** Whether a fault verdict is one a job's owner should hear of (the router and the core agree on it). */
    public static boolean worthNoting(io.falcon.events.fault.FaultVerdict verdict) {
        return FaultNotes.worthNoting(verdict);
    }

    /**
     * A failed attempt and what came of it, for the retry metric: its Reason, whose doing it was (infrastructure,
     * application, unknown) and the outcome (retried, program, no-retries, off, spent).
     */
    public record RetryOutcome(String reason, String category, String outcome) {}

    private final List<RetryOutcome> retryOutcomes = new java.util.ArrayList<>();

    void retryDecided(RetryOutcome outcome) {
        retryOutcomes.add(outcome);
    }

    public List<RetryOutcome> retryOutcomes() {
        return Collections.unmodifiableList(retryOutcomes);
    }

    /** A decision for the ledger (falcon.decisions). */
    void record(Decision decision) {
        ledger.add(decision);
    }

    /** The decisions of this step, in the order they were made, for the ledger. */
    public List<Decision> ledger() {
        return Collections.unmodifiableList(ledger);
    }

    /** The queue's slot went to this job (for the queue-wait metric). */
    void granted(ScheduledJob job, QueueKey queue) {
        slotGrants.add(new SlotGrant(job, queue));
    }

    public List<SlotGrant> slotGrants() {
        return Collections.unmodifiableList(slotGrants);
    }

    /** A finished job left the scheduler's memory for the retired store. */
    void retired(ScheduledJob job) {
        retiredJobs.add(job);
    }

    /**
     * Whether the step decided more than queue-position updates: a command for the executor, or a job moved to
     * another status than Pending/Waiting. The shell commits such a step at once rather than at the end of the
     * commit interval, since the next hop (the executor, the row) waits for it.
     */
    public boolean urgent() {
        return !commands.isEmpty() || statuses.stream().anyMatch(s -> !isPositionUpdate(s));
    }

    /** A waiting job's status (its position and who is ahead): re-published whenever the queue in front changes. */
    public static boolean isPositionUpdate(TaskStatus status) {
        return status.status() == Status.Pending
                && status.reason().filter(Reason.Waiting::equals).isPresent();
    }

    public List<ScheduledJob> retiredJobs() {
        return Collections.unmodifiableList(retiredJobs);
    }

    public List<NodePool> reusedPools() {
        return Collections.unmodifiableList(reusedPools);
    }

    public List<ScheduledJob> startedJobs() {
        return Collections.unmodifiableList(startedJobs);
    }

    public List<TaskStatus> statuses() {
        return Collections.unmodifiableList(statuses);
    }

    public List<ExecutorCommand> commands() {
        return Collections.unmodifiableList(commands);
    }

    public Set<String> changedJobs() {
        return Collections.unmodifiableSet(changedJobs);
    }

    public Set<NodePool.PoolKey> changedPools() {
        return Collections.unmodifiableSet(changedPools);
    }

    public Set<QueueKey> changedQueues() {
        return Collections.unmodifiableSet(changedQueues);
    }

    public Set<String> changedClusters() {
        return Collections.unmodifiableSet(changedClusters);
    }

    public Set<JobDeletion.Key> changedDeletions() {
        return Collections.unmodifiableSet(changedDeletions);
    }

    public boolean isEmpty() {
        return statuses.isEmpty()
                && commands.isEmpty()
                && changedJobs.isEmpty()
                && changedPools.isEmpty()
                && changedQueues.isEmpty()
                && changedDeletions.isEmpty()
                && changedClusters.isEmpty()
                && changedHistories.isEmpty()
                && !retrySwitchChanged;
    }
}
