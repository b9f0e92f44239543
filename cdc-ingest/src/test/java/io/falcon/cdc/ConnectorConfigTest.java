package io.falcon.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.SharedKeys;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.source.SourceConnector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The engine properties pass each connector's own config definition (no database needed), so the MySQL path is
 * checked here even though only MariaDB can run in these tests.
 */
class ConnectorConfigTest {
    private static final java.util.Set<String> CONNECTION_FIELDS =
            java.util.Set.of("database.hostname", "database.port", "database.user", "database.password");

    @ParameterizedTest
    @EnumSource(CdcConfig.Flavor.class)
    void enginePropertiesAreValidForTheFlavorsConnector(CdcConfig.Flavor flavor) throws Exception {
        List<ConfigValue> values = validate(flavor, Map.of());
        assertThat(values).isNotEmpty();
        assertThat(values)
                .allSatisfy(v -> assertThat(v.errorMessages()).as(v.name()).isEmpty());
    }

    /** cdc-ingest refuses at its start what the connector would refuse at every engine start, naming the field. */
    @ParameterizedTest
    @EnumSource(CdcConfig.Flavor.class)
    void aBadPropertyIsRefusedBeforeTheEngineStarts(CdcConfig.Flavor flavor) {
        assertThatThrownBy(() -> validate(flavor, Map.of(CdcIngestKeys.DEBEZIUM.prefix() + "snapshot.mode", "bogus")))
                .isInstanceOf(io.falcon.events.config.InvalidSettingsException.class)
                .hasMessageContaining("snapshot.mode")
                .hasMessageContaining("'bogus'");
    }

    private static List<ConfigValue> validate(CdcConfig.Flavor flavor, Map<String, String> extra) throws Exception {
        Map<String, String> m = new HashMap<>(extra);
        m.put(CdcIngestKeys.FLAVOR.key(), flavor.name().toLowerCase());
        m.put(CdcIngestKeys.DB_HOST.key(), "127.0.0.1");
        m.put(CdcIngestKeys.DB_PORT.key(), "1"); // nothing listens: validation of the connection fails fast
        m.put(CdcIngestKeys.DB_USER.key(), "cdc");
        m.put(CdcIngestKeys.DB_PASSWORD.key(), "pw");
        m.put(CdcIngestKeys.DB_NAME.key(), "falcon");
        m.put(SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), "k:9092");
        Map<String, String> props = new HashMap<>();
        EngineProperties.of(CdcConfig.from(m)).forEach((k, v) -> props.put((String) k, (String) v));

        SourceConnector connector = (SourceConnector) Class.forName(props.get("connector.class"))
                .getDeclaredConstructor()
                .newInstance();
        assertThat(props.get("connector.class")).isEqualTo(flavor.connectorClass());
        // Connector.validate runs Debezium's field validators, then tries to connect; only the connection may fail.
        return connector.validate(props).configValues().stream()
                .filter(v -> !CONNECTION_FIELDS.contains(v.name()))
                .toList();
    }
}
