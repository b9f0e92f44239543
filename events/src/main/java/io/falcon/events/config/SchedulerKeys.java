package io.falcon.events.config;

import static io.falcon.events.config.Setting.withDefault;

import java.time.Duration;
import java.util.List;

/**
 * The settings of scheduler-streams. The timers are the phase table's (docs/architecture.md); the scheduler core's
 * SchedulerSettings.defaults() is built from the defaults declared here.
 */
public final class SchedulerKeys {
    public static final Setting<String> APPLICATION_ID = withDefault(
            "falcon.scheduler.application-id",
            SettingType.TEXT,
            "falcon-scheduler",
            Validator.any(),
            "Kafka Streams application id: consumer group and prefix of the state topics; keep it stable");
    public static final Setting<String> STATE_DIR = new Setting<>(
            "falcon.scheduler.state-dir",
            SettingType.TEXT,
            new Fallback.Computed<>(
                    () -> System.getProperty("java.io.tmpdir") + "/falcon-scheduler",
                    "<java.io.tmpdir>/falcon-scheduler"),
            Validator.any(),
            "local state of the Kafka Streams stores (rebuilt from the changelogs when lost)");
    public static final Setting<Long> STREAM_THREADS = withDefault(
            "falcon.scheduler.stream-threads",
            SettingType.WHOLE,
            1L,
            Validator.between(1, 16),
            "Kafka Streams threads");
    public static final Setting<Duration> TICK_INTERVAL =
            timer("tick-interval", Duration.ofSeconds(1), "how often due timers are looked at");
    public static final Setting<Duration> COMMIT_INTERVAL = timer(
            "commit-interval",
            Duration.ofMillis(100),
            "Kafka Streams commit interval: decisions (statuses, executor commands) become visible to their readers"
                    + " only when the exactly-once transaction commits, so every hop through the scheduler waits up to"
                    + " this long; each commit is a transaction round trip and a store flush");
    public static final Setting<Duration> SESSION_TIMEOUT = timer(
            "session-timeout",
            Duration.ofSeconds(45),
            "how long a crashed instance's tasks wait before another instance takes them over");
    public static final Setting<Duration> RESERVATION_RETRY = timer(
            "reservation-retry",
            Duration.ofSeconds(30),
            "how long a job short of reservation capacity (ClusterBusy) waits before asking again");
    public static final Setting<Duration> PROVISIONING_RETRY = timer(
            "provisioning-retry",
            Duration.ofSeconds(60),
            "how often EnsureNodePool is re-sent while a pool is created or its nodes are awaited (with EnsureJob"
                    + " when a submitted Job's pods await them)");
    public static final Setting<Duration> PROVISIONING_BACKSTOP = timer(
            "provisioning-backstop",
            Duration.ofMinutes(15),
            "a pool creation with no word from the executor for this long fails"
                    + " NodePoolTimeout; keep it above falcon.executor.node-pool.create-timeout, which normally"
                    + " fires first");
    public static final Setting<Duration> DISPATCH_RETRY = timer(
            "dispatch-retry",
            Duration.ofSeconds(30),
            "how often EnsureJob is re-sent until the executor confirms the Kubernetes Job exists");
    public static final Setting<Duration> SUBMIT_DEADLINE = timer(
            "submit-deadline",
            Duration.ofMinutes(10),
            "how long a job may stay Dispatching without its Kubernetes Job before it fails JobSubmitFailed");
    public static final Setting<Duration> DISPATCH_DEADLINE = timer(
            "dispatch-deadline",
            Duration.ofMinutes(30),
            "how long the pods of a created Kubernetes Job may take to all run before the job fails JobFailed");
    public static final Setting<Duration> DEFAULT_EXECUTION_TIMEOUT = timer(
            "default-execution-timeout", Duration.ofHours(24), "execution timeout of a job without timeout_seconds");
    public static final Setting<Duration> ABORT_RETRY = timer(
            "abort-retry",
            Duration.ofSeconds(60),
            "how often an unconfirmed Kubernetes Job deletion of an aborting job is asked again");
    public static final Setting<Duration> CLEANUP_RETRY = timer(
            "cleanup-retry",
            Duration.ofSeconds(60),
            "how often the deletion of a pool or of a finished job's Kubernetes Job is asked again");
    public static final Setting<Duration> ORPHAN_GRACE = timer(
            "orphan-grace",
            Duration.ofMinutes(10),
            "how long an unknown pool or Job of this installation may exist before it is deleted as an orphan");
    public static final Setting<Duration> OBSERVATION_SLACK = timer(
            "observation-slack",
            Duration.ofSeconds(90),
            "a deadline (dispatch, submit, execution, provisioning backstop) fires only once the executor's heartbeats"
                    + " say it has reported everything it saw on the job's cluster up to the deadline plus this much:"
                    + " the largest difference between the components' clocks (1 min) plus the time a change takes to"
                    + " reach the executor's informers; a scheduler or executor that was down or behind never turns a"
                    + " met deadline into a missed one");
    public static final Setting<Long> ACQUIRERS_PER_QUEUE = withDefault(
            "falcon.scheduler.acquirers-per-queue",
            SettingType.WHOLE,
            16L,
            Validator.between(1, 64),
            "how many jobs of one (cluster, topology) queue acquire resources (a node pool) at once, started in pick"
                    + " order; 1 is the design's rule (one at a time); a queue opens no further slot while one of its"
                    + " jobs is short of reservation capacity (docs/architecture.md, Queues)");
    public static final Setting<Duration> HISTORY_LINGER_MAX = withDefault(
            "falcon.scheduler.idle-linger.from-queue-history",
            SettingType.DURATION,
            Duration.ofMinutes(15),
            Validator.between(Duration.ZERO, Duration.ofHours(2)),
            "at most how long an idle reservation pool no job takes lingers because its queue's recent arrivals say"
                    + " the next job of its topology comes sooner than a new pool takes to create, and never while a"
                    + " job on its cluster is short of reservation capacity (0s: never)");
    public static final Setting<Long> RETRY_MAX_RETRIES = withDefault(
            "falcon.scheduler.retry.max-retries",
            SettingType.WHOLE,
            0L,
            Validator.between(0, 10),
            "how many times a job is run again, keeping its id, after the fleet ended an attempt (a node lost or shut"
                    + " down, a pod preempted or evicted, its Kubernetes Job gone), unless its spec.retry.max_retries"
                    + " says otherwise; a failure of the program is never retried (0: never, the design's contract)");
    public static final Setting<Duration> RETRY_BACKOFF = withDefault(
            "falcon.scheduler.retry.backoff",
            SettingType.DURATION,
            Duration.ofSeconds(30),
            Validator.between(Duration.ZERO, Duration.ofHours(1)),
            "how long after the first attempt the fleet ended the next is placed; doubled after each further one");
    public static final Setting<Duration> RETRY_MAX_BACKOFF = withDefault(
            "falcon.scheduler.retry.max-backoff",
            SettingType.DURATION,
            Duration.ofMinutes(10),
            Validator.between(Duration.ZERO, Duration.ofHours(6)),
            "the longest wait between two attempts of a job");
    public static final Setting<Long> RETRY_PER_CLUSTER_PER_HOUR = withDefault(
            "falcon.scheduler.retry.per-cluster-per-hour",
            SettingType.WHOLE,
            100L,
            Validator.between(0, 100000),
            "how many attempts ended on one cluster may run again within an hour; past it that cluster's failures end"
                    + " their jobs as without retries, so that a cluster breaking every attempt does not keep a stream"
                    + " of them going (0: no limit)");
    public static final Setting<Boolean> RETRY_ENABLED = withDefault(
            "falcon.scheduler.retry.enabled",
            SettingType.BOOLEAN,
            true,
            Validator.any(),
            "false: no job is run again, whatever its policy (an attempt the fleet ends then ends the job Failed);"
                    + " `falcon retries off|on` switches it while Falcon runs and wins over this setting");
    public static final Setting<Long> POSITION_UPDATES = withDefault(
            "falcon.scheduler.position-updates",
            SettingType.WHOLE,
            100L,
            Validator.between(1, 10_000),
            "how many waiting jobs per queue get their exact position refreshed on every change");
    public static final Setting<Duration> IDLE_LINGER_RESERVATION = linger("reservation");
    public static final Setting<Duration> IDLE_LINGER_ON_DEMAND = linger("on-demand");
    public static final Setting<Duration> IDLE_LINGER_FLEX_START = linger("flex-start");
    public static final Setting<Duration> TERMINAL_RETENTION = withDefault(
            "falcon.scheduler.terminal-retention",
            SettingType.DURATION,
            Duration.ofHours(24),
            Validator.between(Duration.ofMinutes(1), Duration.ofDays(90)),
            "how long a finished job is remembered (on disk, not in memory) after it ended: within it a redelivered"
                    + " or snapshotted submission of the job is a duplicate; after it the job is forgotten");
    public static final Setting<Duration> PRIORITY_AGING = withDefault(
            "falcon.scheduler.priority-aging",
            SettingType.DURATION,
            Duration.ofMinutes(10),
            Validator.between(Duration.ofSeconds(1), Duration.ofDays(7)),
            "a waiting job gains one priority level per this much time since it was submitted, so a job waits behind"
                    + " later jobs of priority p higher than its own for at most p times this long");
    public static final Setting<String> PRIORITY_LIMITS = withDefault(
            "falcon.scheduler.priority-limits",
            SettingType.TEXT,
            io.falcon.events.PriorityLimits.ANY.format(),
            new Validator<>(
                    "ACTOR=MIN..MAX entries separated by commas, * for every other actor, within "
                            + io.falcon.events.PriorityLimits.MIN + ".." + io.falcon.events.PriorityLimits.MAX,
                    SchedulerKeys::isPriorityLimits),
            "which priorities each actor may give its jobs (the priority column or spec.priority); a job or a"
                    + " priority change outside its actor's range is refused (InvalidSpec naming the field, or a note"
                    + " in the Message)");
    public static final Setting<Long> MAX_SPEC_BYTES = withDefault(
            "falcon.scheduler.max-spec-bytes",
            SettingType.WHOLE,
            8_192L,
            Validator.between(1_024, 65_535),
            "the largest spec (UTF-8 bytes) a job may have; a larger one ends Failed/InvalidSpec naming the limit."
                    + " Every live job keeps its spec in the scheduler's heap: this and the live-job caps bound it");
    public static final Setting<Long> MAX_LIVE_JOBS_PER_ACTOR = withDefault(
            "falcon.scheduler.max-live-jobs-per-actor",
            SettingType.WHOLE,
            10_000L,
            Validator.between(1, 1_000_000),
            "how many jobs of one actor may be live (submitted and not ended) at once; a submission beyond it ends"
                    + " Failed/TooManyJobs, so that one tenant cannot fill the queues and the scheduler's heap");
    public static final Setting<Long> MAX_LIVE_JOBS = withDefault(
            "falcon.scheduler.max-live-jobs",
            SettingType.WHOLE,
            100_000L,
            Validator.between(1, 10_000_000),
            "how many jobs may be live at once over all actors (actors are whatever the writers name, so the"
                    + " per-actor cap alone bounds nothing); a submission beyond it ends Failed/TooManyJobs");
    public static final Setting<Duration> ESTIMATE_TOLERANCE = withDefault(
            "falcon.scheduler.estimate-tolerance",
            SettingType.DURATION,
            Duration.ofMinutes(5),
            Validator.between(Duration.ZERO, Duration.ofHours(24)),
            "a waiting job's Message is published again for a new start-time estimate only when either end of the"
                    + " estimated interval moved by more than this (a changed position is always published)");
    public static final Setting<Duration> MOVE_GAIN = withDefault(
            "falcon.scheduler.move-gain",
            SettingType.DURATION,
            Duration.ofMinutes(10),
            Validator.between(Duration.ofMinutes(1), Duration.ofDays(1)),
            "a waiting job of priority above 0 moves to another cluster of its type only when it is expected to start"
                    + " there sooner by more than this");
    public static final Setting<Duration> MOVE_INTERVAL = withDefault(
            "falcon.scheduler.move-interval",
            SettingType.DURATION,
            Duration.ofMinutes(30),
            Validator.between(Duration.ofMinutes(1), Duration.ofDays(1)),
            "a waiting job moves to another cluster at most once per this long (no ping-pong)");
    public static final Setting<String> WHO_IS_AHEAD = withDefault(
            "falcon.scheduler.who-is-ahead",
            SettingType.Choice.of("names", "own", "count"),
            "names",
            Validator.any(),
            "what a waiting job's Message says of the jobs ahead of it: names (actor and job name of the first five,"
                    + " as the seed's table shows), own (names only of its own actor's jobs, the others counted), or"
                    + " count (only how many): the Message is visible to the job's owner, so own and count keep"
                    + " other tenants' actors and job names from them");
    public static final Setting<String> MESSAGE_TIME_ZONE = withDefault(
            "falcon.scheduler.message-time-zone",
            SettingType.TEXT,
            "UTC",
            new Validator<>("a time zone id such as UTC or Asia/Shanghai", SchedulerKeys::isZone),
            "the time zone of the clock times in Messages (the estimated start of a waiting job); events carry"
                    + " instants");

    public static final Component COMPONENT = new Component(
            "scheduler",
            "Kafka Streams around the pure scheduling core.",
            KafkaSecurityKeys.after(List.of(
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS,
                    SharedKeys.KAFKA_REPLICATION_FACTOR,
                    SharedKeys.OPS_PORT,
                    SharedKeys.INSTANCE_ID,
                    SharedKeys.INSTALLATION,
                    APPLICATION_ID,
                    STATE_DIR,
                    STREAM_THREADS,
                    TICK_INTERVAL,
                    COMMIT_INTERVAL,
                    SESSION_TIMEOUT,
                    RESERVATION_RETRY,
                    PROVISIONING_RETRY,
                    PROVISIONING_BACKSTOP,
                    DISPATCH_RETRY,
                    SUBMIT_DEADLINE,
                    DISPATCH_DEADLINE,
                    DEFAULT_EXECUTION_TIMEOUT,
                    ABORT_RETRY,
                    CLEANUP_RETRY,
                    TERMINAL_RETENTION,
                    ORPHAN_GRACE,
                    OBSERVATION_SLACK,
                    POSITION_UPDATES,
                    ACQUIRERS_PER_QUEUE,
                    HISTORY_LINGER_MAX,
                    RETRY_MAX_RETRIES,
                    RETRY_BACKOFF,
                    RETRY_MAX_BACKOFF,
                    RETRY_PER_CLUSTER_PER_HOUR,
                    RETRY_ENABLED,
                    PRIORITY_AGING,
                    PRIORITY_LIMITS,
                    MAX_SPEC_BYTES,
                    MAX_LIVE_JOBS_PER_ACTOR,
                    MAX_LIVE_JOBS,
                    ESTIMATE_TOLERANCE,
                    MESSAGE_TIME_ZONE,
                    WHO_IS_AHEAD,
                    MOVE_GAIN,
                    MOVE_INTERVAL,
                    IDLE_LINGER_RESERVATION,
                    IDLE_LINGER_ON_DEMAND,
                    IDLE_LINGER_FLEX_START)),
            List.of(KafkaSecurityKeys.CLIENT),
            KafkaSecurityKeys.rulesAfter(List.of()));

    private SchedulerKeys() {}

    private static boolean isPriorityLimits(String text) {
        try {
            io.falcon.events.PriorityLimits.parse(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean isZone(String text) {
        try {
            java.time.ZoneId.of(text);
            return true;
        } catch (java.time.DateTimeException e) {
            return false;
        }
    }

    private static Setting<Duration> timer(String name, Duration defaultValue, String description) {
        return withDefault(
                "falcon.scheduler." + name, SettingType.DURATION, defaultValue, Validator.positive(), description);
    }

    /** Keyed by the supply mode's wire name (SupplyMode.wireName()). */
    private static Setting<Duration> linger(String supplyMode) {
        return withDefault(
                "falcon.scheduler.idle-linger." + supplyMode,
                SettingType.DURATION,
                Duration.ZERO,
                Validator.notNegative(),
                "how long a READY pool of supply mode " + supplyMode
                        + " that no job takes is kept before it is deleted (0s: at once, as the seed says)");
    }
}
