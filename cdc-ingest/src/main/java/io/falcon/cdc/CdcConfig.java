package io.falcon.cdc;

import io.falcon.events.Topics;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.InvalidSettingsException;
import io.falcon.events.config.Problem;
import io.falcon.events.config.SettingValues;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.security.DatabaseTls;
import io.falcon.events.security.KafkaConnection;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Typed configuration of cdc-ingest: a view of its catalog settings ({@link CdcIngestKeys}; docs/configuration.md).
 * The topics it publishes to are the catalog's ({@link Topics}); they are not settings, since a renamed topic would
 * silently disconnect the pipeline. Only its own offsets and schema-history topics can be named.
 *
 * @param debezium  falcon.cdc.debezium.* passed through to Debezium verbatim (prefix removed); wins
 * @param producer  falcon.cdc.producer.* passed through to the Kafka producer (prefix removed); idempotence and
 *                  acks=all cannot be overridden
 */
public record CdcConfig(
        Flavor flavor,
        String dbHost,
        int dbPort,
        String dbUser,
        String dbPassword,
        DatabaseTls dbTls,
        String dbName,
        long serverId,
        KafkaConnection kafka,
        String topicPrefix,
        String engineName,
        String jobsTopic,
        String clustersTopic,
        String deadLetterTopic,
        String offsetsTopic,
        String schemaHistoryTopic,
        short replicationFactor,
        int topicPartitions,
        Duration offsetFlushInterval,
        Duration heartbeatInterval,
        Duration keepAliveInterval,
        Duration restartBackoff,
        Map<String, String> debezium,
        Map<String, String> producer) {

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
        debezium = Map.copyOf(debezium);
        producer = Map.copyOf(producer);
    }

    /** Parses raw settings (keys or environment names); every problem is reported at once. */
    public static CdcConfig from(Map<String, String> raw) {
        return from(SettingValues.parse(CdcIngestKeys.COMPONENT, raw));
    }

    /** Environment variables and system properties (which win); pass-through keys come from the latter only. */
    public static CdcConfig fromEnvironment(Map<String, String> environment, Properties systemProperties) {
        return from(SettingValues.fromEnvironment(CdcIngestKeys.COMPONENT, environment, systemProperties));
    }

    /**
     * The configuration, refused at once (with every problem) when Debezium's connector would refuse the engine
     * properties derived from it at every start.
     */
    public static CdcConfig from(SettingValues values) {
        CdcConfig config = unchecked(values);
        List<Problem> problems = EngineProperties.problems(config);
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(CdcIngestKeys.COMPONENT.name(), problems);
        }
        return config;
    }

    private static CdcConfig unchecked(SettingValues values) {
        return new CdcConfig(
                Flavor.valueOf(values.get(CdcIngestKeys.FLAVOR).toUpperCase(Locale.ROOT)),
                values.get(CdcIngestKeys.DB_HOST),
                values.getInt(CdcIngestKeys.DB_PORT),
                values.get(CdcIngestKeys.DB_USER),
                values.get(CdcIngestKeys.DB_PASSWORD),
                DatabaseTls.from(values),
                values.get(CdcIngestKeys.DB_NAME),
                values.get(CdcIngestKeys.SERVER_ID),
                KafkaConnection.from(values),
                values.get(CdcIngestKeys.TOPIC_PREFIX),
                values.get(CdcIngestKeys.ENGINE_NAME),
                Topics.CDC_JOBS.name(),
                Topics.CDC_CLUSTERS.name(),
                Topics.DEAD_LETTER.name(),
                values.get(CdcIngestKeys.OFFSETS_TOPIC),
                values.get(CdcIngestKeys.SCHEMA_HISTORY_TOPIC),
                (short) values.getInt(SharedKeys.KAFKA_REPLICATION_FACTOR),
                values.getInt(CdcIngestKeys.TOPIC_PARTITIONS),
                values.get(CdcIngestKeys.OFFSET_FLUSH_INTERVAL),
                values.get(CdcIngestKeys.HEARTBEAT_INTERVAL),
                values.get(CdcIngestKeys.KEEP_ALIVE_INTERVAL),
                values.get(CdcIngestKeys.RESTART_BACKOFF),
                values.passedThrough(CdcIngestKeys.DEBEZIUM),
                values.passedThrough(CdcIngestKeys.PRODUCER));
    }

    /**
     * The fully qualified names of the captured tables, for Debezium's table.include.list. Clusters first: the initial
     * snapshot reads the tables in this list's order, and the scheduler must know the clusters before it places the
     * jobs that already wait (jobs first, each of them would be told that no cluster is registered).
     */
    public String tableIncludeList() {
        return dbName + ".clusters," + dbName + ".jobs";
    }

    /**
     * The same configuration publishing to other topics: for tests only, each with its own topics on the shared
     * broker. Deliberately not a setting.
     */
    CdcConfig withOutputTopics(String jobs, String clusters, String deadLetter) {
        return new CdcConfig(
                flavor,
                dbHost,
                dbPort,
                dbUser,
                dbPassword,
                dbTls,
                dbName,
                serverId,
                kafka,
                topicPrefix,
                engineName,
                jobs,
                clusters,
                deadLetter,
                offsetsTopic,
                schemaHistoryTopic,
                replicationFactor,
                topicPartitions,
                offsetFlushInterval,
                heartbeatInterval,
                keepAliveInterval,
                restartBackoff,
                debezium,
                producer);
    }

    @Override
    public String toString() {
        return "CdcConfig[flavor=" + flavor + ", db=" + dbUser + "@" + dbHost + ":" + dbPort + "/" + dbName
                + ", tls=" + dbTls + ", serverId=" + serverId + ", kafka=" + kafka + ", topicPrefix=" + topicPrefix
                + ", engineName=" + engineName + ", topics=" + jobsTopic + "," + clustersTopic + "," + deadLetterTopic
                + ", offsets=" + offsetsTopic + ", schemaHistory=" + schemaHistoryTopic + ", rf=" + replicationFactor
                + ", debezium=" + debezium.keySet() + ", producer=" + producer.keySet() + "]";
    }
}
