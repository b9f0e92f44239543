package io.falcon.cli;

import io.falcon.events.Settings;
import io.falcon.events.TerminalText;
import io.falcon.events.config.DatabaseTlsKeys;
import io.falcon.events.config.KafkaSecurityKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.events.jobs.JobBoard;
import io.falcon.events.security.DatabaseTls;
import io.falcon.events.security.KafkaClientSecurity;
import io.falcon.events.security.KafkaConnection;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * Where the database and Kafka are: options, else the settings (environment FALCON_DB_URL, FALCON_DB_USER,
 * FALCON_DB_PASSWORD, FALCON_KAFKA_BOOTSTRAP_SERVERS or -Dfalcon.db.url=...). Inherited by every subcommand.
 */
public final class Connections {
    public static final String DB_URL = "falcon.db.url";
    public static final String DB_USER = "falcon.db.user";
    public static final String DB_PASSWORD = "falcon.db.password";
    public static final String BOOTSTRAP_SERVERS = "falcon.kafka.bootstrap-servers";
    static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(10);
    private static final int DB_LOGIN_TIMEOUT_SECONDS = 5;

    @Option(
            names = "--db-url",
            scope = ScopeType.INHERIT,
            paramLabel = "JDBC_URL",
            description = "JDBC URL of the database holding the jobs and clusters tables (env FALCON_DB_URL)")
    String dbUrl;

    @Option(
            names = "--db-user",
            scope = ScopeType.INHERIT,
            paramLabel = "USER",
            description = "database user (env FALCON_DB_USER)")
    String dbUser;

    /**
     * Refused: a process's command line is readable by every user of the machine (issue 20). Kept as a hidden option
     * so that a script still passing it gets this explanation instead of "unknown option".
     */
    @Option(names = "--db-password", scope = ScopeType.INHERIT, hidden = true, paramLabel = "PASSWORD")
    String dbPasswordOnCommandLine;

    @Option(
            names = "--db-password-file",
            scope = ScopeType.INHERIT,
            paramLabel = "FILE",
            description = "file holding the database password (a mounted Secret), or the env FALCON_DB_PASSWORD;"
                    + " never on the command line")
    java.nio.file.Path dbPasswordFile;

    @Option(
            names = "--bootstrap-servers",
            scope = ScopeType.INHERIT,
            paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers (env FALCON_KAFKA_BOOTSTRAP_SERVERS)")
    String bootstrapServers;

    private Settings settings = new Settings(java.util.Map.of());
    /** The passwords of the database connection made (URL and password), masked in whatever the CLI prints. */
    private final java.util.Set<String> databasePasswords = new java.util.LinkedHashSet<>();

    void settings(Settings settings) {
        this.settings = settings;
    }

    Settings settings() {
        return settings;
    }

    String dbUrl() {
        return Optional.ofNullable(dbUrl)
                .or(() -> settings.find(DB_URL))
                .orElseThrow(() -> new CliException(
                        FalconCli.EXIT_UNREACHABLE, "no database configured: pass --db-url or set FALCON_DB_URL"));
    }

    /** Opens a connection, or fails with one line naming the URL (its password masked). */
    public Connection database() {
        String url = dbUrl();
        String user =
                Optional.ofNullable(dbUser).or(() -> settings.find(DB_USER)).orElse("");
        String password = password().or(() -> settings.find(DB_PASSWORD)).orElse("");
        databasePasswords.addAll(TerminalText.passwordsOf(url));
        databasePasswords.add(password);
        DriverManager.setLoginTimeout(DB_LOGIN_TIMEOUT_SECONDS);
        try {
            return DriverManager.getConnection(url, databaseTls().jdbcProperties(url, user, password));
        } catch (SQLException e) {
            throw CliException.unreachable(
                    withoutDatabasePasswords("cannot reach the database at " + url + ": " + firstLine(e.getMessage())));
        }
    }

    /**
     * The clusters' names by id when a database is configured and answers, for commands that read Kafka only and show
     * a cluster; otherwise none, and such a command shows the ids alone.
     */
    java.util.Map<String, String> clusterNamesIfConfigured() {
        if (dbUrl == null && settings.find(DB_URL).isEmpty()) {
            return java.util.Map.of();
        }
        try (Connection connection = database()) {
            return JobBoard.clusterNames(connection);
        } catch (CliException | SQLException e) {
            return java.util.Map.of();
        }
    }

    /**
     * The text with the database's passwords masked: those in any JDBC URL, and the URL's and the connection's own
     * wherever a driver's message quotes them.
     */
    String withoutDatabasePasswords(String text) {
        return TerminalText.withoutPasswords(text, databasePasswords);
    }

    private Optional<String> password() {
        if (dbPasswordOnCommandLine != null) {
            throw CliException.refused("--db-password is refused: a password on the command line can be read by every"
                    + " user of this machine; set FALCON_DB_PASSWORD or pass --db-password-file FILE");
        }
        if (dbPasswordFile == null) {
            return Optional.empty();
        }
        try {
            // the same reading as the components' password files: the trailing line break dropped, never shown
            return Optional.of(io.falcon.events.security.SecretFiles.read(dbPasswordFile));
        } catch (IllegalStateException e) {
            throw CliException.refused("--db-password-file: " + e.getMessage());
        }
    }

    String bootstrapServers() {
        return Optional.ofNullable(bootstrapServers)
                .or(() -> settings.find(BOOTSTRAP_SERVERS))
                .orElseThrow(() -> new CliException(
                        FalconCli.EXIT_UNREACHABLE,
                        "no Kafka configured: pass --bootstrap-servers or set FALCON_KAFKA_BOOTSTRAP_SERVERS"));
    }

    Properties consumer() {
        Properties props = common();
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return props;
    }

    Properties producer() {
        Properties props = common();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(KAFKA_TIMEOUT.toMillis()));
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(KAFKA_TIMEOUT.toMillis()));
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(KAFKA_TIMEOUT.toMillis()));
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        return props;
    }

    /** TLS to the database from the environment (falcon.db.tls.*). */
    DatabaseTls databaseTls() {
        try {
            return DatabaseTls.from(SettingValues.parsePart(DatabaseTlsKeys.ALONE, settings.values()));
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new CliException(FalconCli.EXIT_UNREACHABLE, "invalid database TLS settings: " + e.getMessage());
        }
    }

    /**
     * Kafka's address (option or setting) with the security settings of the environment (falcon.kafka.security.*,
     * ssl.*, sasl.*): secrets are never command-line options.
     */
    KafkaConnection kafka() {
        KafkaClientSecurity security;
        try {
            security = KafkaClientSecurity.from(SettingValues.parsePart(KafkaSecurityKeys.ALONE, settings.values()));
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new CliException(FalconCli.EXIT_UNREACHABLE, "invalid Kafka security settings: " + e.getMessage());
        }
        return new KafkaConnection(bootstrapServers(), security);
    }

    private Properties common() {
        Properties props = kafka().properties();
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "falcon-cli");
        props.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(KAFKA_TIMEOUT.toMillis()));
        props.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(KAFKA_TIMEOUT.toMillis()));
        props.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        return props;
    }

    static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("").trim();
    }
}
