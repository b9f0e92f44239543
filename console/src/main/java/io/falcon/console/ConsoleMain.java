package io.falcon.console;

import io.falcon.console.view.ConsoleIndex;
import io.falcon.events.config.ConsoleKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.ops.Checks;
import io.falcon.ops.ComponentRuntime;
import java.time.Clock;

/** Runs the console: reads Falcon's topics into memory and serves the pages until the JVM is asked to stop. */
public final class ConsoleMain {
    /** Gauge: jobs whose events the console holds in memory. */
    public static final String JOBS_HELD = "falcon.console.jobs.held";
    /** Gauge: pages subscribed to live updates (server-sent events). */
    public static final String LIVE_PAGES = "falcon.console.live.pages";

    private ConsoleMain() {}

    public static void main(String[] args) throws InterruptedException {
        SettingValues settings = ComponentRuntime.settingsOrExit(ConsoleKeys.COMPONENT);
        ConsoleConfig config = ConsoleConfig.from(settings);
        ComponentRuntime runtime = ComponentRuntime.start(settings);
        Console console = runtime.manage("console", Console.start(config, Clock.systemUTC()));
        runtime.ops()
                .addReadinessCheck(
                        Checks.flag("topics", console.topics()::following, "Falcon's topics are not all assigned yet"));
        runtime.awaitShutdown();
    }

    /** The console's parts, started together (also by ./falcon-local in its own JVM). */
    public record Console(TopicFollower topics, ConsoleServer server, ConsoleIndex index) implements AutoCloseable {
        public static Console start(ConsoleConfig config, Clock clock) {
            ConsoleIndex index = new ConsoleIndex(config.jobsTracked(), config.eventsPerJob());
            ConsoleDatabase database =
                    new ConsoleDatabase(config.jdbcUrl(), config.dbUser(), config.dbPassword(), config.dbTls());
            ConsoleServer server = new ConsoleServer(
                    database,
                    index,
                    new Authenticator(config.auth(), config.token()),
                    clock,
                    config.pageSize(),
                    config.eventsPerJob());
            TopicFollower topics = new TopicFollower(config.kafka(), index).start();
            server.start(config.host(), config.port());
            return new Console(topics, server, index);
        }

        public int port() {
            return server.port();
        }

        @Override
        public void close() throws InterruptedException {
            server.close();
            topics.close();
        }
    }
}
