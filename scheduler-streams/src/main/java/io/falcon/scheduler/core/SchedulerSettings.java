package io.falcon.scheduler.core;

import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.executor.SupplyMode;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;

/**
 * The scheduler's timing policy: every non-terminal phase has a re-drive interval or a deadline here (see the phase
 * table in docs/architecture.md).
 *
 * @param reservationRetry how long a job short of reservation capacity (ClusterBusy) waits before asking again
 * @param provisioningRetry how often EnsureNodePool is re-sent while a pool is being created or its nodes are
 *     awaited (a restarted executor resumes from it)
 * @param provisioningBackstop a pool creation with no word at all from the executor for this long fails
 *     NodePoolTimeout (the executor's own create timeout normally fires first; never while WaitingForNode)
 * @param dispatchRetry how often EnsureJob is re-sent until the executor confirms the Kubernetes Job exists
 * @param submitDeadline how long a job may stay Dispatching without its Kubernetes Job being created before it fails
 *     JobSubmitFailed (with the last error the executor reported)
 * @param dispatchDeadline how long the pods of a created Kubernetes Job may take to all run before the job fails
 *     JobFailed (unschedulable pods, a pool that lost its nodes)
 * @param defaultExecutionTimeout the execution timeout of a job without timeout_seconds
 * @param abortRetry how often an unconfirmed Kubernetes Job deletion of an aborting job is asked again
 * @param cleanupRetry how often the deletion of a node pool or of a finished job's Kubernetes Job is asked again
 *     until confirmed
 * @param orphanGrace how long an unknown pool or Job of this installation may exist before it is deleted as an orphan (covers
 *     the flex-start create-visibility delay)
 * @param positionUpdates how many waiting jobs per queue get their exact position refreshed on every change
 * @param terminalRetention how long a finished job is remembered after it ended (in the retired store, not in
 *     memory): within it a redelivered submission of the job is a duplicate
 * @param idleLinger per supply mode, how long a READY pool no job takes is kept before it is deleted (seed section
 *     5 deletes it at once: 0, the default; flex-start capacity is scarce, so operators may keep it minutes), while
 *     a new job of its topology prefers its cluster (seed section 3)
 * @param priorityAging a waiting job gains one priority level per this much time since its submission (aging), so
 *     that a stream of higher-priority jobs cannot hold a lower one back forever
 * @param estimateTolerance a waiting job's start-time estimate is published again only when an end of its interval
 *     moved by more than this, so that estimates drifting with every tick do not re-publish every waiting job
 * @param messageZone the time zone of clock times in Messages
 * @param moveGain a waiting job of priority above 0 moves to another cluster only when expected to start there
 *     sooner by more than this
 * @param moveInterval a waiting job moves at most once per this long
 * @param observationSlack a deadline fires only once the executor has reported its job's cluster observed through
 *     the deadline plus this much: the largest difference between the components' clocks plus the time a change
 *     takes to reach the executor's informers
 * @param installation this Falcon's name on the edge clusters ({@code falcon.installation}): the names of its node
 *     pools and Kubernetes Jobs hash it with the job id
 * @param admission the bounds a submission must stay within (priorities per actor, spec size, live jobs)
 * @param whoIsAhead what a waiting job's Message says of the jobs ahead of it
 * @param acquirersPerQueue how many jobs of one (cluster, topology) queue acquire resources at once (1: the seed's
 *     rule, one at a time); a queue opens no further slot while one of its jobs is short of reservation capacity
 * @param historyLingerMax how long at most an idle reservation pool lingers because its queue's recent arrivals say
 *     the next job of its topology comes sooner than a new pool takes (zero: never)
 */
public record SchedulerSettings(
        Duration reservationRetry,
        Duration provisioningRetry,
        Duration provisioningBackstop,
        Duration dispatchRetry,
        Duration submitDeadline,
        Duration dispatchDeadline,
        Duration defaultExecutionTimeout,
        Duration abortRetry,
        Duration cleanupRetry,
        Duration orphanGrace,
        int positionUpdates,
        Duration terminalRetention,
        Map<SupplyMode, Duration> idleLinger,
        Duration priorityAging,
        Duration estimateTolerance,
        ZoneId messageZone,
        Duration moveGain,
        Duration moveInterval,
        Duration observationSlack,
        String installation,
        Admission admission,
        WhoIsAhead whoIsAhead,
        int acquirersPerQueue,
        Duration historyLingerMax,
        Retries retries) {

    public SchedulerSettings {
        idleLinger = Map.copyOf(idleLinger);
    }

    /**
     * Automatic retry of a job whose attempt the fleet ended (docs/architecture.md, Retries).
     *
     * @param maxRetries how many times a job is run again after the fleet ended an attempt, unless its spec.retry
     *     says otherwise (0: never, the design's contract)
     * @param backoff how long after the first failed attempt the next is placed; doubled after each further one
     * @param maxBackoff the longest wait between attempts
     * @param enabled false stops every retry from the next scheduling step on (a job the fleet failed then ends
     *     Failed as without retries)
     * @param perClusterPerHour how many attempts ended on one cluster may run again within an hour; past it the
     *     cluster's failures end their jobs as without retries, so that a cluster that breaks every attempt does not
     *     keep a stream of them going (0: no limit)
     */
    public record Retries(
            int maxRetries, Duration backoff, Duration maxBackoff, boolean enabled, int perClusterPerHour) {
        public Retries(int maxRetries, Duration backoff, Duration maxBackoff, boolean enabled) {
            this(
                    maxRetries,
                    backoff,
                    maxBackoff,
                    enabled,
                    Math.toIntExact(SchedulerKeys.RETRY_PER_CLUSTER_PER_HOUR.defaultValue()));
        }

        public static Retries defaults() {
            return new Retries(
                    Math.toIntExact(SchedulerKeys.RETRY_MAX_RETRIES.defaultValue()),
                    SchedulerKeys.RETRY_BACKOFF.defaultValue(),
                    SchedulerKeys.RETRY_MAX_BACKOFF.defaultValue(),
                    SchedulerKeys.RETRY_ENABLED.defaultValue(),
                    Math.toIntExact(SchedulerKeys.RETRY_PER_CLUSTER_PER_HOUR.defaultValue()));
        }

        /** The wait before the attempt after {@code retriesDone} retries: the backoff doubled each time, capped. */
        public Duration backoffBefore(int retriesDone) {
            Duration wait = backoff;
            for (int i = 0; i < retriesDone && wait.compareTo(maxBackoff) < 0; i++) {
                wait = wait.multipliedBy(2);
            }
            return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
        }
    }

    /** The defaults declared in the settings catalog (SchedulerKeys), so that they are written down once. */
    public static SchedulerSettings defaults() {
        return new SchedulerSettings(
                SchedulerKeys.RESERVATION_RETRY.defaultValue(),
                SchedulerKeys.PROVISIONING_RETRY.defaultValue(),
                SchedulerKeys.PROVISIONING_BACKSTOP.defaultValue(),
                SchedulerKeys.DISPATCH_RETRY.defaultValue(),
                SchedulerKeys.SUBMIT_DEADLINE.defaultValue(),
                SchedulerKeys.DISPATCH_DEADLINE.defaultValue(),
                SchedulerKeys.DEFAULT_EXECUTION_TIMEOUT.defaultValue(),
                SchedulerKeys.ABORT_RETRY.defaultValue(),
                SchedulerKeys.CLEANUP_RETRY.defaultValue(),
                SchedulerKeys.ORPHAN_GRACE.defaultValue(),
                Math.toIntExact(SchedulerKeys.POSITION_UPDATES.defaultValue()),
                SchedulerKeys.TERMINAL_RETENTION.defaultValue(),
                Map.of(),
                SchedulerKeys.PRIORITY_AGING.defaultValue(),
                SchedulerKeys.ESTIMATE_TOLERANCE.defaultValue(),
                ZoneId.of(SchedulerKeys.MESSAGE_TIME_ZONE.defaultValue()),
                SchedulerKeys.MOVE_GAIN.defaultValue(),
                SchedulerKeys.MOVE_INTERVAL.defaultValue(),
                SchedulerKeys.OBSERVATION_SLACK.defaultValue(),
                io.falcon.events.config.SharedKeys.INSTALLATION.defaultValue(),
                Admission.defaults(),
                WhoIsAhead.of(SchedulerKeys.WHO_IS_AHEAD.defaultValue()),
                Math.toIntExact(SchedulerKeys.ACQUIRERS_PER_QUEUE.defaultValue()),
                SchedulerKeys.HISTORY_LINGER_MAX.defaultValue(),
                Retries.defaults());
    }

    /** How long an idle pool of this supply mode is kept (zero: deleted at once). */
    public Duration idleLinger(SupplyMode mode) {
        return idleLinger.getOrDefault(mode, Duration.ZERO);
    }

    /** The names of this node pool and Kubernetes Job of a job: {@code ResourceNames} in this installation. */
    public String nodePoolName(String jobId) {
        return io.falcon.events.ResourceNames.nodePool(installation, jobId);
    }

    public String k8sJobName(String jobId) {
        return io.falcon.events.ResourceNames.k8sJob(installation, jobId);
    }

    /** The node pool of the job's current attempt (a retried job's differs from the failed attempt's). */
    public String nodePoolName(ScheduledJob job) {
        return io.falcon.events.ResourceNames.nodePool(installation, job.id(), job.retries());
    }

    /** The Kubernetes Job of the job's current attempt. */
    public String k8sJobName(ScheduledJob job) {
        return io.falcon.events.ResourceNames.k8sJob(installation, job.id(), job.retries());
    }

    /** The Kubernetes Job of the attempt before the job's current one (a job that was run again). */
    public Optional<String> previousK8sJobName(ScheduledJob job) {
        return job.retries() == 0
                ? Optional.empty()
                : Optional.of(io.falcon.events.ResourceNames.k8sJob(installation, job.id(), job.retries() - 1));
    }

    public SchedulerSettings withAdmission(Admission newAdmission) {
        return with(c -> c.admission = newAdmission);
    }

    public SchedulerSettings withWhoIsAhead(WhoIsAhead shown) {
        return with(c -> c.whoIsAhead = shown);
    }

    public SchedulerSettings withAcquirersPerQueue(int n) {
        return with(c -> c.acquirersPerQueue = n);
    }

    public SchedulerSettings withHistoryLingerMax(Duration max) {
        return with(c -> c.historyLingerMax = max);
    }

    public SchedulerSettings withPositionUpdates(int n) {
        return with(c -> c.positionUpdates = n);
    }

    public SchedulerSettings withIdleLinger(Map<SupplyMode, Duration> linger) {
        return with(c -> c.idleLinger = linger);
    }

    public SchedulerSettings withPriorityAging(Duration aging) {
        return with(c -> c.priorityAging = aging);
    }

    public SchedulerSettings withTerminalRetention(Duration retention) {
        return with(c -> c.terminalRetention = retention);
    }

    public SchedulerSettings withRetries(Retries newRetries) {
        return with(c -> c.retries = newRetries);
    }

    /** A copy with the change applied: each wither names only what it changes. */
    private SchedulerSettings with(java.util.function.Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.build();
    }

    /** The settings' fields, to change some of them and build a new value. */
    private static final class Copy {
        Duration reservationRetry;
        Duration provisioningRetry;
        Duration provisioningBackstop;
        Duration dispatchRetry;
        Duration submitDeadline;
        Duration dispatchDeadline;
        Duration defaultExecutionTimeout;
        Duration abortRetry;
        Duration cleanupRetry;
        Duration orphanGrace;
        int positionUpdates;
        Duration terminalRetention;
        Map<SupplyMode, Duration> idleLinger;
        Duration priorityAging;
        Duration estimateTolerance;
        ZoneId messageZone;
        Duration moveGain;
        Duration moveInterval;
        Duration observationSlack;
        String installation;
        Admission admission;
        WhoIsAhead whoIsAhead;
        int acquirersPerQueue;
        Duration historyLingerMax;
        Retries retries;

        Copy(SchedulerSettings s) {
            this.reservationRetry = s.reservationRetry;
            this.provisioningRetry = s.provisioningRetry;
            this.provisioningBackstop = s.provisioningBackstop;
            this.dispatchRetry = s.dispatchRetry;
            this.submitDeadline = s.submitDeadline;
            this.dispatchDeadline = s.dispatchDeadline;
            this.defaultExecutionTimeout = s.defaultExecutionTimeout;
            this.abortRetry = s.abortRetry;
            this.cleanupRetry = s.cleanupRetry;
            this.orphanGrace = s.orphanGrace;
            this.positionUpdates = s.positionUpdates;
            this.terminalRetention = s.terminalRetention;
            this.idleLinger = s.idleLinger;
            this.priorityAging = s.priorityAging;
            this.estimateTolerance = s.estimateTolerance;
            this.messageZone = s.messageZone;
            this.moveGain = s.moveGain;
            this.moveInterval = s.moveInterval;
            this.observationSlack = s.observationSlack;
            this.installation = s.installation;
            this.admission = s.admission;
            this.whoIsAhead = s.whoIsAhead;
            this.acquirersPerQueue = s.acquirersPerQueue;
            this.historyLingerMax = s.historyLingerMax;
            this.retries = s.retries;
        }

        SchedulerSettings build() {
            return new SchedulerSettings(
                    reservationRetry,
                    provisioningRetry,
                    provisioningBackstop,
                    dispatchRetry,
                    submitDeadline,
                    dispatchDeadline,
                    defaultExecutionTimeout,
                    abortRetry,
                    cleanupRetry,
                    orphanGrace,
                    positionUpdates,
                    terminalRetention,
                    idleLinger,
                    priorityAging,
                    estimateTolerance,
                    messageZone,
                    moveGain,
                    moveInterval,
                    observationSlack,
                    installation,
                    admission,
                    whoIsAhead,
                    acquirersPerQueue,
                    historyLingerMax,
                    retries);
        }
    }
}
