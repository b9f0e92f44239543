package io.falcon.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.InvalidSettingsException;
import io.falcon.events.config.Setting;
import io.falcon.events.config.SharedKeys;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class CdcConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> m = new HashMap<>();
        m.put(CdcIngestKeys.DB_HOST.key(), "db.local");
        m.put(CdcIngestKeys.DB_USER.key(), "cdc");
        m.put(CdcIngestKeys.DB_NAME.key(), "falcon");
        m.put(SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), "k:9092");
        return m;
    }

    private static Map<String, String> minimalWith(String key, String value) {
        Map<String, String> m = minimal();
        if (value == null) {
            m.remove(key);
        } else {
            m.put(key, value);
        }
        return m;
    }

    @Test
    void defaultsFollowTheTopicCatalog() {
        CdcConfig c = CdcConfig.from(minimal());
        assertThat(c.flavor()).isEqualTo(CdcConfig.Flavor.MARIADB);
        assertThat(c.dbPort()).isEqualTo(3306);
        assertThat(c.dbPassword()).isEmpty();
        assertThat(c.jobsTopic()).isEqualTo("falcon.cdc.jobs");
        assertThat(c.clustersTopic()).isEqualTo("falcon.cdc.clusters");
        assertThat(c.deadLetterTopic()).isEqualTo("falcon.dead-letter");
        assertThat(c.offsetsTopic()).isEqualTo("falcon.cdc.offsets");
        assertThat(c.schemaHistoryTopic()).isEqualTo("falcon.cdc.schema-history");
        // falcon.kafka.replication-factor is shared with the scheduler and fault-streams now, with their default
        assertThat(c.replicationFactor()).isEqualTo((short) 3);
        assertThat(c.heartbeatInterval()).isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(c.restartBackoff()).isEqualTo(java.time.Duration.ofSeconds(1));
        assertThat(c.tableIncludeList()).isEqualTo("falcon.clusters,falcon.jobs");
    }

    @Test
    void everyRequiredSettingIsNamedWhenMissing() {
        for (String key : new String[] {
            CdcIngestKeys.DB_HOST.key(),
            CdcIngestKeys.DB_USER.key(),
            CdcIngestKeys.DB_NAME.key(),
            SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key()
        }) {
            assertThatThrownBy(() -> CdcConfig.from(minimalWith(key, null)))
                    .as(key)
                    .isInstanceOf(InvalidSettingsException.class)
                    .hasMessageContaining(key)
                    .hasMessageContaining(Setting.envNameOf(key))
                    .satisfies(e ->
                            assertThat(((InvalidSettingsException) e).keys()).containsExactly(key));
            assertThatThrownBy(() -> CdcConfig.from(minimalWith(key, "  ")))
                    .as(key + " blank")
                    .hasMessageContaining(key);
        }
    }

    @Test
    void badValuesAreRejectedNamingTheSettingAndTheValue() {
        assertThatThrownBy(() -> CdcConfig.from(minimalWith(CdcIngestKeys.FLAVOR.key(), "postgres")))
                .hasMessageContaining(CdcIngestKeys.FLAVOR.key())
                .hasMessageContaining("postgres")
                .hasMessageContaining("mariadb or mysql");
        assertThatThrownBy(() -> CdcConfig.from(minimalWith(CdcIngestKeys.DB_PORT.key(), "33o6")))
                .hasMessageContaining(CdcIngestKeys.DB_PORT.key())
                .hasMessageContaining("33o6");
        assertThatThrownBy(() -> CdcConfig.from(minimalWith(CdcIngestKeys.DB_PORT.key(), "70000")))
                .hasMessageContaining(CdcIngestKeys.DB_PORT.key());
        assertThatThrownBy(() -> CdcConfig.from(minimalWith(CdcIngestKeys.SERVER_ID.key(), "0")))
                .hasMessageContaining(CdcIngestKeys.SERVER_ID.key());
        assertThatThrownBy(() -> CdcConfig.from(minimalWith(CdcIngestKeys.DB_NAME.key(), "fal-con")))
                .hasMessageContaining(CdcIngestKeys.DB_NAME.key());
        // the catalog's topics cannot be renamed any more: the old setting is refused as unknown
        assertThatThrownBy(() -> CdcConfig.from(minimalWith("falcon.cdc.topic.jobs", "bad topic")))
                .hasMessageContaining("falcon.cdc.topic.jobs");
        assertThatThrownBy(() -> CdcConfig.from(minimalWith(CdcIngestKeys.OFFSETS_TOPIC.key(), "bad topic")))
                .hasMessageContaining(CdcIngestKeys.OFFSETS_TOPIC.key())
                .hasMessageContaining("Kafka topic name");
        assertThatThrownBy(() -> CdcConfig.from(minimalWith(SharedKeys.KAFKA_REPLICATION_FACTOR.key(), "0")))
                .hasMessageContaining(SharedKeys.KAFKA_REPLICATION_FACTOR.key());
        assertThatThrownBy(() -> CdcConfig.from(minimalWith(CdcIngestKeys.OFFSETS_TOPIC.key(), "falcon.cdc.jobs")))
                .hasMessageContaining("five different topic names");
        assertThatThrownBy(() -> CdcConfig.from(minimalWith("falcon.cdc.database.hostname", "x")))
                .hasMessageContaining("falcon.cdc.database.hostname")
                .hasMessageContaining("unknown setting");
    }

    @Test
    void flavorPicksTheConnectorAndCaseDoesNotMatter() {
        assertThat(CdcConfig.from(minimalWith(CdcIngestKeys.FLAVOR.key(), "MySQL"))
                        .flavor()
                        .connectorClass())
                .isEqualTo("io.debezium.connector.mysql.MySqlConnector");
        assertThat(CdcConfig.from(minimalWith(CdcIngestKeys.FLAVOR.key(), "mariadb"))
                        .flavor()
                        .connectorClass())
                .isEqualTo("io.debezium.connector.mariadb.MariaDbConnector");
    }

    @Test
    void environmentIsReadAndSystemPropertiesWin() {
        Map<String, String> env = Map.of(
                "FALCON_CDC_DATABASE_HOST", "env-host",
                "FALCON_CDC_DATABASE_USER", "env-user",
                "FALCON_CDC_DATABASE_NAME", "falcon",
                "FALCON_KAFKA_BOOTSTRAP_SERVERS", "env:9092",
                "FALCON_CDC_DATABASE_SERVER_ID", "77",
                "FALCON_CDC_DATABASE_FLAVOR", "mysql",
                "PATH", "/usr/bin");
        Properties sys = new Properties();
        sys.setProperty("falcon.cdc.database.host", "prop-host");
        sys.setProperty("falcon.cdc.debezium.snapshot.fetch.size", "500");
        sys.setProperty("falcon.cdc.producer.linger.ms", "20");
        sys.setProperty("java.version", "17");

        CdcConfig c = CdcConfig.fromEnvironment(env, sys);

        assertThat(c.dbHost()).isEqualTo("prop-host");
        assertThat(c.dbUser()).isEqualTo("env-user");
        assertThat(c.serverId()).isEqualTo(77);
        assertThat(c.flavor()).isEqualTo(CdcConfig.Flavor.MYSQL);
        assertThat(c.kafka().bootstrapServers()).isEqualTo("env:9092");
        assertThat(c.debezium()).containsEntry("snapshot.fetch.size", "500");
        assertThat(c.producer()).containsEntry("linger.ms", "20");

        assertThatThrownBy(() -> CdcConfig.fromEnvironment(Map.of("FALCON_CDC_DATABASE_HOST", "h"), new Properties()))
                .hasMessageContaining(CdcIngestKeys.DB_USER.key())
                .hasMessageContaining("FALCON_CDC_DATABASE_USER");
    }

    @Test
    void engineUsesKafkaForOffsetsAndSchemaHistoryAndOnlyTheTwoTables() {
        Map<String, String> m = minimal();
        m.put(CdcIngestKeys.OFFSETS_TOPIC.key(), "t.offsets");
        m.put(CdcIngestKeys.SCHEMA_HISTORY_TOPIC.key(), "t.history");
        m.put(SharedKeys.KAFKA_REPLICATION_FACTOR.key(), "3");
        m.put(CdcIngestKeys.DB_PASSWORD.key(), "s3cret");
        m.put("falcon.cdc.debezium.snapshot.mode", "when_needed");
        CdcConfig c = CdcConfig.from(m);
        Properties p = EngineProperties.of(c);

        assertThat(p.getProperty("connector.class")).isEqualTo("io.debezium.connector.mariadb.MariaDbConnector");
        assertThat(p.getProperty("offset.storage"))
                .isEqualTo("org.apache.kafka.connect.storage.KafkaOffsetBackingStore");
        assertThat(p.getProperty("offset.storage.topic")).isEqualTo("t.offsets");
        assertThat(p.getProperty("offset.storage.partitions")).isEqualTo("1");
        assertThat(p.getProperty("offset.storage.replication.factor")).isEqualTo("3");
        assertThat(p.getProperty("bootstrap.servers")).isEqualTo("k:9092");
        assertThat(p.getProperty("schema.history.internal"))
                .isEqualTo("io.debezium.storage.kafka.history.KafkaSchemaHistory");
        assertThat(p.getProperty("schema.history.internal.kafka.topic")).isEqualTo("t.history");
        assertThat(p.getProperty("schema.history.internal.kafka.bootstrap.servers"))
                .isEqualTo("k:9092");
        assertThat(p.getProperty("table.include.list")).isEqualTo("falcon.clusters,falcon.jobs");
        assertThat(p.getProperty("database.include.list")).isEqualTo("falcon");
        assertThat(p.getProperty("database.password")).isEqualTo("s3cret");
        assertThat(p.getProperty("tombstones.on.delete")).isEqualTo("false");
        // explicit pass-through wins
        assertThat(p.getProperty("snapshot.mode")).isEqualTo("when_needed");
        assertThat(CdcConfig.from(minimal()).toString()).doesNotContain("s3cret");
        assertThat(c.toString()).doesNotContain("s3cret");
    }

    @Test
    void debeziumsInternalKafkaClientsAndItsDatabaseConnectionGetTheSecuritySettings() {
        Map<String, String> m = minimal();
        m.put("FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL");
        m.put("FALCON_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512");
        m.put("FALCON_KAFKA_SASL_USERNAME", "falcon-cdc-ingest");
        m.put("FALCON_KAFKA_SASL_PASSWORD", "kafka-s3cret");
        m.put("FALCON_DB_TLS_MODE", "verify-identity");
        CdcConfig c = CdcConfig.from(m);
        Properties p = EngineProperties.of(c);
        // the offset store's clients read the top-level properties, the schema history's their prefixed ones
        for (String prefix : List.of("", "schema.history.internal.producer.", "schema.history.internal.consumer.")) {
            assertThat(p.getProperty(prefix + "bootstrap.servers")).isEqualTo("k:9092");
            assertThat(p.getProperty(prefix + "security.protocol")).isEqualTo("SASL_SSL");
            assertThat(p.getProperty(prefix + "sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
            assertThat(p.getProperty(prefix + "sasl.jaas.config")).contains("username=\"falcon-cdc-ingest\"");
        }
        assertThat(p.getProperty("schema.history.internal.consumer.group.id"))
                .isEqualTo(c.engineName() + "-schemahistory");
        assertThat(p.getProperty("database.ssl.mode")).isEqualTo("verify-full");
        assertThat(c.toString()).doesNotContain("kafka-s3cret");
    }

    @Test
    void whatTheConnectorWouldRefuseAtEveryStartIsRefusedAtOnce() {
        for (String flavor : List.of("mariadb", "mysql")) {
            Map<String, String> m = minimal();
            m.put(CdcIngestKeys.FLAVOR.key(), flavor);
            m.put("FALCON_DB_TLS_MODE", "verify-identity");
            assertThat(EngineProperties.problems(CdcConfig.from(m))).as(flavor).isEmpty();
        }
        Map<String, String> m = minimal();
        m.put(
                CdcIngestKeys.DEBEZIUM.prefix() + "database.ssl.mode",
                "verify_identity"); // MySQL's word, for the MariaDB connector
        assertThatThrownBy(() -> CdcConfig.from(m))
                .isInstanceOf(io.falcon.events.config.InvalidSettingsException.class)
                .hasMessageContaining("database.ssl.mode")
                .hasMessageContaining("'verify_identity'")
                .hasMessageContaining("verify-full");
    }

    /**
     * Each connector's own ConfigDef accepts the TLS mode Falcon writes for it, in every mode (the MariaDB connector
     * spells them as MariaDB Connector/J does and refused MySQL's `verify_identity`: it never started).
     */
    @Test
    void eachConnectorAcceptsTheTlsModeFalconWritesForIt() {
        for (String flavor : List.of("mariadb", "mysql")) {
            for (String mode : List.of("disabled", "required", "verify-ca", "verify-identity")) {
                Map<String, String> m = minimal();
                m.put(CdcIngestKeys.FLAVOR.key(), flavor);
                m.put("FALCON_DB_TLS_MODE", mode);
                CdcConfig c = CdcConfig.from(m);
                Map<String, String> props = new HashMap<>();
                EngineProperties.of(c).forEach((k, v) -> props.put(k.toString(), v.toString()));
                // the connector's own field, with its own validator (Kafka's ConfigDef does not check the value)
                io.debezium.config.Field sslMode = c.flavor() == CdcConfig.Flavor.MARIADB
                        ? io.debezium.connector.mariadb.MariaDbConnectorConfig.SSL_MODE
                        : io.debezium.connector.mysql.MySqlConnectorConfig.SSL_MODE;
                List<String> errors = new java.util.ArrayList<>();
                sslMode.validate(
                        io.debezium.config.Configuration.from(props),
                        (field, value, problem) -> errors.add(field.name() + "=" + value + ": " + problem));
                assertThat(errors)
                        .as(flavor + " " + mode + ": " + props.get("database.ssl.mode"))
                        .isEmpty();
            }
        }
    }

    @Test
    void theFormerMillisecondSettingsAreDurationsAndEveryProblemIsReportedAtOnce() {
        Map<String, String> m = minimal();
        m.put(CdcIngestKeys.HEARTBEAT_INTERVAL.key(), "0s");
        m.put(CdcIngestKeys.OFFSET_FLUSH_INTERVAL.key(), "250ms");
        m.put(CdcIngestKeys.KEEP_ALIVE_INTERVAL.key(), "PT2S");
        CdcConfig c = CdcConfig.from(m);
        assertThat(c.heartbeatInterval()).isZero();
        Properties p = EngineProperties.of(c);
        assertThat(p.getProperty("heartbeat.interval.ms")).isNull();
        assertThat(p.getProperty("offset.flush.interval.ms")).isEqualTo("250");
        assertThat(p.getProperty("connect.keep.alive.interval.ms")).isEqualTo("2000");

        Map<String, String> bad = minimalWith(CdcIngestKeys.DB_HOST.key(), null);
        bad.put(CdcIngestKeys.KEEP_ALIVE_INTERVAL.key(), "50ms");
        bad.put("falcon.cdc.heartbeat-interval-ms", "30000");
        bad.put("FALCON_CDC_KAFKA_BOOTSTRAP_SERVERS", "old:9092");
        assertThatThrownBy(() -> CdcConfig.from(bad))
                .isInstanceOfSatisfying(
                        InvalidSettingsException.class,
                        e -> assertThat(e.keys())
                                .containsExactlyInAnyOrder(
                                        CdcIngestKeys.DB_HOST.key(),
                                        CdcIngestKeys.KEEP_ALIVE_INTERVAL.key(),
                                        "falcon.cdc.heartbeat-interval-ms",
                                        ""))
                .hasMessageContaining("FALCON_CDC_KAFKA_BOOTSTRAP_SERVERS");
    }
}
