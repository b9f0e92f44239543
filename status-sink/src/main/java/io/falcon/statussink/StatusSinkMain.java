package io.falcon.statussink;

import io.falcon.events.Topics;
import io.falcon.events.config.SettingValues;
import io.falcon.events.config.StatusSinkKeys;
import io.falcon.ops.Checks;
import io.falcon.ops.ComponentRuntime;

/** Runs the status-sink: applies the schema migration, then writes task statuses until the JVM is asked to stop. */
public final class StatusSinkMain {
    private StatusSinkMain() {}

    public static void main(String[] args) throws InterruptedException {
        SettingValues settings = ComponentRuntime.settingsOrExit(StatusSinkKeys.COMPONENT);
        StatusSinkConfig config = StatusSinkConfig.from(settings);
        SchemaMigrator.migrate(config);
        JdbcDataSource database = JdbcDataSource.of(config);
        ComponentRuntime runtime = ComponentRuntime.start(settings);
        StatusSink sink = runtime.manage("status-sink", new StatusSink(config, runtime.metrics()).start());
        runtime.ops()
                .addReadinessCheck(Checks.consumerJoined("consumer:" + Topics.TASK_STATUS.name(), sink.assignment()))
                .addReadinessCheck(Checks.jdbc("database", database));
        runtime.awaitShutdown();
    }
}
