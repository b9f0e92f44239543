package io.falcon.events.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.DatabaseTlsKeys;
import io.falcon.events.config.SettingValues;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseTlsTest {
    @TempDir
    Path dir;

    private static DatabaseTls tls(Map<String, String> raw) {
        return DatabaseTls.from(SettingValues.parsePart(DatabaseTlsKeys.ALONE, raw));
    }

    @Test
    void driverDefaultAddsNothingButTheLogin() {
        DatabaseTls tls = tls(Map.of());
        assertThat(tls).isEqualTo(DatabaseTls.DRIVER_DEFAULT);
        assertThat(tls.jdbcProperties("jdbc:mysql://db/falcon", "falcon_sink", "pw"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("user", "falcon_sink", "password", "pw"));
        assertThat(tls.debeziumProperties(DatabaseTls.DebeziumConnector.MYSQL)).isEmpty();
        assertThat(tls.debeziumProperties(DatabaseTls.DebeziumConnector.MARIADB))
                .isEmpty();
    }

    @Test
    void verifyCaInTheWordsOfEachDriverAndOfDebezium() throws Exception {
        Path password = Files.writeString(dir.resolve("pw"), "store-pw\n");
        Path store = dir.resolve("ca.p12");
        DatabaseTls tls = tls(Map.of(
                "FALCON_DB_TLS_MODE", "verify-ca",
                "FALCON_DB_TLS_TRUSTSTORE_LOCATION", store.toString(),
                "FALCON_DB_TLS_TRUSTSTORE_PASSWORD_FILE", password.toString()));
        Properties mysql = tls.jdbcProperties("jdbc:mysql://db:3306/falcon", "u", "p");
        assertThat(mysql)
                .containsEntry("sslMode", "VERIFY_CA")
                .containsEntry("trustCertificateKeyStoreUrl", store.toUri().toString())
                .containsEntry("trustCertificateKeyStoreType", "PKCS12")
                .containsEntry("trustCertificateKeyStorePassword", "store-pw");
        Properties mariadb = tls.jdbcProperties("jdbc:mariadb://db:3306/falcon", "u", "p");
        assertThat(mariadb)
                .containsEntry("sslMode", "verify-ca")
                .containsEntry("trustStore", store.toString())
                .containsEntry("trustStorePassword", "store-pw");
        assertThat(tls.debeziumProperties(DatabaseTls.DebeziumConnector.MARIADB))
                .containsEntry("database.ssl.mode", "verify-ca")
                .containsEntry("database.ssl.truststore", store.toString());
        assertThat(tls.debeziumProperties(DatabaseTls.DebeziumConnector.MYSQL))
                .containsEntry("database.ssl.mode", "verify_ca")
                .containsEntry("database.ssl.truststore", store.toString())
                .containsEntry("database.ssl.truststore.password", "store-pw");
        assertThat(tls.toString()).doesNotContain("store-pw");
    }

    @Test
    void verifyIdentityAndRequiredMapToEachDriversWords() {
        DatabaseTls identity = tls(Map.of("FALCON_DB_TLS_MODE", "verify-identity"));
        assertThat(identity.jdbcProperties("jdbc:mysql://db/f", "u", "p")).containsEntry("sslMode", "VERIFY_IDENTITY");
        assertThat(identity.jdbcProperties("jdbc:mariadb://db/f", "u", "p")).containsEntry("sslMode", "verify-full");
        assertThat(identity.debeziumProperties(DatabaseTls.DebeziumConnector.MYSQL))
                .containsEntry("database.ssl.mode", "verify_identity");
        // the MariaDB connector takes MariaDB Connector/J's words and refuses MySQL's (it would not start)
        assertThat(identity.debeziumProperties(DatabaseTls.DebeziumConnector.MARIADB))
                .containsEntry("database.ssl.mode", "verify-full");
        DatabaseTls required = tls(Map.of("FALCON_DB_TLS_MODE", "required"));
        assertThat(required.jdbcProperties("jdbc:mariadb://db/f", "u", "p")).containsEntry("sslMode", "trust");
        assertThat(required.jdbcProperties("jdbc:mysql://db/f", "u", "p")).containsEntry("sslMode", "REQUIRED");
        assertThat(required.debeziumProperties(DatabaseTls.DebeziumConnector.MARIADB))
                .containsEntry("database.ssl.mode", "trust");
        assertThat(required.debeziumProperties(DatabaseTls.DebeziumConnector.MYSQL))
                .containsEntry("database.ssl.mode", "required");
        DatabaseTls disabled = tls(Map.of("FALCON_DB_TLS_MODE", "disabled"));
        assertThat(disabled.debeziumProperties(DatabaseTls.DebeziumConnector.MARIADB))
                .containsEntry("database.ssl.mode", "disable");
        assertThat(disabled.debeziumProperties(DatabaseTls.DebeziumConnector.MYSQL))
                .containsEntry("database.ssl.mode", "disabled");
    }

    @Test
    void aTrustStoreWithoutVerificationIsRefused() {
        assertThatThrownBy(() ->
                        tls(Map.of("FALCON_DB_TLS_MODE", "required", "FALCON_DB_TLS_TRUSTSTORE_LOCATION", "/ca.p12")))
                .hasMessageContaining("only used by verify-ca and verify-identity");
    }

    @Test
    void cdcIngestReadsTheSameSettings() {
        Map<String, String> raw = new HashMap<>(Map.of(
                "falcon.kafka.bootstrap-servers", "kafka:9092",
                "falcon.cdc.database.host", "db",
                "falcon.cdc.database.user", "falcon_cdc",
                "falcon.cdc.database.name", "falcon",
                "FALCON_DB_TLS_MODE", "verify-identity"));
        assertThat(DatabaseTls.from(SettingValues.parse(CdcIngestKeys.COMPONENT, raw))
                        .mode())
                .isEqualTo("verify-identity");
    }
}
