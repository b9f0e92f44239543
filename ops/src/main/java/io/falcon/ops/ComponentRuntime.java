package io.falcon.ops;

import io.falcon.events.config.Component;
import io.falcon.events.config.InvalidSettingsException;
import io.falcon.events.config.SettingValues;
import io.falcon.events.config.SharedKeys;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.LoggerFactory;

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

    /** Starts the ops endpoints of a component whose settings are parsed (the port is falcon.ops.port). */
    public static ComponentRuntime start(SettingValues settings) {
        return new ComponentRuntime(settings.component().name(), settings.getInt(SharedKeys.OPS_PORT));
    }

    /**
     * A component's settings from its environment and system properties; when any is missing, invalid or unknown,
     * the process stops with exit code 2 and one message listing every problem (on stderr and in the log), since
     * nothing can work and a restart loop would only repeat it. Routes java.util.logging to slf4j first.
     */
    public static SettingValues settingsOrExit(Component component) {
        // the first thing every component's main does: from here on, every library's logs are the component's
        JavaUtilLogging.routeToSlf4j();
        try {
            return SettingValues.fromEnvironment(component);
        } catch (InvalidSettingsException e) {
            LoggerFactory.getLogger(ComponentRuntime.class).error("{}", e.getMessage());
            System.err.println(e.getMessage());
            System.exit(2);
            throw e;
        }
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
