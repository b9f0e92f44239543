package io.falcon.executor;

import io.falcon.ops.Checks;
import io.falcon.ops.ComponentRuntime;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the executor from environment variables (see {@link ExecutorConfig#fromEnv}) until SIGTERM. */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        ExecutorConfig config;
        try {
            config = ExecutorConfig.fromEnv(System.getenv());
        } catch (IllegalArgumentException e) {
            log.error("{}", e.getMessage());
            throw e; // the JVM exits non-zero with the message naming the bad setting
        }
        ComponentRuntime runtime = ComponentRuntime.start("executor", System.getenv());
        ExecutorApp app = runtime.manage("executor",
                new ExecutorApp(config, Clock.systemUTC(), runtime.metrics()).start());
        runtime.ops().addReadinessCheck(Checks.consumerJoined("consumer:falcon.executor.commands",
                        app.commandAssignment()))
                .addLivenessCheck(Checks.flag("command-loop", app::running, "command loop stopped"));
        runtime.awaitShutdown();
    }
}
