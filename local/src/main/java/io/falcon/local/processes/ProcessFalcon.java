package io.falcon.local.processes;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.Ports;
import io.falcon.events.GroupMembership;
import io.falcon.events.TopicProvisioner;
import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.local.DemoFleet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Falcon as separate processes on the embedded default, supervised from here: the Kafka broker (its own JVM), MariaDB
 * (its own mariadbd), fleet-sim (its own JVM, appending its record of served creates and deletes to a file), and each
 * of the five components in its own JVM. fleet-sim and the components run as the image runs them: through
 * {@code deploy/entrypoint.sh} (which picks the main class and the JSON log configuration) on their module's image
 * class path ({@link ImageClassPath}), with the environment {@code docker-compose.yml} gives them
 * ({@link DeploymentSpec}). Only the broker, which stands in for Kafka, runs on this JVM's class path. Any of them can
 * be killed with SIGKILL and
 * started again with the same command, environment, ports and data; extra instances of a component can be added and
 * removed (a Kafka group rebalance). This is what {@code ./falcon-local --processes} runs and what {@code bench/chaos}
 * drives.
 */
public final class ProcessFalcon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessFalcon.class);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    /** The broker's logs as JSON lines too, like every other process's (it is not started by the entrypoint). */
    private static final String JSON_LOGS = "-Dlogback.configurationFile=falcon-logback-json.xml";
    /** fleet-sim's JVM options (it holds every simulated cluster's Kubernetes API). */
    private static final List<String> FLEET_SIM_JVM = List.of("-Xmx512m", "-XX:+UseSerialGC");

    public static final String DATABASE = "falcon";

    /**
     * What to start.
     *
     * @param repositoryRoot where docker-compose.yml and deploy/entrypoint.sh are
     * @param dataDir broker, database, state, logs and the fleet record live here (kept across restarts)
     * @param clusters the clusters rows to register, and {@code simulation} the fleet-sim clusters behind them
     * @param poolDelays fleet-sim's node-pool creation and deletion delays
     * @param jvmOptions options of every component JVM (heap, GC)
     */
    public record Options(
            Path repositoryRoot,
            Path dataDir,
            List<DemoFleet.DemoCluster> clusters,
            List<EdgeClusterConfig> simulation,
            Duration[] poolDelays,
            List<String> jvmOptions,
            Map<String, Map<String, String>> overrides) {

        public static Options demo(Path repositoryRoot, Path dataDir) {
            return new Options(
                    repositoryRoot,
                    dataDir,
                    DemoFleet.CLUSTERS,
                    DemoFleet.CLUSTERS.stream()
                            .map(DemoFleet.DemoCluster::simulation)
                            .toList(),
                    new Duration[] {Duration.ofSeconds(3), Duration.ofSeconds(2)},
                    List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k"),
                    Map.of());
        }

        public Options withFleet(
                List<DemoFleet.DemoCluster> rows, List<EdgeClusterConfig> sim, Duration create, Duration delete) {
            return new Options(
                    repositoryRoot, dataDir, rows, sim, new Duration[] {create, delete}, jvmOptions, overrides);
        }

        /** Environment set on top of docker-compose's for one component (say why wherever it is used). */
        public Options withOverride(String component, String variable, String value) {
            Map<String, Map<String, String>> all = new LinkedHashMap<>(overrides);
            Map<String, String> own = new LinkedHashMap<>(all.getOrDefault(component, Map.of()));
            own.put(variable, value);
            all.put(component, Map.copyOf(own));
            return new Options(repositoryRoot, dataDir, clusters, simulation, poolDelays, jvmOptions, Map.copyOf(all));
        }
    }

    private final Options options;
    private final DeploymentSpec deployment;
    /** The image class path of each module run here, by module. */
    private final Map<String, String> classPaths;

    private final EmbeddedMariaDb mariaDb;
    private final ChildProcess kafka;
    private final int kafkaPort;
    private ChildProcess fleetSim;
    private DeploymentSpec.Endpoints endpoints;
    /** Every component instance by name (scheduler-1, scheduler-2, ...), in start order. */
    private final Map<String, ChildProcess> instances = new LinkedHashMap<>();

    private ProcessFalcon(
            Options options,
            DeploymentSpec deployment,
            Map<String, String> classPaths,
            EmbeddedMariaDb mariaDb,
            ChildProcess kafka,
            int kafkaPort) {
        this.options = options;
        this.deployment = deployment;
        this.classPaths = Map.copyOf(classPaths);
        this.mariaDb = mariaDb;
        this.kafka = kafka;
        this.kafkaPort = kafkaPort;
    }

    /** The console instances' page ports, by instance name. */
    private final Map<String, Integer> consolePages = new LinkedHashMap<>();

    public static ProcessFalcon start(Options options) throws SQLException {
        DeploymentSpec deployment = DeploymentSpec.read(options.repositoryRoot());
        // every class path first: a build that was not packaged fails here, before any process starts
        Map<String, String> classPaths = new LinkedHashMap<>();
        for (String component : imageComponents()) {
            String module = deployment.launch(component).module();
            classPaths.put(module, ImageClassPath.of(options.repositoryRoot(), module));
        }
        Path data = options.dataDir().toAbsolutePath();
        mkdirs(data.resolve("logs"));
        int kafkaPort = Ports.freePort();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ChildProcess kafka = new ChildProcess(
                "kafka",
                List.of(
                        java,
                        "-Xmx768m",
                        "-XX:+UseSerialGC",
                        JSON_LOGS,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.falcon.embedded.EmbeddedKafkaMain",
                        data.resolve("kafka").toString(),
                        Integer.toString(kafkaPort)),
                Map.of(),
                data.resolve("logs/kafka.log"),
                new ChildProcess.Readiness.LogLine("kafka ready"));
        kafka.start(START_TIMEOUT);
        EmbeddedMariaDb mariaDb;
        try {
            mariaDb = EmbeddedMariaDb.launch(data.resolve("mariadb"));
        } catch (RuntimeException e) {
            kafka.stop(STOP_GRACE);
            throw e;
        }
        ProcessFalcon falcon = new ProcessFalcon(options, deployment, classPaths, mariaDb, kafka, kafkaPort);
        try {
            falcon.startRest();
        } catch (RuntimeException | SQLException e) {
            falcon.close();
            throw e;
        }
        return falcon;
    }

    private void startRest() throws SQLException {
        Path data = options.dataDir().toAbsolutePath();
        TopicProvisioner.ensureAll(bootstrapServers(), 3, (short) 1);
        mariaDb.createDatabase(DATABASE);
        try (Connection connection = connect()) {
            JobsTable.create(connection);
        }
        Path fleetFile = data.resolve("fleet.json");
        try {
            new ObjectMapper().writeValue(fleetFile.toFile(), Map.of("clusters", options.simulation()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        fleetSim = new ChildProcess(
                "fleet-sim",
                entrypointCommand(
                        "fleet-sim",
                        List.of(
                                "--fleet",
                                fleetFile.toString(),
                                "--record",
                                recordFile().toString(),
                                "--pool-delays",
                                millis(options.poolDelays()[0]) + "," + millis(options.poolDelays()[1]),
                                "--tick",
                                "50ms")),
                launcherEnvironment("fleet-sim", FLEET_SIM_JVM),
                data.resolve("logs/fleet-sim.log"),
                new ChildProcess.Readiness.LogLine("fleet-sim ready"));
        fleetSim.start(START_TIMEOUT);
        String ready = fleetSim.outputLine(l -> l.startsWith("fleet-sim ready")).orElseThrow();
        endpoints = new DeploymentSpec.Endpoints(
                bootstrapServers(), mariaDb.host(), mariaDb.port(), field(ready, "gke="), field(ready, "compute="));
        for (String component : DeploymentSpec.PIPELINE) {
            addInstance(component);
            if (component.equals("status-sink")) {
                // status-sink's migration has created the clusters table; register the fleet as upper components do
                try (Connection connection = connect()) {
                    DemoFleet.register(connection, options.clusters());
                }
            }
        }
        LOG.info("falcon processes started: {}", instances.keySet());
    }

    /** Starts one more instance of a component (same environment, its own ops port and state dir); its name. */
    public synchronized String addInstance(String component) {
        DeploymentSpec.Component spec = deployment.component(component);
        int n = 1;
        while (instances.containsKey(component + "-" + n)) {
            n++;
        }
        String name = component + "-" + n;
        int opsPort = Ports.freePort();
        Path state = options.dataDir().toAbsolutePath().resolve("state").resolve(name);
        List<String> command = entrypointCommand(component, List.of());
        Map<String, String> environment = new LinkedHashMap<>(endpoints.rewrite(spec.environment(), opsPort, state));
        environment.putAll(launcherEnvironment(component, options.jvmOptions()));
        // its stable name, as a pod's: a restarted instance rejoins its consumer groups at once (GroupMembership)
        environment.put(GroupMembership.INSTANCE_ID_ENV, name);
        if (component.equals("console")) {
            // on this machine only, without compose's token file: the loopback address and no authentication
            int pagesPort = Ports.freePort();
            environment.remove("FALCON_CONSOLE_TOKEN_FILE");
            environment.put("FALCON_CONSOLE_AUTH", "none");
            environment.put("FALCON_CONSOLE_HOST", "127.0.0.1");
            environment.put("FALCON_CONSOLE_PORT", Integer.toString(pagesPort));
            consolePages.put(name, pagesPort);
        }
        environment.putAll(options.overrides().getOrDefault(component, Map.of()));
        ChildProcess child = new ChildProcess(
                name,
                command,
                environment,
                options.dataDir().toAbsolutePath().resolve("logs").resolve(name + ".log"),
                new ChildProcess.Readiness.OpsReady(opsPort));
        instances.put(name, child);
        child.start(START_TIMEOUT);
        return name;
    }

    /** The components this deployment runs from the image: the pipeline and fleet-sim. */
    static List<String> imageComponents() {
        List<String> all = new ArrayList<>(DeploymentSpec.PIPELINE);
        all.add("fleet-sim");
        return List.copyOf(all);
    }

    /** What the image runs for {@code component}: its entrypoint, here {@code deploy/entrypoint.sh} of this tree. */
    List<String> entrypointCommand(String component, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add("/bin/sh");
        command.add(options.repositoryRoot()
                .toAbsolutePath()
                .resolve("deploy/entrypoint.sh")
                .toString());
        command.add(component);
        command.addAll(arguments);
        return command;
    }

    /**
     * The launcher variables the entrypoint reads: the module's image class path (FALCON_CLASSPATH, instead of the
     * image's /falcon/classpath/MODULE), JSON logs (FALCON_LOG_FORMAT, the image's default), the JVM options
     * (FALCON_JAVA_OPTS), and this JVM's {@code java} first on the PATH.
     */
    Map<String, String> launcherEnvironment(String component, List<String> jvmOptions) {
        String module = deployment.launch(component).module();
        String classPath = classPaths.get(module);
        if (classPath == null) {
            throw new IllegalArgumentException("no image class path of module " + module + " (" + component + ")");
        }
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("FALCON_CLASSPATH", classPath);
        environment.put("FALCON_LOG_FORMAT", "json");
        environment.put("FALCON_JAVA_OPTS", String.join(" ", jvmOptions));
        String javaBin = Path.of(System.getProperty("java.home"), "bin").toString();
        environment.put(
                "PATH", javaBin + java.io.File.pathSeparator + System.getenv().getOrDefault("PATH", ""));
        return environment;
    }

    /** Stops an instance for good (graceful) and forgets it; the others take its work over. */
    public synchronized void removeInstance(String name) {
        instance(name).stop(STOP_GRACE);
        instances.remove(name);
    }

    /** SIGKILL an instance (no shutdown hook, nothing flushed). */
    public void kill(String name) {
        instance(name).kill();
    }

    /** Starts a killed or stopped instance again with the same command, environment, ports and state. */
    public void restart(String name) {
        instance(name).start(START_TIMEOUT);
    }

    /** SIGKILL the broker and start it again on the same port and log dir. */
    public void restartBroker() {
        kafka.kill();
        kafka.start(START_TIMEOUT);
    }

    /** Stop MariaDB and start it again on the same port and data dir. */
    public void restartMariaDb() {
        mariaDb.stop();
        mariaDb.start();
    }

    public synchronized ChildProcess instance(String name) {
        ChildProcess child = instances.get(name);
        if (child == null) {
            throw new IllegalArgumentException("no instance " + name + " (running: " + instances.keySet() + ")");
        }
        return child;
    }

    public synchronized List<String> instanceNames() {
        return List.copyOf(instances.keySet());
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + kafkaPort;
    }

    public String jdbcUrl() {
        return mariaDb.jdbcUrl(DATABASE);
    }

    /** The database user (and {@link #dbPassword()}) a client such as the CLI logs in with. */
    public String dbUser() {
        return mariaDb.user();
    }

    public String dbPassword() {
        return mariaDb.password();
    }

    public Connection connect() throws SQLException {
        return mariaDb.connect(DATABASE);
    }

    /** fleet-sim's append-only record of served node-pool and Kubernetes Job creates and deletes. */
    public Path recordFile() {
        return options.dataDir().toAbsolutePath().resolve("fleet-record.jsonl");
    }

    public String gkeEndpoint() {
        return endpoints.gke();
    }

    /** Where everything is, for a person. */
    public synchronized String describe() {
        StringBuilder b = new StringBuilder();
        b.append(String.format("  %-16s %-8s %s%n", "process", "pid", "where"));
        b.append(String.format(
                "  %-16s %-8s %s (log dir %s)%n",
                "kafka",
                kafka.pid().map(String::valueOf).orElse("-"),
                bootstrapServers(),
                options.dataDir().resolve("kafka")));
        b.append(String.format(
                "  %-16s %-8s %s user %s (data dir %s)%n",
                "mariadb", "-", jdbcUrl(), mariaDb.user(), mariaDb.dataDir()));
        b.append(String.format(
                "  %-16s %-8s gke %s, compute %s, record %s%n",
                "fleet-sim",
                fleetSim.pid().map(String::valueOf).orElse("-"),
                endpoints.gke(),
                endpoints.compute(),
                recordFile()));
        instances.forEach((name, child) -> b.append(String.format(
                "  %-16s %-8s ops http://127.0.0.1:%d (/healthz " + "/readyz /metrics), log %s%n",
                name,
                child.pid().map(String::valueOf).orElse("-"),
                ((ChildProcess.Readiness.OpsReady) child.readiness()).port(),
                child.log())));
        consolePages.forEach(
                (name, port) -> b.append(String.format("  %-16s %-8s pages http://127.0.0.1:%d/%n", name, "", port)));
        return b.toString();
    }

    public Optional<ChildProcess> fleetSim() {
        return Optional.ofNullable(fleetSim);
    }

    @Override
    public synchronized void close() {
        List<ChildProcess> reverse = new ArrayList<>(instances.values());
        Collections.reverse(reverse);
        for (ChildProcess child : reverse) {
            child.stop(STOP_GRACE);
        }
        if (fleetSim != null) {
            fleetSim.stop(STOP_GRACE);
        }
        mariaDb.close();
        kafka.stop(STOP_GRACE);
    }

    private static String field(String line, String prefix) {
        for (String part : line.split(" ")) {
            if (part.startsWith(prefix)) {
                return part.substring(prefix.length());
            }
        }
        throw new IllegalStateException("no " + prefix + " in '" + line + "'");
    }

    private static String millis(Duration d) {
        return d.toMillis() + "ms";
    }

    private static void mkdirs(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
