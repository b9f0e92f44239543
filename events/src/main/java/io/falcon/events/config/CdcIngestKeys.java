package io.falcon.events.config;

import static io.falcon.events.config.Setting.required;
import static io.falcon.events.config.Setting.withDefault;

import io.falcon.events.Topic;
import io.falcon.events.Topics;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/** The settings of cdc-ingest. The topics it publishes to are the catalog's (events.Topics), not settings. */
public final class CdcIngestKeys {
    private static final Validator<String> TOPIC_NAME = Validator.matching(
            "(?!\\.{1,2}$)[a-zA-Z0-9._-]{1,249}", "a Kafka topic name (letters, digits, '.', '_', '-')");

    public static final Setting<String> FLAVOR = withDefault(
            "falcon.cdc.database.flavor",
            SettingType.Choice.of("mariadb", "mysql"),
            "mariadb",
            Validator.any(),
            "which database is read, and so which Debezium connector");
    public static final Setting<String> DB_HOST =
            required("falcon.cdc.database.host", SettingType.TEXT, Validator.any(), "database host");
    public static final Setting<Long> DB_PORT = withDefault(
            "falcon.cdc.database.port", SettingType.WHOLE, 3306L, Validator.between(1, 65535), "database port");
    public static final Setting<String> DB_USER = required(
            "falcon.cdc.database.user",
            SettingType.TEXT,
            Validator.any(),
            "binlog reader; needs REPLICATION SLAVE, REPLICATION CLIENT, SELECT and RELOAD (a"
                    + " different user from falcon.db.user, which writes)");
    public static final Setting<String> DB_PASSWORD = withDefault(
            "falcon.cdc.database.password",
            SettingType.SECRET,
            "",
            Validator.any(),
            "password of falcon.cdc.database.user");
    public static final Setting<String> DB_NAME = required(
            "falcon.cdc.database.name",
            SettingType.TEXT,
            Validator.matching("[a-zA-Z0-9_$]{1,64}", "a database name of letters, digits, '_' or '$'"),
            "the database holding the jobs and clusters tables");
    public static final Setting<Long> SERVER_ID = withDefault(
            "falcon.cdc.database.server-id",
            SettingType.WHOLE,
            5401L,
            Validator.between(1, 4_294_967_295L),
            "replica server id, unique among the database's replicas");
    public static final Setting<String> TOPIC_PREFIX = withDefault(
            "falcon.cdc.topic-prefix",
            SettingType.TEXT,
            "falcon.cdc.source",
            TOPIC_NAME,
            "Debezium's logical server name; part of the stored offsets, so keep it stable");
    public static final Setting<String> ENGINE_NAME = withDefault(
            "falcon.cdc.engine-name",
            SettingType.TEXT,
            "falcon-cdc-ingest",
            Validator.any(),
            "key of the stored offsets; keep it stable");
    public static final Setting<String> OFFSETS_TOPIC = withDefault(
            "falcon.cdc.topic.offsets",
            SettingType.TEXT,
            "falcon.cdc.offsets",
            TOPIC_NAME,
            "Debezium's offsets (cdc-ingest's own topic, not in the catalog)");
    public static final Setting<String> SCHEMA_HISTORY_TOPIC = withDefault(
            "falcon.cdc.topic.schema-history",
            SettingType.TEXT,
            "falcon.cdc.schema-history",
            TOPIC_NAME,
            "Debezium's schema history (cdc-ingest's own topic, not in the catalog)");
    public static final Setting<Long> TOPIC_PARTITIONS = withDefault(
            "falcon.cdc.topic.partitions",
            SettingType.WHOLE,
            3L,
            Validator.between(1, 10_000),
            "partitions of an output topic cdc-ingest creates because it is missing");
    public static final Setting<Duration> OFFSET_FLUSH_INTERVAL = withDefault(
            "falcon.cdc.offset-flush-interval",
            SettingType.DURATION,
            Duration.ofSeconds(1),
            Validator.notNegative(),
            "how often acknowledged binlog offsets are stored");
    public static final Setting<Duration> HEARTBEAT_INTERVAL = withDefault(
            "falcon.cdc.heartbeat-interval",
            SettingType.DURATION,
            Duration.ofSeconds(30),
            Validator.notNegative(),
            "keeps the stored binlog position fresh while the two tables are idle (0s: off)");
    public static final Setting<Duration> KEEP_ALIVE_INTERVAL = withDefault(
            "falcon.cdc.keep-alive-interval",
            SettingType.DURATION,
            Duration.ofSeconds(1),
            Validator.atLeast(Duration.ofMillis(100)),
            "how often the binlog client checks its connection and reconnects");
    public static final Setting<Duration> RESTART_BACKOFF = withDefault(
            "falcon.cdc.restart-backoff",
            SettingType.DURATION,
            Duration.ofSeconds(1),
            Validator.between(Duration.ZERO, Duration.ofMinutes(10)),
            "first wait before restarting a failed engine (doubles up to 30s)");

    public static final Passthrough DEBEZIUM = new Passthrough(
            "falcon.cdc.debezium.",
            "passed to Debezium verbatim, prefix removed; wins over Falcon's own engine properties; a value the"
                    + " connector's own validators refuse stops cdc-ingest at its start, naming it");
    public static final Passthrough PRODUCER = new Passthrough(
            "falcon.cdc.producer.",
            "passed to the Kafka producer, prefix removed; idempotence and acks=all cannot be overridden");

    /** Debezium's own topics must differ from each other and from every catalog topic it would otherwise corrupt. */
    private static final Rule OWN_TOPICS_APART = new Rule(
            List.of(OFFSETS_TOPIC, SCHEMA_HISTORY_TOPIC),
            "must be five different topic names: the offsets and schema history topics apart from each other and"
                    + " from the catalog's topics (" + Topics.CDC_JOBS.name() + ", " + Topics.CDC_CLUSTERS.name()
                    + ", " + Topics.DEAD_LETTER.name() + ", ...)",
            values -> {
                String offsets = values.get(OFFSETS_TOPIC);
                String history = values.get(SCHEMA_HISTORY_TOPIC);
                return !offsets.equals(history)
                        && Stream.of(offsets, history)
                                .noneMatch(name ->
                                        Topics.all().stream().map(Topic::name).anyMatch(name::equals));
            });

    public static final Component COMPONENT = new Component(
            "cdc-ingest",
            "Debezium embedded engine publishing jobs / clusters row changes.",
            DatabaseTlsKeys.after(KafkaSecurityKeys.after(List.of(
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS,
                    SharedKeys.KAFKA_REPLICATION_FACTOR,
                    SharedKeys.OPS_PORT,
                    FLAVOR,
                    DB_HOST,
                    DB_PORT,
                    DB_USER,
                    DB_PASSWORD,
                    DB_NAME,
                    SERVER_ID,
                    TOPIC_PREFIX,
                    ENGINE_NAME,
                    OFFSETS_TOPIC,
                    SCHEMA_HISTORY_TOPIC,
                    TOPIC_PARTITIONS,
                    OFFSET_FLUSH_INTERVAL,
                    HEARTBEAT_INTERVAL,
                    KEEP_ALIVE_INTERVAL,
                    RESTART_BACKOFF))),
            List.of(DEBEZIUM, PRODUCER, KafkaSecurityKeys.CLIENT),
            DatabaseTlsKeys.rulesAfter(KafkaSecurityKeys.rulesAfter(List.of(OWN_TOPICS_APART))));

    private CdcIngestKeys() {}
}
