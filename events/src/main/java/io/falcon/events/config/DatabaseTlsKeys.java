package io.falcon.events.config;

import static io.falcon.events.config.Setting.optional;
import static io.falcon.events.config.Setting.withDefault;

import java.nio.file.Path;
import java.util.List;

/**
 * TLS to MySQL / MariaDB for every database client: the JDBC users (status-sink, CLI) and cdc-ingest's binlog
 * reader (Debezium). Declared once, turned into driver properties by io.falcon.events.security.DatabaseTls.
 */
public final class DatabaseTlsKeys {
    public static final Setting<String> MODE = withDefault(
            "falcon.db.tls.mode",
            SettingType.Choice.of("driver-default", "disabled", "required", "verify-ca", "verify-identity"),
            "driver-default",
            Validator.any(),
            "TLS to the database: required encrypts without checking the server, verify-ca also checks its"
                    + " certificate against the trust store, verify-identity also its host name; driver-default"
                    + " leaves it to the driver (MySQL Connector/J and Debezium: TLS when offered, unverified;"
                    + " MariaDB Connector/J: none)");
    public static final Setting<Path> TRUSTSTORE = optional(
            "falcon.db.tls.truststore.location",
            SettingType.PATH,
            "the JVM's default trust store",
            Validator.any(),
            "trust store with the CA of the database server's certificate (e.g. Cloud SQL's server CA)");
    public static final Setting<String> TRUSTSTORE_TYPE = withDefault(
            "falcon.db.tls.truststore.type",
            SettingType.Choice.of("PKCS12", "JKS"),
            "PKCS12",
            Validator.any(),
            "format of falcon.db.tls.truststore.location");
    public static final Setting<String> TRUSTSTORE_PASSWORD = optional(
            "falcon.db.tls.truststore.password",
            SettingType.SECRET,
            "no password (or the file's)",
            Validator.any(),
            "trust store password, from the environment only");
    public static final Setting<Path> TRUSTSTORE_PASSWORD_FILE = optional(
            "falcon.db.tls.truststore.password-file",
            SettingType.PATH,
            "no file",
            Validator.any(),
            "file holding the trust store password; trailing newline ignored");

    public static final List<Setting<?>> SETTINGS =
            List.of(MODE, TRUSTSTORE, TRUSTSTORE_TYPE, TRUSTSTORE_PASSWORD, TRUSTSTORE_PASSWORD_FILE);

    public static final List<Rule> RULES = List.of(
            new Rule(
                    List.of(MODE, TRUSTSTORE),
                    "a database trust store is only used by verify-ca and verify-identity",
                    values -> values.find(TRUSTSTORE).isEmpty()
                            || values.get(MODE).startsWith("verify-")),
            new Rule(
                    List.of(TRUSTSTORE_PASSWORD, TRUSTSTORE_PASSWORD_FILE),
                    "give the password either in the variable or in the file, not both",
                    values -> !(values.find(TRUSTSTORE_PASSWORD).isPresent()
                            && values.find(TRUSTSTORE_PASSWORD_FILE).isPresent())));

    /** These settings alone (the CLI reads them apart from its connection options). */
    public static final Component ALONE =
            new Component("database tls", "Database TLS settings", SETTINGS, List.of(), RULES);

    /** A component's own settings followed by these. */
    public static List<Setting<?>> after(List<Setting<?>> own) {
        return java.util.stream.Stream.concat(own.stream(), SETTINGS.stream()).toList();
    }

    /** A component's own rules followed by these. */
    public static List<Rule> rulesAfter(List<Rule> own) {
        return java.util.stream.Stream.concat(own.stream(), RULES.stream()).toList();
    }

    private DatabaseTlsKeys() {}
}
