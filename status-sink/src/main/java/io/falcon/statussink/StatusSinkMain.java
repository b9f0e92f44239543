package io.falcon.statussink;

import io.falcon.events.Settings;
import io.falcon.ops.Checks;
import io.falcon.ops.ComponentRuntime;

/** Runs the status-sink: applies the schema migration, then writes task statuses until the JVM is asked to stop. */
public final class StatusSinkMain {
    private StatusSinkMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        StatusSinkConfig config = StatusSinkConfig.from(Settings.fromEnvironment());
        SchemaMigrator.migrate(config.jdbcUrl(), config.dbUser(), config.dbPassword());
        ComponentRuntime runtime = ComponentRuntime.start("status-sink", System.getenv());
        StatusSink sink = runtime.manage("status-sink", new StatusSink(config, runtime.metrics()).start());
        runtime.ops().addReadinessCheck(Checks.consumerJoined("consumer:" + config.topic(), sink.assignment()))
                .addReadinessCheck(Checks.jdbc("database", config.jdbcUrl(), config.dbUser(), config.dbPassword()));
        runtime.awaitShutdown();
    }
}
