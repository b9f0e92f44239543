package io.falcon.cdc;

import io.falcon.events.Topics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Typed, validated configuration of cdc-ingest. Build it with {@link #fromMap(Map)} (keys below) or
 * {@link #fromEnvironment(Map, Properties)} (system properties win over environment variables; the environment name
 * of a key is the key upper-cased with '.' and '-' replaced by '_', e.g. {@code FALCON_CDC_DATABASE_HOST}).
 * A missing or bad setting raises {@link CdcConfigException} naming the setting.
 *
 * @param flavor           {@value #FLAVOR}: mariadb (default) or mysql; picks the Debezium connector
 * @param dbHost           {@value #DB_HOST} (required)
 * @param dbPort           {@value #DB_PORT} (default 3306)
 * @param dbUser           {@value #DB_USER} (required; needs REPLICATION SLAVE/CLIENT, SELECT, RELOAD)
 * @param dbPassword       {@value #DB_PASSWORD} (default empty)
 * @param dbName           {@value #DB_NAME} (required): the database holding the jobs and clusters tables
 * @param serverId         {@value #SERVER_ID} (default 5401): the replica server id, unique among the database's replicas
 * @param kafkaBootstrap   {@value #KAFKA_BOOTSTRAP} (required)
 * @param topicPrefix      {@value #TOPIC_PREFIX} (default falcon.cdc.source): Debezium's logical server name; part of
 *                         the stored offsets, so keep it stable
 * @param engineName       {@value #ENGINE_NAME} (default falcon-cdc-ingest): key of the stored offsets, keep it stable
 * @param jobsTopic        {@value #JOBS_TOPIC} (default {@code falcon.cdc.jobs})
 * @param clustersTopic    {@value #CLUSTERS_TOPIC} (default {@code falcon.cdc.clusters})
 * @param deadLetterTopic  {@value #DEAD_LETTER_TOPIC} (default {@code falcon.dead-letter})
 * @param offsetsTopic     {@value #OFFSETS_TOPIC} (default {@code falcon.cdc.offsets})
 * @param schemaHistoryTopic {@value #SCHEMA_HISTORY_TOPIC} (default {@code falcon.cdc.schema-history})
 * @param replicationFactor {@value #REPLICATION_FACTOR} (default 1) for the offsets topic and the output topics it creates
 * @param topicPartitions  {@value #TOPIC_PARTITIONS} (default 3) when it creates a missing output topic
 * @param offsetFlushIntervalMs {@value #OFFSET_FLUSH_INTERVAL_MS} (default 1000)
 * @param heartbeatIntervalMs {@value #HEARTBEAT_INTERVAL_MS} (default 30000, 0 = off): keeps the stored binlog
 *                         position fresh while the two tables are idle
 * @param keepAliveIntervalMs {@value #KEEP_ALIVE_INTERVAL_MS} (default 1000): how often the binlog client checks its
 *                         connection and reconnects
 * @param restartBackoffMs {@value #RESTART_BACKOFF_MS} (default 1000): first wait before restarting a failed engine
 *                         (doubles up to 30 s)
 * @param debezium         {@value #DEBEZIUM_PREFIX}* passed through to Debezium verbatim (prefix removed); wins
 * @param producer         {@value #PRODUCER_PREFIX}* passed through to the Kafka producer (prefix removed); idempotence
 *                         and acks=all cannot be overridden
 */
public record CdcConfig(
        Flavor flavor,
        String dbHost,
        int dbPort,
        String dbUser,
        String dbPassword,
        String dbName,
        long serverId,
        String kafkaBootstrap,
        String topicPrefix,
        String engineName,
        String jobsTopic,
        String clustersTopic,
        String deadLetterTopic,
        String offsetsTopic,
        String schemaHistoryTopic,
        short replicationFactor,
        int topicPartitions,
        long offsetFlushIntervalMs,
        long heartbeatIntervalMs,
        long keepAliveIntervalMs,
        long restartBackoffMs,
        Map<String, String> debezium,
        Map<String, String> producer) {

    public static final String FLAVOR = "falcon.cdc.database.flavor";
    public static final String DB_HOST = "falcon.cdc.database.host";
    public static final String DB_PORT = "falcon.cdc.database.port";
    public static final String DB_USER = "falcon.cdc.database.user";
    public static final String DB_PASSWORD = "falcon.cdc.database.password";
    public static final String DB_NAME = "falcon.cdc.database.name";
    public static final String SERVER_ID = "falcon.cdc.database.server-id";
    public static final String KAFKA_BOOTSTRAP = "falcon.cdc.kafka.bootstrap-servers";
    public static final String TOPIC_PREFIX = "falcon.cdc.topic-prefix";
    public static final String ENGINE_NAME = "falcon.cdc.engine-name";
    public static final String JOBS_TOPIC = "falcon.cdc.topic.jobs";
    public static final String CLUSTERS_TOPIC = "falcon.cdc.topic.clusters";
    public static final String DEAD_LETTER_TOPIC = "falcon.cdc.topic.dead-letter";
    public static final String OFFSETS_TOPIC = "falcon.cdc.topic.offsets";
    public static final String SCHEMA_HISTORY_TOPIC = "falcon.cdc.topic.schema-history";
    public static final String REPLICATION_FACTOR = "falcon.cdc.topic.replication-factor";
    public static final String TOPIC_PARTITIONS = "falcon.cdc.topic.partitions";
    public static final String OFFSET_FLUSH_INTERVAL_MS = "falcon.cdc.offset-flush-interval-ms";
    public static final String HEARTBEAT_INTERVAL_MS = "falcon.cdc.heartbeat-interval-ms";
    public static final String KEEP_ALIVE_INTERVAL_MS = "falcon.cdc.keep-alive-interval-ms";
    public static final String RESTART_BACKOFF_MS = "falcon.cdc.restart-backoff-ms";
    public static final String DEBEZIUM_PREFIX = "falcon.cdc.debezium.";
    public static final String PRODUCER_PREFIX = "falcon.cdc.producer.";

    public static final String DEFAULT_OFFSETS_TOPIC = "falcon.cdc.offsets";
    public static final String DEFAULT_SCHEMA_HISTORY_TOPIC = "falcon.cdc.schema-history";

    /** Every plain key, in documentation order. */
    public static final List<String> KEYS = List.of(FLAVOR, DB_HOST, DB_PORT, DB_USER, DB_PASSWORD, DB_NAME, SERVER_ID,
            KAFKA_BOOTSTRAP, TOPIC_PREFIX, ENGINE_NAME, JOBS_TOPIC, CLUSTERS_TOPIC, DEAD_LETTER_TOPIC, OFFSETS_TOPIC,
            SCHEMA_HISTORY_TOPIC, REPLICATION_FACTOR, TOPIC_PARTITIONS, OFFSET_FLUSH_INTERVAL_MS, HEARTBEAT_INTERVAL_MS,
            KEEP_ALIVE_INTERVAL_MS, RESTART_BACKOFF_MS);

    private static final Pattern TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    private static final Pattern DB_IDENT = Pattern.compile("[a-zA-Z0-9_$]{1,64}");

    /** Which database (and so which Debezium connector) is read. */
    public enum Flavor {
        MARIADB("io.debezium.connector.mariadb.MariaDbConnector"),
        MYSQL("io.debezium.connector.mysql.MySqlConnector");

        private final String connectorClass;

        Flavor(String connectorClass) {
            this.connectorClass = connectorClass;
        }

        public String connectorClass() {
            return connectorClass;
        }
    }

    public CdcConfig {
        Objects.requireNonNull(flavor, FLAVOR);
        requireText(DB_HOST, dbHost);
        requireRange(DB_PORT, dbPort, 1, 65535);
        requireText(DB_USER, dbUser);
        Objects.requireNonNull(dbPassword, DB_PASSWORD);
        requireText(DB_NAME, dbName);
        if (!DB_IDENT.matcher(dbName).matches()) {
            throw new CdcConfigException(DB_NAME, dbName, "a database name of letters, digits, '_' or '$'");
        }
        requireRange(SERVER_ID, serverId, 1, 4294967295L);
        requireText(KAFKA_BOOTSTRAP, kafkaBootstrap);
        requireTopic(TOPIC_PREFIX, topicPrefix);
        requireText(ENGINE_NAME, engineName);
        requireTopic(JOBS_TOPIC, jobsTopic);
        requireTopic(CLUSTERS_TOPIC, clustersTopic);
        requireTopic(DEAD_LETTER_TOPIC, deadLetterTopic);
        requireTopic(OFFSETS_TOPIC, offsetsTopic);
        requireTopic(SCHEMA_HISTORY_TOPIC, schemaHistoryTopic);
        List<String> names = List.of(jobsTopic, clustersTopic, deadLetterTopic, offsetsTopic, schemaHistoryTopic);
        if (names.stream().distinct().count() != names.size()) {
            throw new CdcConfigException(JOBS_TOPIC + "/" + CLUSTERS_TOPIC + "/" + DEAD_LETTER_TOPIC + "/" + OFFSETS_TOPIC
                    + "/" + SCHEMA_HISTORY_TOPIC, String.join(",", names), "five different topic names");
        }
        requireRange(REPLICATION_FACTOR, replicationFactor, 1, Short.MAX_VALUE);
        requireRange(TOPIC_PARTITIONS, topicPartitions, 1, 10_000);
        requireRange(OFFSET_FLUSH_INTERVAL_MS, offsetFlushIntervalMs, 0, Integer.MAX_VALUE);
        requireRange(HEARTBEAT_INTERVAL_MS, heartbeatIntervalMs, 0, Integer.MAX_VALUE);
        requireRange(KEEP_ALIVE_INTERVAL_MS, keepAliveIntervalMs, 100, Integer.MAX_VALUE);
        requireRange(RESTART_BACKOFF_MS, restartBackoffMs, 0, 600_000);
        debezium = Map.copyOf(Objects.requireNonNull(debezium, DEBEZIUM_PREFIX));
        producer = Map.copyOf(Objects.requireNonNull(producer, PRODUCER_PREFIX));
    }

    /** Builds the configuration from {@code falcon.cdc.*} keys; unknown {@code falcon.cdc.*} keys are rejected. */
    public static CdcConfig fromMap(Map<String, String> settings) {
        Map<String, String> s = new TreeMap<>();
        settings.forEach((k, v) -> {
            if (k != null && v != null) {
                s.put(k.trim(), v.trim());
            }
        });
        Map<String, String> debezium = new LinkedHashMap<>();
        Map<String, String> producer = new LinkedHashMap<>();
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, String> e : s.entrySet()) {
            String k = e.getKey();
            if (k.startsWith(DEBEZIUM_PREFIX) && k.length() > DEBEZIUM_PREFIX.length()) {
                debezium.put(k.substring(DEBEZIUM_PREFIX.length()), e.getValue());
            } else if (k.startsWith(PRODUCER_PREFIX) && k.length() > PRODUCER_PREFIX.length()) {
                producer.put(k.substring(PRODUCER_PREFIX.length()), e.getValue());
            } else if (k.startsWith("falcon.cdc.") && !KEYS.contains(k)) {
                unknown.add(k);
            }
        }
        if (!unknown.isEmpty()) {
            throw new CdcConfigException(unknown.get(0), s.get(unknown.get(0)),
                    "a known setting (one of " + String.join(", ", KEYS) + ", or " + DEBEZIUM_PREFIX + "*, "
                            + PRODUCER_PREFIX + "*)");
        }
        return new CdcConfig(
                flavor(s.get(FLAVOR)),
                required(s, DB_HOST),
                (int) number(s, DB_PORT, 3306),
                required(s, DB_USER),
                s.getOrDefault(DB_PASSWORD, ""),
                required(s, DB_NAME),
                number(s, SERVER_ID, 5401),
                required(s, KAFKA_BOOTSTRAP),
                text(s, TOPIC_PREFIX, "falcon.cdc.source"),
                text(s, ENGINE_NAME, "falcon-cdc-ingest"),
                text(s, JOBS_TOPIC, Topics.CDC_JOBS.name()),
                text(s, CLUSTERS_TOPIC, Topics.CDC_CLUSTERS.name()),
                text(s, DEAD_LETTER_TOPIC, Topics.DEAD_LETTER.name()),
                text(s, OFFSETS_TOPIC, DEFAULT_OFFSETS_TOPIC),
                text(s, SCHEMA_HISTORY_TOPIC, DEFAULT_SCHEMA_HISTORY_TOPIC),
                (short) checkedNumber(s, REPLICATION_FACTOR, 1, 1, Short.MAX_VALUE),
                (int) checkedNumber(s, TOPIC_PARTITIONS, 3, 1, 10_000),
                number(s, OFFSET_FLUSH_INTERVAL_MS, 1000),
                number(s, HEARTBEAT_INTERVAL_MS, 30_000),
                number(s, KEEP_ALIVE_INTERVAL_MS, 1000),
                number(s, RESTART_BACKOFF_MS, 1000),
                debezium,
                producer);
    }

    /** Same as {@link #fromMap(Map)} over the given properties. */
    public static CdcConfig fromProperties(Properties properties) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String name : properties.stringPropertyNames()) {
            m.put(name, properties.getProperty(name));
        }
        return fromMap(m);
    }

    /**
     * Reads every key from the environment (name: key upper-cased, '.' and '-' as '_') and then from system
     * properties, which win. Pass-through keys ({@value #DEBEZIUM_PREFIX}*, {@value #PRODUCER_PREFIX}*) are read from
     * system properties only, since their environment names would be ambiguous.
     */
    public static CdcConfig fromEnvironment(Map<String, String> env, Properties systemProperties) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String key : KEYS) {
            String v = env.get(envName(key));
            if (v != null && !v.isBlank()) {
                m.put(key, v);
            }
        }
        for (String name : systemProperties.stringPropertyNames()) {
            if (name.startsWith("falcon.cdc.")) {
                m.put(name, systemProperties.getProperty(name));
            }
        }
        return fromMap(m);
    }

    /** The environment variable that carries a key. */
    public static String envName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The fully qualified names of the captured tables, for Debezium's table.include.list. */
    public String tableIncludeList() {
        return dbName + ".jobs," + dbName + ".clusters";
    }

    /** The same configuration with other topic names, for tests and side-by-side instances. */
    public CdcConfig withTopics(String jobs, String clusters, String deadLetter, String offsets, String schemaHistory) {
        return new CdcConfig(flavor, dbHost, dbPort, dbUser, dbPassword, dbName, serverId, kafkaBootstrap, topicPrefix,
                engineName, jobs, clusters, deadLetter, offsets, schemaHistory, replicationFactor, topicPartitions,
                offsetFlushIntervalMs, heartbeatIntervalMs, keepAliveIntervalMs, restartBackoffMs, debezium, producer);
    }

    @Override
    public String toString() {
        return "CdcConfig[flavor=" + flavor + ", db=" + dbUser + "@" + dbHost + ":" + dbPort + "/" + dbName
                + ", serverId=" + serverId + ", kafka=" + kafkaBootstrap + ", topicPrefix=" + topicPrefix
                + ", engineName=" + engineName + ", topics=" + jobsTopic + "," + clustersTopic + "," + deadLetterTopic
                + ", offsets=" + offsetsTopic + ", schemaHistory=" + schemaHistoryTopic + ", rf=" + replicationFactor
                + ", debezium=" + debezium.keySet() + ", producer=" + producer.keySet() + "]";
    }

    private static Flavor flavor(String v) {
        if (v == null || v.isEmpty()) {
            return Flavor.MARIADB;
        }
        try {
            return Flavor.valueOf(v.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CdcConfigException(FLAVOR, v, "mariadb or mysql");
        }
    }

    private static String required(Map<String, String> s, String key) {
        String v = s.get(key);
        if (v == null || v.isEmpty()) {
            throw new CdcConfigException(key, "missing setting " + key + " (environment " + envName(key) + ")");
        }
        return v;
    }

    private static String text(Map<String, String> s, String key, String def) {
        String v = s.get(key);
        return v == null || v.isEmpty() ? def : v;
    }

    private static long number(Map<String, String> s, String key, long def) {
        String v = s.get(key);
        if (v == null || v.isEmpty()) {
            return def;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new CdcConfigException(key, v, "an integer");
        }
    }

    private static long checkedNumber(Map<String, String> s, String key, long def, long min, long max) {
        long n = number(s, key, def);
        requireRange(key, n, min, max);
        return n;
    }

    private static void requireText(String key, String v) {
        if (v == null || v.isBlank()) {
            throw new CdcConfigException(key, "missing setting " + key + " (environment " + envName(key) + ")");
        }
    }

    private static void requireTopic(String key, String v) {
        requireText(key, v);
        if (!TOPIC_NAME.matcher(v).matches() || v.equals(".") || v.equals("..")) {
            throw new CdcConfigException(key, v, "a Kafka topic name (letters, digits, '.', '_', '-')");
        }
    }

    private static void requireRange(String key, long v, long min, long max) {
        if (v < min || v > max) {
            throw new CdcConfigException(key, Long.toString(v), "a number between " + min + " and " + max);
        }
    }

    /** A missing or bad setting; {@link #setting()} names it. */
    public static final class CdcConfigException extends IllegalArgumentException {
        private final String setting;

        CdcConfigException(String setting, String message) {
            super(message);
            this.setting = setting;
        }

        CdcConfigException(String setting, String value, String expected) {
            this(setting, "bad setting " + setting + "='" + value + "': expected " + expected);
        }

        public String setting() {
            return setting;
        }
    }
}
