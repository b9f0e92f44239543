package io.falcon.statussink;

import io.falcon.events.Settings;

/** Runs the status-sink: applies the schema migration, then writes task statuses until stopped. */
public final class StatusSinkMain {
    private StatusSinkMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        StatusSinkConfig config = StatusSinkConfig.from(Settings.fromEnvironment());
        SchemaMigrator.migrate(config.jdbcUrl(), config.dbUser(), config.dbPassword());
        StatusSink sink = new StatusSink(config).start();
        Runtime.getRuntime().addShutdownHook(new Thread(sink::close, "status-sink-shutdown"));
        Thread.currentThread().join();
    }
}
