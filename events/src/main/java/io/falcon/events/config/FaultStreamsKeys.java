package io.falcon.events.config;

import static io.falcon.events.config.Setting.optional;
import static io.falcon.events.config.Setting.withDefault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The settings of fault-streams (docs/fault-streams.md). */
public final class FaultStreamsKeys {
    public static final Setting<String> APPLICATION_ID = withDefault(
            "falcon.faults.application-id",
            SettingType.TEXT,
            "falcon-fault-streams",
            Validator.any(),
            "Kafka Streams application id: consumer group and prefix of the state topics; keep it stable");
    public static final Setting<String> STATE_DIR = new Setting<>(
            "falcon.faults.state-dir",
            SettingType.TEXT,
            new Fallback.Computed<>(
                    () -> System.getProperty("java.io.tmpdir") + "/falcon-fault-streams",
                    "<java.io.tmpdir>/falcon-fault-streams"),
            Validator.any(),
            "local state of the Kafka Streams stores (rebuilt from the changelogs when lost)");
    public static final Setting<Long> STREAM_THREADS = withDefault(
            "falcon.faults.stream-threads", SettingType.WHOLE, 1L, Validator.between(1, 16), "Kafka Streams threads");
    public static final Setting<Duration> JOB_WINDOW = timer(
            "job-window",
            Duration.ofSeconds(30),
            "the RFC's job window: the same code on another device within it is a software fault");
    public static final Setting<Duration> GRACE =
            timer("grace", Duration.ofSeconds(5), "event-time grace after the job window before it is decided");
    public static final Setting<Duration> ALLOWED_LATENESS = timer(
            "allowed-lateness",
            Duration.ofMinutes(5),
            "how far behind the job window's event time a fault may arrive and still take part in it; a later one"
                    + " skips the window and is counted directly (verdict LATE_COUNTED_DIRECTLY)");
    public static final Setting<Duration> DECIDE_INTERVAL =
            timer("decide-interval", Duration.ofSeconds(1), "how often due job windows are decided");
    public static final Setting<Duration> RELEASE_CHECK_INTERVAL = timer(
            "release-check-interval", Duration.ofMinutes(1), "how often isolated devices are checked for auto-release");
    public static final Setting<Duration> STATE_SWEEP_INTERVAL = timer(
            "state-sweep-interval",
            Duration.ofHours(1),
            "how often fault counters and budget candidates whose newest fault is older than the largest fault window"
                    + " (720h) are deleted");
    public static final Setting<Boolean> COUNT_JOBLESS_FAULTS = withDefault(
            "falcon.faults.count-jobless-faults",
            SettingType.BOOLEAN,
            true,
            Validator.any(),
            "count faults without a job id directly");
    public static final Setting<Path> POLICY_FILE = optional(
            "falcon.faults.policy-file",
            SettingType.PATH,
            "the policy on falcon.isolation-policy is kept",
            Validator.any(),
            "the RFC's YAML policy (a file or a mounted ConfigMap), validated and published when it changes");
    public static final Setting<Duration> POLICY_POLL_INTERVAL =
            timer("policy-poll-interval", Duration.ofSeconds(10), "how often the policy file is re-read");
    public static final Setting<Duration> SESSION_TIMEOUT = timer(
            "session-timeout",
            Duration.ofSeconds(45),
            "how long a crashed instance's tasks wait before another instance takes them over");
    public static final Setting<Duration> COMMIT_INTERVAL = timer(
            "commit-interval",
            Duration.ofSeconds(1),
            "Kafka Streams commit interval: each exactly-once commit is a transaction round trip and a store flush;"
                    + " verdicts wait for the job window anyway");

    public static final Component COMPONENT = new Component(
            "fault-streams",
            "Device-fault verdicts and manual isolation.",
            KafkaSecurityKeys.after(List.of(
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS,
                    SharedKeys.KAFKA_REPLICATION_FACTOR,
                    SharedKeys.OPS_PORT,
                    SharedKeys.INSTANCE_ID,
                    APPLICATION_ID,
                    STATE_DIR,
                    STREAM_THREADS,
                    JOB_WINDOW,
                    GRACE,
                    ALLOWED_LATENESS,
                    DECIDE_INTERVAL,
                    RELEASE_CHECK_INTERVAL,
                    STATE_SWEEP_INTERVAL,
                    COUNT_JOBLESS_FAULTS,
                    POLICY_FILE,
                    POLICY_POLL_INTERVAL,
                    SESSION_TIMEOUT,
                    COMMIT_INTERVAL)),
            List.of(KafkaSecurityKeys.CLIENT),
            KafkaSecurityKeys.rulesAfter(List.of()));

    private FaultStreamsKeys() {}

    private static Setting<Duration> timer(String name, Duration defaultValue, String description) {
        return withDefault(
                "falcon.faults." + name, SettingType.DURATION, defaultValue, Validator.positive(), description);
    }
}
