package io.falcon.local;

import io.falcon.cli.JobSubmission;
import io.falcon.console.ConsoleMain;
import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.events.jobs.JobBoard;
import io.falcon.local.processes.ProcessFalcon;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * The local demo: starts Falcon on the embedded default, submits a few jobs as an upper component would, and
 * prints every Status / Reason / Message change until all of them are final.
 *
 * <p>Options: --data-dir DIR keeps broker and database data across runs (default: a fresh temporary directory);
 * --keep-running leaves Falcon up after the demo, for experiments with the database and topics it prints (with the
 * export lines that point the CLI at it, {@link CliEnvironment}); --console-port PORT serves the console there instead
 * of 8090 (0: any free port);
 * --processes runs Falcon as separate processes ({@link ProcessFalcon}) instead of in this JVM.
 */
public final class LocalMain {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final Duration DEMO_LIMIT = Duration.ofMinutes(5);

    private LocalMain() {}

    public static void main(String[] args) throws Exception {
        // The binlog client logs through java.util.logging; route it to the log file with everything else.
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Path dataDir = option(args, "--data-dir").map(Path::of).orElse(Files.createTempDirectory("falcon-local-"));
        boolean keepRunning = List.of(args).contains("--keep-running");
        Files.createDirectories(dataDir);
        if (List.of(args).contains("--processes")) {
            runAsProcesses(dataDir, keepRunning, out);
            System.exit(0);
        }
        out.println("Falcon local: starting an embedded Kafka broker, MariaDB, a simulated fleet and all components"
                + " (data in " + dataDir + ")");
        try (EmbeddedKafka kafka = EmbeddedKafka.launch(dataDir.resolve("kafka"));
                EmbeddedMariaDb db = EmbeddedMariaDb.launch(dataDir.resolve("mariadb"));
                LocalFalcon falcon = LocalFalcon.start(
                        kafka, db, "falcon", dataDir.resolve("state"), LocalFalcon.demoFleetConfig())) {
            out.println("Kafka " + kafka.bootstrapServers() + " | MySQL " + falcon.jdbcUrl() + " (user " + db.user()
                    + ") | GKE " + falcon.fleet().gkeEndpoint());
            int consolePort =
                    option(args, "--console-port").map(Integer::parseInt).orElse(CONSOLE_PORT);
            ConsoleMain.Console console = falcon.startConsole(consolePort);
            out.println(
                    "Console: http://127.0.0.1:" + console.port() + "/  (fleet, queues and each job's story, live)");
            out.println();
            try (Connection connection = falcon.connect()) {
                submitAndWatchTheDemoJobs(connection, out);
            }
            if (keepRunning) {
                printCliEnvironment(
                        out,
                        CliEnvironment.exports(falcon.jdbcUrl(), db.user(), db.password(), kafka.bootstrapServers()));
                out.println("Falcon keeps running; press Ctrl-C to stop.");
                Thread.currentThread().join();
            }
        }
        System.exit(0);
    }

    /**
     * --processes: the same demo on Falcon as separate processes (broker, MariaDB, fleet-sim and each component in its
     * own JVM, started as docker-compose starts them), printing where everything is.
     */
    private static void runAsProcesses(Path dataDir, boolean keepRunning, PrintStream out) throws Exception {
        out.println("Falcon local (processes): starting Kafka, MariaDB, fleet-sim and the five components as separate"
                + " processes (data in " + dataDir + ")");
        try (ProcessFalcon falcon =
                ProcessFalcon.start(ProcessFalcon.Options.demo(Path.of("").toAbsolutePath(), dataDir))) {
            out.println(falcon.describe());
            try (Connection connection = falcon.connect()) {
                submitAndWatchTheDemoJobs(connection, out);
            }
            if (keepRunning) {
                printCliEnvironment(
                        out,
                        CliEnvironment.exports(
                                falcon.jdbcUrl(), falcon.dbUser(), falcon.dbPassword(), falcon.bootstrapServers()));
                out.println("Falcon keeps running as processes (kill -9 any pid above; it is not restarted by"
                        + " itself); press Ctrl-C to stop.");
                Thread.currentThread().join();
            }
        }
    }

    /** Where ./falcon-local serves the console unless --console-port says otherwise (0: any free port). */
    static final int CONSOLE_PORT = 8090;

    private static void printCliEnvironment(PrintStream out, List<String> exports) {
        out.println();
        out.println("To use the falcon CLI against it, paste into another shell (then e.g. ./falcon jobs):");
        exports.forEach(line -> out.println("  " + line));
        out.println();
    }

    /** Submits the demo jobs as an upper component would and prints every change until all are final. */
    private static void submitAndWatchTheDemoJobs(Connection connection, PrintStream out) throws Exception {
        List<JobSubmission.Request> demo =
                DemoJobs.requests("demo-" + Instant.now().getEpochSecond() % 100000);
        for (JobSubmission.Request request : demo) {
            JobSubmission.submit(connection, request);
            out.printf(
                    "submitted %-22s actor=%-6s tpu=%s topology=%s%n",
                    request.id(), request.actor(), request.tpuType(), request.topology());
        }
        out.println();
        watch(connection, demo.stream().map(JobSubmission.Request::id).toList(), out);
    }

    private static void watch(Connection connection, List<String> jobIds, PrintStream out) throws Exception {
        Map<String, String> shown = new HashMap<>();
        Instant deadline = Instant.now().plus(DEMO_LIMIT);
        while (Instant.now().isBefore(deadline)) {
            List<JobBoard.JobView> jobs = JobBoard.read(connection).stream()
                    .filter(j -> jobIds.contains(j.id()))
                    .toList();
            for (JobBoard.JobView job : jobs) {
                String headline = job.headline();
                if (!headline.equals(shown.put(job.id(), headline))) {
                    out.printf(
                            "%s  %-22s %-6s %s%n",
                            LocalTime.now(ZoneId.systemDefault()).format(CLOCK), job.id(), job.actor(), headline);
                }
            }
            if (jobs.size() == jobIds.size() && jobs.stream().allMatch(JobBoard.JobView::isTerminal)) {
                out.println();
                out.println("All demo jobs are final:");
                for (JobBoard.JobView job : jobs) {
                    out.printf(
                            "  %-22s %-9s reason=%-12s cluster=%s pool=%s job_uid=%s dispatched_at=%s"
                                    + " finished_at=%s%n",
                            job.id(),
                            job.status(),
                            job.reason().orElse("-"),
                            job.clusterId().orElse("-"),
                            job.nodePoolName().orElse("-"),
                            job.jobUid().orElse("-"),
                            job.dispatchedAt().map(JobBoard::format).orElse("-"),
                            job.finishedAt().map(JobBoard::format).orElse("-"));
                }
                return;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("demo jobs did not finish within " + DEMO_LIMIT);
    }

    private static Optional<String> option(String[] args, String name) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return Optional.of(args[i + 1]);
            }
        }
        return Optional.empty();
    }
}
