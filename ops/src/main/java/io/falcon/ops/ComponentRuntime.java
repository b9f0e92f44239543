package io.falcon.ops;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;

/**
 * What every component's main does the same way: a Prometheus registry tagged with the component, the ops
 * endpoints, and a graceful shutdown that first turns readiness off, then closes the parts in reverse order.
 */
public final class ComponentRuntime {
    private final PrometheusMeterRegistry registry;
    private final FalconMetrics metrics;
    private final OpsServer ops;
    private final GracefulShutdown shutdown;

    private ComponentRuntime(String component, int port) {
        registry = FalconMetrics.newRegistry(component);
        metrics = new FalconMetrics(registry);
        ops = OpsServer.start(component, port, registry);
        shutdown = GracefulShutdown.install(component, GracefulShutdown.DEFAULT_DEADLINE);
        shutdown.register("ops", ops);
    }

    /** Starts the ops endpoints on the port from falcon.ops.port / FALCON_OPS_PORT (default 8080). */
    public static ComponentRuntime start(String component, Map<String, String> settings) {
        return new ComponentRuntime(component, OpsServer.portFrom(settings));
    }

    public FalconMetrics metrics() {
        return metrics;
    }

    public OpsServer ops() {
        return ops;
    }

    /** Registers a part to close on shutdown (reverse order) and returns it. */
    public <T extends AutoCloseable> T manage(String name, T part) {
        shutdown.register(name, () -> {
            ops.markShuttingDown();
            part.close();
        });
        return part;
    }

    /** Blocks the main thread until the JVM is asked to stop and every part is closed. */
    public void awaitShutdown() throws InterruptedException {
        shutdown.await();
    }
}
