package io.falcon.local;

import io.falcon.cdc.CdcConfig;
import io.falcon.cdc.CdcIngest;
import io.falcon.console.ConsoleConfig;
import io.falcon.console.ConsoleMain;
import io.falcon.embedded.Database;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.KafkaBroker;
import io.falcon.events.TopicProvisioner;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.ConsoleKeys;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.config.FaultStreamsKeys;
import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.config.StatusSinkKeys;
import io.falcon.executor.ExecutorApp;
import io.falcon.executor.ExecutorConfig;
import io.falcon.faults.FaultStreamsApp;
import io.falcon.faults.FaultStreamsConfig;
import io.falcon.fleetsim.FleetSim;
import io.falcon.fleetsim.FleetSimConfig;
import io.falcon.scheduler.SchedulerApp;
import io.falcon.scheduler.SchedulerConfig;
import io.falcon.statussink.SchemaMigrator;
import io.falcon.statussink.StatusSink;
import io.falcon.statussink.StatusSinkConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All of Falcon in one JVM on the embedded default: a KRaft broker, MariaDB with binlog, a simulated fleet and the
 * five components (cdc-ingest, scheduler, executor, status-sink, fault-streams), wired exactly as in a real
 * deployment but for the endpoints.
 */
public final class LocalFalcon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalFalcon.class);
    public static final int PARTITIONS = 3;

    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private final KafkaBroker kafka;
    private final Database db;
    private final String database;
    private final FleetSim fleet;

    private LocalFalcon(KafkaBroker kafka, Database db, String database, FleetSim fleet) {
        this.kafka = kafka;
        this.db = db;
        this.database = database;
        this.fleet = fleet;
    }

    /**
     * Starts the components on the given broker and database. The caller owns kafka and db; the fleet and the
     * components are closed by {@link #close()}. Names (database, consumer groups, state dir) derive from
     * instanceName so that several instances can share one broker in tests.
     */
    public static LocalFalcon start(
            KafkaBroker kafka, Database db, String instanceName, Path stateDir, FleetSimConfig fleetConfig)
            throws SQLException {
        return start(kafka, db, instanceName, stateDir, fleetConfig, DemoFleet.CLUSTERS, Map.of());
    }

    /**
     * As above on a fleet of the caller's: {@code clusters} are registered as clusters rows and must be the clusters
     * {@code fleetConfig} simulates ({@link #fleetConfig}); {@code overrides} (component catalog name -> setting key ->
     * value) are laid over each component's local settings, e.g. for a load harness.
     */
    public static LocalFalcon start(
            KafkaBroker kafka,
            Database db,
            String instanceName,
            Path stateDir,
            FleetSimConfig fleetConfig,
            List<DemoFleet.DemoCluster> clusters,
            Map<String, Map<String, String>> overrides)
            throws SQLException {
        String database = instanceName.replaceAll("[^A-Za-z0-9_]", "_");
        db.createDatabase(database);
        try (Connection connection = db.connect(database)) {
            JobsTable.create(connection);
        }
        SchemaMigrator.migrate(db.jdbcUrl(database), db.user(), db.password());
        TopicProvisioner.ensureAll(kafka.bootstrapServers(), PARTITIONS, (short) 1);

        FleetSim fleet = FleetSim.start(fleetConfig);
        LocalFalcon falcon = new LocalFalcon(kafka, db, database, fleet);
        falcon.started.push(fleet);
        try {
            falcon.registerClusters(clusters);
            falcon.startComponents(instanceName, stateDir, overrides);
        } catch (RuntimeException | SQLException e) {
            falcon.close();
            throw e;
        }
        return falcon;
    }

    public static FleetSimConfig demoFleetConfig() {
        return fleetConfig(DemoFleet.CLUSTERS);
    }

    /** The fleet-sim configuration simulating {@code clusters} (fast test defaults; adjust with its with* methods). */
    public static FleetSimConfig fleetConfig(List<DemoFleet.DemoCluster> clusters) {
        return FleetSimConfig.of(clusters.stream()
                .map(DemoFleet.DemoCluster::simulation)
                .toArray(io.falcon.fleetsim.EdgeClusterConfig[]::new));
    }

    private void registerClusters(List<DemoFleet.DemoCluster> clusters) throws SQLException {
        try (Connection connection = db.connect(database)) {
            DemoFleet.register(connection, clusters);
        }
    }

    /** Where the embedded parts listen: what the local settings point the components at. */
    public record Endpoints(
            String kafkaBootstrap,
            String dbHost,
            int dbPort,
            String dbUser,
            String dbPassword,
            String database,
            String jdbcUrl,
            String gkeEndpoint,
            String computeEndpoint) {}

    /**
     * The raw settings each component runs with locally, keyed by the component's catalog name: catalog keys only,
     * so that they are checked like a deployment's (DeploymentFilesTest). Names derive from instanceName so that
     * several instances can share one broker.
     */
    public static Map<String, Map<String, String>> componentSettings(Endpoints at, String instanceName, Path stateDir) {
        Map<String, String> cdc = new HashMap<>();
        // the embedded MariaDB, or MySQL when the JDBC URL says so (the mysql8 profile's end-to-end test)
        cdc.put(CdcIngestKeys.FLAVOR.key(), at.jdbcUrl().startsWith("jdbc:mysql:") ? "mysql" : "mariadb");
        cdc.put(CdcIngestKeys.DB_HOST.key(), at.dbHost());
        cdc.put(CdcIngestKeys.DB_PORT.key(), Integer.toString(at.dbPort()));
        cdc.put(CdcIngestKeys.DB_USER.key(), at.dbUser());
        cdc.put(CdcIngestKeys.DB_PASSWORD.key(), at.dbPassword());
        cdc.put(CdcIngestKeys.DB_NAME.key(), at.database());
        cdc.put(SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), at.kafkaBootstrap());
        cdc.put(CdcIngestKeys.ENGINE_NAME.key(), instanceName + "-cdc");
        cdc.put(CdcIngestKeys.OFFSETS_TOPIC.key(), instanceName + ".cdc.offsets");
        cdc.put(CdcIngestKeys.SCHEMA_HISTORY_TOPIC.key(), instanceName + ".cdc.schema-history");
        cdc.put(SharedKeys.KAFKA_REPLICATION_FACTOR.key(), "1");

        Map<String, String> scheduler = Map.of(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(),
                at.kafkaBootstrap(),
                SharedKeys.KAFKA_REPLICATION_FACTOR.key(),
                "1",
                SchedulerKeys.APPLICATION_ID.key(),
                instanceName + "-scheduler",
                SchedulerKeys.STATE_DIR.key(),
                stateDir.resolve("scheduler").toString());

        Map<String, String> executor = new HashMap<>(
                ExecutorConfig.simulatorDefaults(at.kafkaBootstrap(), at.gkeEndpoint(), at.computeEndpoint()));
        executor.put(ExecutorKeys.GROUP_ID.key(), instanceName + "-executor");

        Map<String, String> sink = Map.of(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), at.kafkaBootstrap(),
                StatusSinkKeys.GROUP_ID.key(), instanceName + "-status-sink",
                SharedKeys.DB_URL.key(), at.jdbcUrl(),
                SharedKeys.DB_USER.key(), at.dbUser(),
                SharedKeys.DB_PASSWORD.key(), at.dbPassword());

        Map<String, String> faults = Map.of(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(),
                at.kafkaBootstrap(),
                SharedKeys.KAFKA_REPLICATION_FACTOR.key(),
                "1",
                FaultStreamsKeys.APPLICATION_ID.key(),
                instanceName + "-fault-streams",
                FaultStreamsKeys.STATE_DIR.key(),
                stateDir.resolve("fault-streams").toString());
        return Map.of(
                CdcIngestKeys.COMPONENT.name(),
                Map.copyOf(cdc),
                SchedulerKeys.COMPONENT.name(),
                scheduler,
                ExecutorKeys.COMPONENT.name(),
                Map.copyOf(executor),
                StatusSinkKeys.COMPONENT.name(),
                sink,
                FaultStreamsKeys.COMPONENT.name(),
                faults);
    }

    private void startComponents(String instanceName, Path stateDir, Map<String, Map<String, String>> overrides) {
        Map<String, Map<String, String>> settings = new HashMap<>(componentSettings(
                new Endpoints(
                        kafka.bootstrapServers(),
                        db.host(),
                        db.port(),
                        db.user(),
                        db.password(),
                        database,
                        db.jdbcUrl(database),
                        fleet.gkeEndpoint(),
                        fleet.computeEndpoint()),
                instanceName,
                stateDir));
        overrides.forEach((component, values) -> {
            Map<String, String> merged = new HashMap<>(settings.getOrDefault(component, Map.of()));
            merged.putAll(values);
            settings.put(component, merged);
        });
        CdcIngest ingest = new CdcIngest(CdcConfig.from(settings.get(CdcIngestKeys.COMPONENT.name())));
        ingest.start();
        started.push(ingest);
        started.push(new SchedulerApp(SchedulerConfig.from(settings.get(SchedulerKeys.COMPONENT.name()))).start());
        started.push(new ExecutorApp(ExecutorConfig.from(settings.get(ExecutorKeys.COMPONENT.name()))).start());
        started.push(new StatusSink(StatusSinkConfig.from(settings.get(StatusSinkKeys.COMPONENT.name()))).start());
        started.push(
                new FaultStreamsApp(FaultStreamsConfig.from(settings.get(FaultStreamsKeys.COMPONENT.name()))).start());
        LOG.info(
                "falcon local started: kafka={} db={} gke={} compute={}",
                kafka.bootstrapServers(),
                db.jdbcUrl(database),
                fleet.gkeEndpoint(),
                fleet.computeEndpoint());
    }

    /**
     * The console's local settings: this instance's broker and database, the loopback address and no authentication
     * (only this machine reaches it), on {@code port} (0: any free port).
     */
    public static Map<String, String> consoleSettings(Endpoints at, int port) {
        return Map.of(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), at.kafkaBootstrap(),
                SharedKeys.DB_URL.key(), at.jdbcUrl(),
                SharedKeys.DB_USER.key(), at.dbUser(),
                SharedKeys.DB_PASSWORD.key(), at.dbPassword(),
                ConsoleKeys.HOST.key(), "127.0.0.1",
                ConsoleKeys.PORT.key(), Integer.toString(port),
                ConsoleKeys.AUTH.key(), "none");
    }

    /**
     * Starts the console on this Falcon (closed with it) and returns it; its pages are at
     * {@code http://127.0.0.1:PORT/}.
     */
    public ConsoleMain.Console startConsole(int port) {
        ConsoleMain.Console console = ConsoleMain.Console.start(
                ConsoleConfig.from(consoleSettings(
                        new Endpoints(
                                kafka.bootstrapServers(),
                                db.host(),
                                db.port(),
                                db.user(),
                                db.password(),
                                database,
                                db.jdbcUrl(database),
                                fleet.gkeEndpoint(),
                                fleet.computeEndpoint()),
                        port)),
                Clock.systemUTC());
        started.push(console);
        return console;
    }

    public Connection connect() throws SQLException {
        return db.connect(database);
    }

    public String jdbcUrl() {
        return db.jdbcUrl(database);
    }

    public FleetSim fleet() {
        return fleet;
    }

    public KafkaBroker kafka() {
        return kafka;
    }

    @Override
    public void close() {
        while (!started.isEmpty()) {
            AutoCloseable component = started.pop();
            try {
                component.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed", component.getClass().getSimpleName(), e);
            }
        }
    }
}
