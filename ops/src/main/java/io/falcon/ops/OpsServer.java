package io.falcon.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.falcon.events.config.SharedKeys;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations endpoint of a component, on its own port (setting falcon.ops.port / env {@code FALCON_OPS_PORT},
 * default 8080):
 * <ul>
 *   <li>{@code GET /healthz}: liveness. 200 unless a registered liveness check fails (then 503): restart me.</li>
 *   <li>{@code GET /readyz}: readiness. 200 only when every readiness check passes, else 503; the JSON body names
 *       each check, whether it passed and why.</li>
 *   <li>{@code GET /metrics}: Prometheus text exposition of the component's {@link PrometheusMeterRegistry}.</li>
 * </ul>
 * Checks run on a small pool, each with a deadline, so a hung dependency makes a probe fail instead of hang.
 */
public final class OpsServer implements AutoCloseable {
    public static final String PORT_KEY = SharedKeys.OPS_PORT.key();
    public static final int DEFAULT_PORT = Math.toIntExact(SharedKeys.OPS_PORT.defaultValue());
    public static final Duration CHECK_TIMEOUT = Duration.ofSeconds(3);

    private static final Logger LOG = LoggerFactory.getLogger(OpsServer.class);

    private final String component;
    private final HttpServer server;
    private final ExecutorService checkPool;
    private final ExecutorService httpPool;
    private final PrometheusMeterRegistry registry;
    private final List<ReadinessCheck> readiness = new CopyOnWriteArrayList<>();
    private final List<ReadinessCheck> liveness = new CopyOnWriteArrayList<>();
    private volatile boolean shuttingDown;

    private OpsServer(String component, HttpServer server, PrometheusMeterRegistry registry) {
        this.component = component;
        this.server = server;
        this.registry = registry;
        this.checkPool = Executors.newCachedThreadPool(daemon("falcon-ops-check"));
        this.httpPool = Executors.newFixedThreadPool(2, daemon("falcon-ops-http"));
    }

    /**
     * Starts serving on 0.0.0.0:port (0 = any free port, see {@link #port()}).
     *
     * @param component the component's name, e.g. "scheduler"; reported in the bodies
     */
    public static OpsServer start(String component, int port, PrometheusMeterRegistry registry) {
        Objects.requireNonNull(component, "component");
        Objects.requireNonNull(registry, "registry");
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("ops server for " + component + " cannot listen on port " + port, e);
        }
        OpsServer ops = new OpsServer(component, http, registry);
        http.setExecutor(ops.httpPool);
        http.createContext("/healthz", ops::healthz);
        http.createContext("/readyz", ops::readyz);
        http.createContext("/metrics", ops::metrics);
        http.start();
        LOG.info("ops endpoints of {} on port {}: /healthz /readyz /metrics", component, ops.port());
        return ops;
    }

    /** Reads the port from falcon.ops.port or FALCON_OPS_PORT in the given map (e.g. System.getenv()). */
    public static int portFrom(Map<String, String> settings) {
        return Math.toIntExact(SharedKeys.OPS_PORT.readFrom(settings));
    }

    /** Adds a condition of /readyz; may be called at any time, e.g. once the component has started. */
    public OpsServer addReadinessCheck(ReadinessCheck check) {
        readiness.add(Objects.requireNonNull(check, "check"));
        return this;
    }

    /** Adds a condition of /healthz: fail it only when a restart is the cure (e.g. stream threads died). */
    public OpsServer addLivenessCheck(ReadinessCheck check) {
        liveness.add(Objects.requireNonNull(check, "check"));
        return this;
    }

    /** From now on /readyz answers 503 "shutting down", so load balancers and Kafka callers stop choosing us. */
    public void markShuttingDown() {
        shuttingDown = true;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    private void healthz(HttpExchange exchange) throws IOException {
        if (!allowGet(exchange)) {
            return;
        }
        Evaluation evaluation = evaluate(liveness, false);
        respond(exchange, evaluation.ok() ? 200 : 503, "application/json", evaluation.json(component));
    }

    private void readyz(HttpExchange exchange) throws IOException {
        if (!allowGet(exchange)) {
            return;
        }
        Evaluation evaluation = evaluate(readiness, shuttingDown);
        respond(exchange, evaluation.ok() ? 200 : 503, "application/json", evaluation.json(component));
    }

    private void metrics(HttpExchange exchange) throws IOException {
        if (!allowGet(exchange)) {
            return;
        }
        respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
    }

    private static boolean allowGet(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        if (method.equals("GET") || method.equals("HEAD")) {
            return true;
        }
        exchange.getResponseHeaders().add("Allow", "GET, HEAD");
        respond(exchange, 405, "text/plain; charset=utf-8", "method not allowed\n");
        return false;
    }

    private Evaluation evaluate(List<ReadinessCheck> checks, boolean stopping) {
        List<Outcome> outcomes = new ArrayList<>();
        if (stopping) {
            outcomes.add(new Outcome("shutdown", ReadinessCheck.Result.fail("component is shutting down")));
        }
        List<Future<ReadinessCheck.Result>> futures = new ArrayList<>();
        for (ReadinessCheck check : checks) {
            futures.add(checkPool.submit(check::check));
        }
        long deadline = System.nanoTime() + CHECK_TIMEOUT.toNanos();
        for (int i = 0; i < checks.size(); i++) {
            ReadinessCheck check = checks.get(i);
            ReadinessCheck.Result result;
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                result = futures.get(i).get(left, TimeUnit.NANOSECONDS);
                if (result == null) {
                    result = ReadinessCheck.Result.fail("check returned no result");
                }
            } catch (TimeoutException e) {
                futures.get(i).cancel(true);
                result = ReadinessCheck.Result.fail("no answer within " + CHECK_TIMEOUT.toSeconds() + "s");
            } catch (ExecutionException e) {
                result = ReadinessCheck.Result.fail("check threw " + e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                result = ReadinessCheck.Result.fail("interrupted");
            }
            outcomes.add(new Outcome(check.name(), result));
        }
        return new Evaluation(outcomes);
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            if (!head) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        shuttingDown = true;
        server.stop(0);
        httpPool.shutdownNow();
        checkPool.shutdownNow();
        LOG.info("ops endpoints of {} stopped", component);
    }

    private record Outcome(String name, ReadinessCheck.Result result) {}

    private record Evaluation(List<Outcome> outcomes) {
        boolean ok() {
            return outcomes.stream().allMatch(o -> o.result().ok());
        }

        String json(String component) {
            StringBuilder b = new StringBuilder();
            b.append("{\"component\":")
                    .append(quote(component))
                    .append(",\"status\":")
                    .append(quote(ok() ? "UP" : "DOWN"))
                    .append(",\"checks\":[");
            for (int i = 0; i < outcomes.size(); i++) {
                Outcome o = outcomes.get(i);
                if (i > 0) {
                    b.append(',');
                }
                b.append("{\"name\":")
                        .append(quote(o.name()))
                        .append(",\"ok\":")
                        .append(o.result().ok())
                        .append(",\"detail\":")
                        .append(quote(o.result().detail()))
                        .append('}');
            }
            return b.append("]}\n").toString();
        }
    }

    static String quote(String text) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
