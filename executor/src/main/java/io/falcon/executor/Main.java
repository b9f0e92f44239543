package io.falcon.executor;

import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.ops.Checks;
import io.falcon.ops.ComponentRuntime;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the executor from its environment (settings: {@link ExecutorKeys}) until SIGTERM. */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws InterruptedException {
        SettingValues settings = ComponentRuntime.settingsOrExit(ExecutorKeys.COMPONENT);
        ExecutorConfig config = ExecutorConfig.from(settings);
        ComponentRuntime runtime = ComponentRuntime.start(settings);
        ExecutorApp app =
                runtime.manage("executor", new ExecutorApp(config, Clock.systemUTC(), runtime.metrics()).start());
        runtime.ops()
                .addReadinessCheck(Checks.consumerJoined("consumer:falcon.executor.commands", app.commandAssignment()))
                .addLivenessCheck(Checks.flag("command-loop", app::running, "command loop stopped"));
        runtime.awaitShutdown();
    }
}
