package io.falcon.local.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.cdc.CdcConfig;
import io.falcon.cdc.CdcIngest;
import io.falcon.cli.FalconCli;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.Settings;
import io.falcon.events.Topics;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.DatabaseTlsKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.security.DatabaseTls;
import io.falcon.statussink.SchemaMigrator;
import io.falcon.statussink.StatusSinkConfig;
import io.falcon.testkit.Await;
import io.falcon.testkit.kafka.TopicReader;
import io.falcon.testkit.tls.TestCertificates;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The falcon.db.tls.* settings against a real MariaDB that requires TLS of its TCP clients
 * ({@code require_secure_transport}, as a managed database may): the status-sink's migration, the CLI and
 * cdc-ingest (Debezium's snapshot connection and its binlog client, which has a TLS implementation of its own)
 * verify the server's certificate and name, and refuse a server their trust store does not vouch for. Since the
 * server takes no plain connection, anything that works here went over TLS.
 */
class DatabaseTlsIT {
    private static final Duration WAIT = Duration.ofSeconds(90);

    private static TestCertificates certificates;
    private static EmbeddedMariaDb db;
    private static Path trustPasswordFile;
    private static String database;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("falcon-db-tls");
        certificates = TestCertificates.generate(dir);
        db = EmbeddedMariaDb.launchWithTls(
                new EmbeddedMariaDb.ServerTls(certificates.brokerCertificatePem(), certificates.brokerPrivateKeyPem()));
        trustPasswordFile = Files.writeString(dir.resolve("truststore.password"), certificates.password() + "\n");
        database = SharedInfra.uniqueName("dbtls").replaceAll("[^A-Za-z0-9_]", "_");
        db.createDatabase(database);
        try (Connection admin = db.connect(database)) {
            JobsTable.create(admin);
        }
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    /** The TLS settings as a deployment sets them: the mode, the trust store, its password in a mounted file. */
    private static Map<String, String> tls(String mode, Path trustStore) {
        Map<String, String> settings = new HashMap<>();
        settings.put(DatabaseTlsKeys.MODE.key(), mode);
        if (mode.startsWith("verify-")) {
            settings.put(DatabaseTlsKeys.TRUSTSTORE.key(), trustStore.toString());
            settings.put(DatabaseTlsKeys.TRUSTSTORE_PASSWORD_FILE.key(), trustPasswordFile.toString());
        }
        return settings;
    }

    /** A connection opened the way the status-sink and the CLI open theirs (DatabaseTls's driver properties). */
    private static Connection connect(Map<String, String> tlsSettings) throws SQLException {
        DatabaseTls tls = DatabaseTls.from(SettingValues.parsePart(DatabaseTlsKeys.ALONE, tlsSettings));
        String url = db.jdbcUrl(database);
        return DriverManager.getConnection(url, tls.jdbcProperties(url, db.user(), db.password()));
    }

    private static String sessionStatus(Connection connection, String name) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SHOW SESSION STATUS LIKE '" + name + "'")) {
            return rows.next() ? rows.getString(2) : "";
        }
    }

    /**
     * MariaDB Connector/J 3.4+ against MariaDB 11.4+ also accepts a server its trust store does not vouch for when
     * the server proves, after the login, that it knows the account's password hash ("zero-configuration SSL", which
     * a man in the middle cannot do). So for these connections a wrong trust store is no refusal; for Debezium's
     * binlog client, which has a TLS client of its own, it is (below).
     */
    @Test
    void connectionsInEveryModeAreEncryptedAndAPlainOneIsRefused() throws Exception {
        for (String mode : new String[] {"verify-identity", "verify-ca", "required"}) {
            try (Connection connection = connect(tls(mode, certificates.clientTrustStore()))) {
                assertThat(sessionStatus(connection, "Ssl_version")).as(mode).startsWith("TLSv1.");
            }
        }
        // the server takes no plain connection, so none of the above was one
        assertThatThrownBy(() -> connect(tls("disabled", certificates.clientTrustStore())))
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(causes(e)).containsIgnoringCase("secure transport"));
    }

    @Test
    void theStatusSinkAppliesItsMigrationOverVerifiedTls() throws Exception {
        Map<String, String> settings = new HashMap<>(tls("verify-identity", certificates.clientTrustStore()));
        settings.put("falcon.kafka.bootstrap-servers", SharedInfra.kafka().bootstrapServers());
        settings.put("falcon.db.url", db.jdbcUrl(database));
        settings.put("falcon.db.user", db.user());
        settings.put("falcon.db.password", db.password());
        SchemaMigrator.migrate(StatusSinkConfig.from(settings));
        try (Connection connection = db.connect(database);
                Statement statement = connection.createStatement();
                ResultSet tables = statement.executeQuery("SHOW TABLES LIKE 'falcon_status_versions'")) {
            assertThat(tables.next()).as("the migration's table").isTrue();
        }
        settings.putAll(tls("disabled", certificates.clientTrustStore()));
        settings.remove(DatabaseTlsKeys.TRUSTSTORE.key());
        settings.remove(DatabaseTlsKeys.TRUSTSTORE_PASSWORD_FILE.key());
        assertThatThrownBy(() -> SchemaMigrator.migrate(StatusSinkConfig.from(settings)))
                .satisfies(e -> assertThat(causes(e)).containsIgnoringCase("secure transport"));
    }

    @Test
    void theCliSubmitsOverVerifiedTlsAndSaysWhyAPlainConnectionIsRefused() throws Exception {
        Map<String, String> env = new HashMap<>(tls("verify-identity", certificates.clientTrustStore()));
        env.put("FALCON_DB_URL", db.jdbcUrl(database));
        env.put("FALCON_DB_USER", db.user());
        env.put("FALCON_DB_PASSWORD", db.password());
        String[] submit = {
            "submit",
            "--id",
            "tls-cli-1",
            "--actor",
            "alice",
            "--name",
            "n",
            "--tpu-type",
            "v5e",
            "--topology",
            "2x4",
            "--spec",
            "{\"image\":\"train:1\",\"command\":[\"python\",\"train.py\"]}"
        };
        StringWriter out = new StringWriter();
        int exit = FalconCli.run(new Settings(env), new PrintWriter(out), new PrintWriter(out), submit);
        assertThat(exit).as(out.toString()).isZero();
        try (Connection connection = db.connect(database);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT actor FROM jobs WHERE id = 'tls-cli-1'")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString(1)).isEqualTo("alice");
        }
        env.put(DatabaseTlsKeys.MODE.key(), "disabled");
        env.remove(DatabaseTlsKeys.TRUSTSTORE.key());
        env.remove(DatabaseTlsKeys.TRUSTSTORE_PASSWORD_FILE.key());
        submit[2] = "tls-cli-2";
        StringWriter refused = new StringWriter();
        int refusedExit = FalconCli.run(new Settings(env), new PrintWriter(refused), new PrintWriter(refused), submit);
        assertThat(refusedExit).as(refused.toString()).isNotZero();
        assertThat(refused.toString()).containsIgnoringCase("secure transport");
    }

    /** cdc-ingest's settings for an engine of its own on this test's database, TLS verified with {@code trust}. */
    private static Map<String, String> cdcSettings(String engine, Path trustStore) {
        String name = database + "_" + engine;
        Map<String, String> settings = new HashMap<>(tls("verify-identity", trustStore));
        settings.put(CdcIngestKeys.FLAVOR.key(), "mariadb");
        settings.put(CdcIngestKeys.DB_HOST.key(), db.host());
        settings.put(CdcIngestKeys.DB_PORT.key(), Integer.toString(db.port()));
        settings.put(CdcIngestKeys.DB_USER.key(), db.user());
        settings.put(CdcIngestKeys.DB_PASSWORD.key(), db.password());
        settings.put(CdcIngestKeys.DB_NAME.key(), database);
        settings.put(CdcIngestKeys.SERVER_ID.key(), Long.toString(8000 + Math.floorMod(name.hashCode(), 1000)));
        settings.put(CdcIngestKeys.ENGINE_NAME.key(), name);
        settings.put(CdcIngestKeys.TOPIC_PREFIX.key(), name);
        settings.put(CdcIngestKeys.OFFSETS_TOPIC.key(), name + ".cdc.offsets");
        settings.put(CdcIngestKeys.SCHEMA_HISTORY_TOPIC.key(), name + ".cdc.schema-history");
        settings.put(CdcIngestKeys.RESTART_BACKOFF.key(), "500ms");
        settings.put(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), SharedInfra.kafka().bootstrapServers());
        settings.put(SharedKeys.KAFKA_REPLICATION_FACTOR.key(), "1");
        return settings;
    }

    /**
     * Debezium's snapshot connection and its binlog client both go over TLS with the MariaDB connector's own words
     * for the mode (it refuses MySQL's and does not start): a row before the start and one after.
     */
    @Test
    void cdcIngestSnapshotsAndStreamsTheBinlogOverVerifiedTls() throws Exception {
        insertJob("tls-cdc-snapshot");
        try (TopicReader<String, JobChange> jobs = TopicReader.fromBeginning(
                                SharedInfra.kafka().bootstrapServers(), Topics.CDC_JOBS)
                        .skippingUndecodable();
                CdcIngest cdc = new CdcIngest(CdcConfig.from(cdcSettings("ok", certificates.clientTrustStore())))) {
            cdc.start();
            jobs.awaitValue("the snapshot of tls-cdc-snapshot", WAIT, change -> isJob(change, "tls-cdc-snapshot"));
            insertJob("tls-cdc-streamed");
            jobs.awaitValue("the binlog insert of tls-cdc-streamed", WAIT, change -> isJob(change, "tls-cdc-streamed"));
        }
    }

    /**
     * The binlog client checks the server's certificate against the trust store, with no password proof to fall back
     * on (the snapshot's JDBC connection has one, above), so the stream never starts.
     */
    @Test
    void cdcIngestRefusesAServerItsTrustStoreDoesNotVouchFor() throws Exception {
        // brokerTrustStore trusts only the client's certificate, not the server's
        try (CdcIngest cdc = new CdcIngest(CdcConfig.from(cdcSettings("untrusted", certificates.brokerTrustStore())))) {
            cdc.start();
            Await.until(
                    "cdc-ingest refusing the server's certificate",
                    WAIT,
                    () -> cdc.lastError() != null
                            && causes(cdc.lastError())
                                    .toLowerCase(java.util.Locale.ROOT)
                                    .contains("certif"),
                    () -> "last error: " + (cdc.lastError() == null ? "none" : causes(cdc.lastError())));
        }
    }

    private static boolean isJob(JobChange change, String id) {
        return change.after().map(row -> row.id().equals(id)).orElse(false);
    }

    private static void insertJob(String id) throws SQLException {
        try (Connection connection = db.connect(database);
                Statement statement = connection.createStatement()) {
            statement.executeUpdate("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec) VALUES ('" + id
                    + "', 'alice', 'n', 'v5e', '2x4', '{}')");
        }
    }

    /** The messages of a failure and its causes, where the drivers put the TLS reason. */
    private static String causes(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t).append('\n');
        }
        return text.toString();
    }
}
