package io.falcon.local.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One JVM of the process deployment: its command and environment, its log file, and the ways to stop it (SIGTERM, or
 * SIGKILL as a crash would). It is started again with the same command and environment, like a restarted pod.
 */
public final class ChildProcess {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /** What tells that the process serves: a line in its output, or its ops endpoint answering /readyz. */
    public sealed interface Readiness {
        record LogLine(String prefix) implements Readiness {}

        record OpsReady(int port) implements Readiness {}
    }

    private final String name;
    private final List<String> command;
    private final Map<String, String> environment;
    private final Path log;
    private final Readiness readiness;
    private Process process;
    private long logOffsetAtStart;
    private int starts;

    public ChildProcess(
            String name, List<String> command, Map<String, String> environment, Path log, Readiness readiness) {
        this.name = name;
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.log = log;
        this.readiness = readiness;
    }

    public String name() {
        return name;
    }

    public Path log() {
        return log;
    }

    public Map<String, String> environment() {
        return environment;
    }

    public Readiness readiness() {
        return readiness;
    }

    /** How many times it was started. */
    public synchronized int starts() {
        return starts;
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    public synchronized Optional<Long> pid() {
        return isAlive() ? Optional.of(process.pid()) : Optional.empty();
    }

    /** Starts it (output appended to its log) and waits until it is ready or {@code timeout} passes. */
    public void start(Duration timeout) {
        synchronized (this) {
            if (isAlive()) {
                return;
            }
            try {
                Files.createDirectories(log.getParent());
                logOffsetAtStart = Files.exists(log) ? Files.size(log) : 0;
                Files.writeString(
                        log,
                        "==== " + Instant.now() + " starting " + name + "\n",
                        StandardCharsets.UTF_8,
                        java.nio.file.StandardOpenOption.CREATE,
                        java.nio.file.StandardOpenOption.APPEND);
                ProcessBuilder builder = new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
                // Only what the deployment gives it: none of the supervisor's own FALCON_* variables leak in.
                builder.environment().keySet().removeIf(k -> k.startsWith("FALCON_"));
                builder.environment().putAll(environment);
                process = builder.start();
                starts++;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + name, e);
            }
        }
        awaitReady(timeout);
    }

    private void awaitReady(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        long pause = 50;
        while (Instant.now().isBefore(deadline)) {
            if (!isAlive()) {
                throw new IllegalStateException(name + " exited while starting; see " + log);
            }
            if (ready()) {
                return;
            }
            sleep(pause);
            pause = Math.min(pause * 2, 500);
        }
        throw new IllegalStateException(name + " not ready within " + timeout + "; see " + log);
    }

    /** Whether it serves now. */
    public boolean ready() {
        if (readiness instanceof Readiness.LogLine line) {
            return logSinceStart().lines().anyMatch(l -> l.startsWith(line.prefix()));
        }
        return isAlive() && answers(((Readiness.OpsReady) readiness).port());
    }

    /** The first line of its output since its last start that matches. */
    public Optional<String> outputLine(Predicate<String> matching) {
        return logSinceStart().lines().filter(matching).findFirst();
    }

    private String logSinceStart() {
        try {
            byte[] all = Files.readAllBytes(log);
            int from = (int) Math.min(all.length, logOffsetAtStart);
            return new String(all, from, all.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static boolean answers(int port) {
        try {
            HttpResponse<Void> response = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                            .timeout(Duration.ofSeconds(1))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** SIGKILL, as a crashed node or an OOM kill would: no shutdown hook runs, nothing is flushed. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        waitFor(process, Duration.ofSeconds(30));
        process = null;
    }

    /** SIGTERM and wait (graceful shutdown); SIGKILL if it does not end in time. */
    public synchronized void stop(Duration grace) {
        if (process == null) {
            return;
        }
        process.destroy();
        if (!waitFor(process, grace)) {
            process.destroyForcibly();
            waitFor(process, Duration.ofSeconds(30));
        }
        process = null;
    }

    private static boolean waitFor(Process p, Duration timeout) {
        try {
            return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
