package io.falcon.bench.e2e;

import ch.qos.logback.classic.Level;
import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.fleetsim.FleetSimConfig;
import io.falcon.local.DemoFleet.DemoCluster;
import io.falcon.local.LocalFalcon;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The end-to-end load harness ({@code bench/e2e}): Falcon in this JVM on the embedded default (KRaft broker, MariaDB
 * with binlog, fleet-sim at near-zero delays), the stages asked for run one after the other, and one table of hop
 * latencies against the goals. Hop times come from the fleet's side (fleet-sim's milestones: RPC served, node
 * Ready, Job POST, pods Running, Job finished, with the sim's clock) and the database's side (the row log: a trigger
 * on the jobs table, tailed every {@code --row-poll}); INSERT times are taken just before the statement is sent.
 */
public final class E2eMain {
    /** Distinguishes this run's job ids from an earlier run's on the same data dir. */
    static final String RUN = Long.toString(System.currentTimeMillis() / 1000 % 2_000_000_000L, 36);

    static final List<Stage> STAGES = List.of(
            new BurstStage(),
            new SteadyStage(),
            new HandoffStage(),
            new ReuseStage(),
            new PollingStage(),
            new ThroughputStage());

    private E2eMain() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        E2eOptions options;
        List<Stage> stages = new ArrayList<>();
        try {
            options = E2eOptions.parse(args);
            for (String name : options.stages()) {
                stages.add(STAGES.stream()
                        .filter(s -> s.name().equals(name.strip()))
                        .findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no stage " + name + "; stages: "
                                + STAGES.stream().map(Stage::name).toList())));
            }
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        // the simulator's own per-request logging is not Falcon's work
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.falcon.fleetsim")).setLevel(Level.WARN);
        Map<String, DemoCluster> clusters = new LinkedHashMap<>();
        for (Stage stage : stages) {
            stage.clusters(options).forEach(c -> clusters.putIfAbsent(c.id(), c));
        }
        Path dataDir = options.dataDir().orElse(Files.createTempDirectory("falcon-e2e-"));
        FleetSimConfig fleet = LocalFalcon.fleetConfig(List.copyOf(clusters.values()))
                .withPoolDelays(options.poolDelay(), options.poolDelay())
                .withSimulatorTick(options.simTick());
        out.printf(
                "bench/e2e: stages %s; %d simulated clusters, pool delays %s, simulator tick %s; data in %s%n",
                options.stages(), clusters.size(), options.poolDelay(), options.simTick(), dataDir);
        if (!options.settings().isEmpty()) {
            out.println("settings: " + options.settings());
        }
        Table table = new Table();
        Instant started = Instant.now();
        try (EmbeddedKafka kafka = EmbeddedKafka.launch(dataDir.resolve("kafka"));
                EmbeddedMariaDb db = EmbeddedMariaDb.launch(dataDir.resolve("mariadb"));
                LocalFalcon falcon = LocalFalcon.start(
                        kafka,
                        db,
                        "e2e",
                        dataDir.resolve("state"),
                        fleet,
                        List.copyOf(clusters.values()),
                        options.settings())) {
            Timeline timeline = new Timeline();
            falcon.fleet().milestones().listen(timeline::add);
            try (RowLog rows = RowLog.install(
                    () -> {
                        try {
                            return falcon.connect();
                        } catch (java.sql.SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    options.rowPoll())) {
                E2e e2e = new E2e(falcon, options, timeline, rows, out);
                warmUp(e2e, List.copyOf(clusters.values()));
                java.io.ByteArrayOutputStream cpu = new java.io.ByteArrayOutputStream();
                PrintStream cpuOut = new PrintStream(cpu, true, StandardCharsets.UTF_8);
                for (Stage stage : stages) {
                    Instant at = Instant.now();
                    CpuAccount.Snapshot before = CpuAccount.take();
                    stage.run(e2e, table);
                    CpuAccount.print(cpuOut, stage.name(), before, CpuAccount.take(), stage.jobs(options));
                    e2e.log(
                            "stage %s took %.1f s",
                            stage.name(), Duration.between(at, Instant.now()).toMillis() / 1e3);
                }
                out.println();
                out.printf(
                        "bench/e2e %s: %d cores, Java %s, %s; %.0f s%n",
                        Instant.now(),
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("java.version"),
                        options.stages(),
                        Duration.between(started, Instant.now()).toMillis() / 1e3);
                table.print(out);
                out.println("row log: " + rows.pollStats());
                out.println();
                out.print(cpu.toString(StandardCharsets.UTF_8));
            }
        }
        System.exit(0);
    }

    /** A few short jobs on every TPU type in the fleet, so the pipeline is up and warm before anything is measured. */
    private static void warmUp(E2e e2e, List<DemoCluster> clusters) throws Exception {
        List<String> ids = new ArrayList<>();
        List<String> types =
                clusters.stream().map(DemoCluster::tpuType).distinct().toList();
        e2e.log("warm-up: 10 short jobs on each of %s", types);
        try (var c = e2e.connect()) {
            int i = 0;
            for (int round = 0; round < 10; round++) {
                for (String type : types) {
                    String topology = type.equals("v5p") || type.equals("v7x") ? "2x2x1" : "2x2";
                    String id = "e2ew-" + RUN + "-" + i++;
                    e2e.insert(c, new E2e.JobRow(id, "warm-up", type, topology, 0.1));
                    ids.add(id);
                }
                Thread.sleep(100);
            }
        }
        if (!e2e.awaitFinal(ids, Duration.ofMinutes(3))) {
            throw new IllegalStateException(
                    "the warm-up jobs did not end within 3 minutes: " + e2e.rows.statusCounts(ids));
        }
        e2e.log("warm-up: done %s", e2e.rows.statusCounts(ids));
    }
}
