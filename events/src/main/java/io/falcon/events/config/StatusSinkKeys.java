package io.falcon.events.config;

import static io.falcon.events.config.Setting.withDefault;

import java.time.Duration;
import java.util.List;

/** The settings of the status-sink. It reads falcon.task-status, the catalog's topic; that is not a setting. */
public final class StatusSinkKeys {
    public static final Setting<String> GROUP_ID = withDefault(
            "falcon.sink.group-id",
            SettingType.TEXT,
            "falcon-status-sink",
            Validator.any(),
            "consumer group of falcon.task-status");
    public static final Setting<Long> MAX_BATCH = withDefault(
            "falcon.sink.max-batch",
            SettingType.WHOLE,
            500L,
            Validator.between(1, 10_000),
            "most statuses written in one database transaction");
    public static final Setting<Duration> MAX_BACKOFF = withDefault(
            "falcon.sink.max-backoff",
            SettingType.DURATION,
            Duration.ofSeconds(30),
            Validator.positive(),
            "longest wait between retries while the database fails");
    public static final Setting<Duration> TERMINAL_RETENTION = withDefault(
            "falcon.sink.terminal-retention",
            SettingType.DURATION,
            Duration.ofHours(24),
            Validator.positive(),
            "how long the write guard keeps the version of a job after its terminal write; later, the terminal"
                    + " row is sealed and the version deleted");
    public static final Setting<Duration> PRUNE_INTERVAL = withDefault(
            "falcon.sink.prune-interval",
            SettingType.DURATION,
            Duration.ofMinutes(10),
            Validator.positive(),
            "how often versions of terminal jobs past the retention are deleted");
    public static final Setting<Long> PRUNE_BATCH = withDefault(
            "falcon.sink.prune-batch",
            SettingType.WHOLE,
            1_000L,
            Validator.between(1, 100_000),
            "most versions deleted in one statement (and transaction) while pruning");

    public static final Component COMPONENT = new Component(
            "status-sink",
            "Guarded, batched write-back of task status; applies the clusters migration at start.",
            DatabaseTlsKeys.after(KafkaSecurityKeys.after(List.of(
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS,
                    SharedKeys.OPS_PORT,
                    SharedKeys.INSTANCE_ID,
                    SharedKeys.DB_URL,
                    SharedKeys.DB_USER,
                    SharedKeys.DB_PASSWORD,
                    GROUP_ID,
                    MAX_BATCH,
                    MAX_BACKOFF,
                    TERMINAL_RETENTION,
                    PRUNE_INTERVAL,
                    PRUNE_BATCH))),
            List.of(KafkaSecurityKeys.CLIENT),
            DatabaseTlsKeys.rulesAfter(KafkaSecurityKeys.rulesAfter(List.of())));

    private StatusSinkKeys() {}
}
