package io.falcon.events.security;

import io.falcon.events.config.DatabaseTlsKeys;
import io.falcon.events.config.SettingValues;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;

/**
 * TLS to MySQL / MariaDB, from the catalog's falcon.db.tls.* settings ({@link DatabaseTlsKeys}), in each client's
 * words: MySQL Connector/J and MariaDB Connector/J (chosen by the JDBC URL) and Debezium's connectors. Passed as
 * connection properties, never in the URL, which is logged.
 *
 * @param mode one of driver-default, disabled, required, verify-ca, verify-identity
 */
public record DatabaseTls(String mode, Optional<KafkaClientSecurity.Store> trustStore) {
    /** Whatever the driver does by default (no properties). */
    public static final DatabaseTls DRIVER_DEFAULT = new DatabaseTls("driver-default", Optional.empty());

    public static DatabaseTls from(SettingValues values) {
        return from(values, SecretFiles::read);
    }

    public static DatabaseTls from(SettingValues values, Function<Path, String> readFile) {
        return new DatabaseTls(
                values.get(DatabaseTlsKeys.MODE),
                values.find(DatabaseTlsKeys.TRUSTSTORE)
                        .map(path -> new KafkaClientSecurity.Store(
                                path,
                                values.get(DatabaseTlsKeys.TRUSTSTORE_TYPE),
                                values.find(DatabaseTlsKeys.TRUSTSTORE_PASSWORD)
                                        .map(Secret::new)
                                        .or(() -> values.find(DatabaseTlsKeys.TRUSTSTORE_PASSWORD_FILE)
                                                .map(readFile)
                                                .map(Secret::new)))));
    }

    /** The properties of DriverManager.getConnection(url, properties): the user, the password and the TLS ones. */
    public Properties jdbcProperties(String jdbcUrl, String user, String password) {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        if (jdbcUrl.startsWith("jdbc:mariadb:")) {
            mariaDb(props);
        } else {
            mySql(props);
        }
        return props;
    }

    private void mySql(Properties props) {
        if (mode.equals("driver-default")) {
            return;
        }
        props.setProperty("sslMode", mode.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
        trustStore.ifPresent(store -> {
            props.setProperty(
                    "trustCertificateKeyStoreUrl", store.location().toUri().toString());
            props.setProperty("trustCertificateKeyStoreType", store.type());
            store.password().ifPresent(p -> props.setProperty("trustCertificateKeyStorePassword", p.text()));
        });
    }

    private void mariaDb(Properties props) {
        String sslMode = switch (mode) {
            case "disabled" -> "disable";
            case "required" -> "trust";
            case "verify-ca" -> "verify-ca";
            case "verify-identity" -> "verify-full";
            default -> "";
        };
        if (sslMode.isEmpty()) {
            return;
        }
        props.setProperty("sslMode", sslMode);
        trustStore.ifPresent(store -> {
            props.setProperty("trustStore", store.location().toString());
            props.setProperty("trustStoreType", store.type());
            store.password().ifPresent(p -> props.setProperty("trustStorePassword", p.text()));
        });
    }

    /** Which Debezium connector reads the database: they spell the modes differently. */
    public enum DebeziumConnector {
        MYSQL,
        MARIADB
    }

    /**
     * Debezium's database.ssl.* properties for the MySQL or the MariaDB connector. The MySQL connector's modes are
     * MySQL's (disabled, required, verify_ca, verify_identity); the MariaDB connector's are MariaDB Connector/J's
     * (disable, trust, verify-ca, verify-full): it refuses the others and does not start.
     */
    public Map<String, String> debeziumProperties(DebeziumConnector connector) {
        Map<String, String> props = new LinkedHashMap<>();
        if (mode.equals("driver-default")) {
            return props;
        }
        String sslMode = switch (connector) {
            case MYSQL -> mode.replace('-', '_');
            case MARIADB ->
                switch (mode) {
                    case "disabled" -> "disable";
                    case "required" -> "trust";
                    case "verify-ca" -> "verify-ca";
                    default -> "verify-full";
                };
        };
        props.put("database.ssl.mode", sslMode);
        trustStore.ifPresent(store -> {
            props.put("database.ssl.truststore", store.location().toString());
            store.password().ifPresent(p -> props.put("database.ssl.truststore.password", p.text()));
        });
        return props;
    }
}
