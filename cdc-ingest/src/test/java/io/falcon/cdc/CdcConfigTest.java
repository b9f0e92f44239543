package io.falcon.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class CdcConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> m = new HashMap<>();
        m.put(CdcConfig.DB_HOST, "db.local");
        m.put(CdcConfig.DB_USER, "cdc");
        m.put(CdcConfig.DB_NAME, "falcon");
        m.put(CdcConfig.KAFKA_BOOTSTRAP, "k:9092");
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
        CdcConfig c = CdcConfig.fromMap(minimal());
        assertThat(c.flavor()).isEqualTo(CdcConfig.Flavor.MARIADB);
        assertThat(c.dbPort()).isEqualTo(3306);
        assertThat(c.dbPassword()).isEmpty();
        assertThat(c.jobsTopic()).isEqualTo("falcon.cdc.jobs");
        assertThat(c.clustersTopic()).isEqualTo("falcon.cdc.clusters");
        assertThat(c.deadLetterTopic()).isEqualTo("falcon.dead-letter");
        assertThat(c.offsetsTopic()).isEqualTo("falcon.cdc.offsets");
        assertThat(c.schemaHistoryTopic()).isEqualTo("falcon.cdc.schema-history");
        assertThat(c.replicationFactor()).isEqualTo((short) 1);
        assertThat(c.tableIncludeList()).isEqualTo("falcon.jobs,falcon.clusters");
    }

    @Test
    void everyRequiredSettingIsNamedWhenMissing() {
        for (String key : new String[] {CdcConfig.DB_HOST, CdcConfig.DB_USER, CdcConfig.DB_NAME,
                CdcConfig.KAFKA_BOOTSTRAP}) {
            assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(key, null)))
                    .as(key)
                    .isInstanceOf(CdcConfig.CdcConfigException.class)
                    .hasMessageContaining(key)
                    .hasMessageContaining(CdcConfig.envName(key))
                    .satisfies(e -> assertThat(((CdcConfig.CdcConfigException) e).setting()).isEqualTo(key));
            assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(key, "  ")))
                    .as(key + " blank").hasMessageContaining(key);
        }
    }

    @Test
    void badValuesAreRejectedNamingTheSettingAndTheValue() {
        assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(CdcConfig.FLAVOR, "postgres")))
                .hasMessageContaining(CdcConfig.FLAVOR).hasMessageContaining("postgres")
                .hasMessageContaining("mariadb or mysql");
        assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(CdcConfig.DB_PORT, "33o6")))
                .hasMessageContaining(CdcConfig.DB_PORT).hasMessageContaining("33o6");
        assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(CdcConfig.DB_PORT, "70000")))
                .hasMessageContaining(CdcConfig.DB_PORT);
        assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(CdcConfig.SERVER_ID, "0")))
                .hasMessageContaining(CdcConfig.SERVER_ID);
        assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(CdcConfig.DB_NAME, "fal-con")))
                .hasMessageContaining(CdcConfig.DB_NAME);
        assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(CdcConfig.JOBS_TOPIC, "bad topic")))
                .hasMessageContaining(CdcConfig.JOBS_TOPIC);
        assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(CdcConfig.REPLICATION_FACTOR, "0")))
                .hasMessageContaining(CdcConfig.REPLICATION_FACTOR);
        assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith(CdcConfig.OFFSETS_TOPIC, "falcon.cdc.jobs")))
                .hasMessageContaining("five different topic names");
        assertThatThrownBy(() -> CdcConfig.fromMap(minimalWith("falcon.cdc.database.hostname", "x")))
                .hasMessageContaining("falcon.cdc.database.hostname").hasMessageContaining("known setting");
    }

    @Test
    void flavorPicksTheConnectorAndCaseDoesNotMatter() {
        assertThat(CdcConfig.fromMap(minimalWith(CdcConfig.FLAVOR, "MySQL")).flavor().connectorClass())
                .isEqualTo("io.debezium.connector.mysql.MySqlConnector");
        assertThat(CdcConfig.fromMap(minimalWith(CdcConfig.FLAVOR, "mariadb")).flavor().connectorClass())
                .isEqualTo("io.debezium.connector.mariadb.MariaDbConnector");
    }

    @Test
    void environmentIsReadAndSystemPropertiesWin() {
        Map<String, String> env = Map.of(
                "FALCON_CDC_DATABASE_HOST", "env-host",
                "FALCON_CDC_DATABASE_USER", "env-user",
                "FALCON_CDC_DATABASE_NAME", "falcon",
                "FALCON_CDC_KAFKA_BOOTSTRAP_SERVERS", "env:9092",
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
        assertThat(c.kafkaBootstrap()).isEqualTo("env:9092");
        assertThat(c.debezium()).containsEntry("snapshot.fetch.size", "500");
        assertThat(c.producer()).containsEntry("linger.ms", "20");

        assertThatThrownBy(() -> CdcConfig.fromEnvironment(Map.of("FALCON_CDC_DATABASE_HOST", "h"), new Properties()))
                .hasMessageContaining(CdcConfig.DB_USER).hasMessageContaining("FALCON_CDC_DATABASE_USER");
    }

    @Test
    void engineUsesKafkaForOffsetsAndSchemaHistoryAndOnlyTheTwoTables() {
        Map<String, String> m = minimal();
        m.put(CdcConfig.OFFSETS_TOPIC, "t.offsets");
        m.put(CdcConfig.SCHEMA_HISTORY_TOPIC, "t.history");
        m.put(CdcConfig.REPLICATION_FACTOR, "3");
        m.put(CdcConfig.DB_PASSWORD, "s3cret");
        m.put("falcon.cdc.debezium.snapshot.mode", "when_needed");
        CdcConfig c = CdcConfig.fromMap(m);
        Properties p = EngineProperties.of(c);

        assertThat(p.getProperty("connector.class")).isEqualTo("io.debezium.connector.mariadb.MariaDbConnector");
        assertThat(p.getProperty("offset.storage")).isEqualTo("org.apache.kafka.connect.storage.KafkaOffsetBackingStore");
        assertThat(p.getProperty("offset.storage.topic")).isEqualTo("t.offsets");
        assertThat(p.getProperty("offset.storage.partitions")).isEqualTo("1");
        assertThat(p.getProperty("offset.storage.replication.factor")).isEqualTo("3");
        assertThat(p.getProperty("bootstrap.servers")).isEqualTo("k:9092");
        assertThat(p.getProperty("schema.history.internal"))
                .isEqualTo("io.debezium.storage.kafka.history.KafkaSchemaHistory");
        assertThat(p.getProperty("schema.history.internal.kafka.topic")).isEqualTo("t.history");
        assertThat(p.getProperty("schema.history.internal.kafka.bootstrap.servers")).isEqualTo("k:9092");
        assertThat(p.getProperty("table.include.list")).isEqualTo("falcon.jobs,falcon.clusters");
        assertThat(p.getProperty("database.include.list")).isEqualTo("falcon");
        assertThat(p.getProperty("database.password")).isEqualTo("s3cret");
        assertThat(p.getProperty("tombstones.on.delete")).isEqualTo("false");
        // explicit pass-through wins
        assertThat(p.getProperty("snapshot.mode")).isEqualTo("when_needed");
        assertThat(CdcConfig.fromMap(minimal()).toString()).doesNotContain("s3cret");
        assertThat(c.toString()).doesNotContain("s3cret");
    }
}
