package io.falcon.local;

import io.falcon.cdc.CdcConfig;
import io.falcon.cdc.CdcIngest;
import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.events.Settings;
import io.falcon.events.TopicProvisioner;
import io.falcon.executor.ExecutorApp;
import io.falcon.faults.FaultStreamsApp;
import io.falcon.faults.FaultStreamsConfig;
import io.falcon.executor.ExecutorConfig;
import io.falcon.fleetsim.FleetSim;
import io.falcon.fleetsim.FleetSimConfig;
import io.falcon.scheduler.SchedulerApp;
import io.falcon.scheduler.SchedulerConfig;
import io.falcon.statussink.SchemaMigrator;
import io.falcon.statussink.StatusSink;
import io.falcon.statussink.StatusSinkConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
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
    private final EmbeddedKafka kafka;
    private final EmbeddedMariaDb db;
    private final String database;
    private final FleetSim fleet;

    private LocalFalcon(EmbeddedKafka kafka, EmbeddedMariaDb db, String database, FleetSim fleet) {
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
    public static LocalFalcon start(EmbeddedKafka kafka, EmbeddedMariaDb db, String instanceName, Path stateDir,
            FleetSimConfig fleetConfig) throws SQLException {
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
            falcon.registerDemoClusters();
            falcon.startComponents(instanceName, stateDir);
        } catch (RuntimeException | SQLException e) {
            falcon.close();
            throw e;
        }
        return falcon;
    }

    public static FleetSimConfig demoFleetConfig() {
        return FleetSimConfig.of(DemoFleet.CLUSTERS.stream().map(DemoFleet.DemoCluster::simulation)
                .toArray(io.falcon.fleetsim.EdgeClusterConfig[]::new));
    }

    private void registerDemoClusters() throws SQLException {
        try (Connection connection = db.connect(database); PreparedStatement insert = connection.prepareStatement(
                "INSERT IGNORE INTO clusters (id, name, project, location, tpu_type, gcs_bucket, default_reservation,"
                        + " status) VALUES (?, ?, ?, ?, ?, ?, ?, 'active')")) {
            for (DemoFleet.DemoCluster cluster : DemoFleet.CLUSTERS) {
                insert.setString(1, cluster.id());
                insert.setString(2, cluster.name());
                insert.setString(3, cluster.project());
                insert.setString(4, cluster.location());
                insert.setString(5, cluster.tpuType());
                insert.setString(6, cluster.gcsBucket());
                insert.setString(7, cluster.defaultReservation().orElse(null));
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    private void startComponents(String instanceName, Path stateDir) {
        Map<String, String> cdc = new HashMap<>();
        cdc.put(CdcConfig.FLAVOR, "mariadb");
        cdc.put(CdcConfig.DB_HOST, db.host());
        cdc.put(CdcConfig.DB_PORT, Integer.toString(db.port()));
        cdc.put(CdcConfig.DB_USER, db.user());
        cdc.put(CdcConfig.DB_PASSWORD, db.password());
        cdc.put(CdcConfig.DB_NAME, database);
        cdc.put(CdcConfig.KAFKA_BOOTSTRAP, kafka.bootstrapServers());
        cdc.put(CdcConfig.ENGINE_NAME, instanceName + "-cdc");
        cdc.put(CdcConfig.OFFSETS_TOPIC, instanceName + ".cdc.offsets");
        cdc.put(CdcConfig.SCHEMA_HISTORY_TOPIC, instanceName + ".cdc.schema-history");
        cdc.put(CdcConfig.REPLICATION_FACTOR, "1");
        CdcIngest ingest = new CdcIngest(CdcConfig.fromMap(cdc));
        ingest.start();
        started.push(ingest);

        Settings shared = new Settings(Map.of(
                "falcon.kafka.bootstrap-servers", kafka.bootstrapServers(),
                "falcon.kafka.replication-factor", "1",
                "falcon.scheduler.application-id", instanceName + "-scheduler",
                "falcon.scheduler.state-dir", stateDir.resolve("scheduler").toString(),
                "falcon.sink.group-id", instanceName + "-status-sink",
                "falcon.db.url", db.jdbcUrl(database),
                "falcon.db.user", db.user(),
                "falcon.db.password", db.password()));
        started.push(new SchedulerApp(SchedulerConfig.from(shared)).start());

        Map<String, String> executor = new HashMap<>(ExecutorConfig.simulatorDefaults(kafka.bootstrapServers(),
                fleet.gkeEndpoint(), fleet.computeEndpoint()));
        executor.put(ExecutorConfig.GROUP_ID, instanceName + "-executor");
        started.push(new ExecutorApp(ExecutorConfig.fromMap(executor)).start());

        started.push(new StatusSink(StatusSinkConfig.from(shared)).start());
        started.push(new FaultStreamsApp(FaultStreamsConfig.from(new Settings(Map.of(
                "falcon.kafka.bootstrap-servers", kafka.bootstrapServers(),
                "falcon.kafka.replication-factor", "1",
                "falcon.faults.application-id", instanceName + "-fault-streams",
                "falcon.faults.state-dir", stateDir.resolve("fault-streams").toString())))).start());
        LOG.info("falcon local started: kafka={} db={} gke={} compute={}", kafka.bootstrapServers(),
                db.jdbcUrl(database), fleet.gkeEndpoint(), fleet.computeEndpoint());
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

    public EmbeddedKafka kafka() {
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
