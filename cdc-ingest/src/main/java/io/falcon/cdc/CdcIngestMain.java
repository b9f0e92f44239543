package io.falcon.cdc;

import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.ops.Checks;
import io.falcon.ops.ComponentRuntime;

/**
 * Runs cdc-ingest until SIGTERM/SIGINT. Configuration comes from environment variables (e.g.
 * {@code FALCON_CDC_DATABASE_HOST}) and system properties (e.g. {@code -Dfalcon.cdc.database.host=...}), see
 * {@link CdcIngestKeys}. Missing, bad or unknown settings stop it at once with one message naming each (exit code 2).
 */
public final class CdcIngestMain {
    private CdcIngestMain() {}

    public static void main(String[] args) throws InterruptedException {
        if (System.getProperty("logback.configurationFile") == null
                && CdcIngestMain.class.getResource("/cdc-ingest-logback.xml") != null) {
            System.setProperty("logback.configurationFile", "cdc-ingest-logback.xml");
        }
        SettingValues settings = ComponentRuntime.settingsOrExit(CdcIngestKeys.COMPONENT);
        CdcConfig config;
        try {
            config = CdcConfig.from(settings);
        } catch (io.falcon.events.config.InvalidSettingsException e) {
            // what Debezium's connector would refuse at every start: one message, exit code 2, as for settings
            org.slf4j.LoggerFactory.getLogger(CdcIngestMain.class).error("{}", e.getMessage());
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        ComponentRuntime runtime = ComponentRuntime.start(settings);
        CdcIngest ingest = runtime.manage("cdc-ingest", new CdcIngest(config));
        runtime.ops()
                .addReadinessCheck(Checks.flag(
                        "debezium-engine", () -> ingest.state() == CdcIngest.State.RUNNING, "engine is not streaming"))
                .addLivenessCheck(Checks.flag(
                        "debezium-engine", () -> ingest.state() != CdcIngest.State.CLOSED, "engine closed"));
        ingest.start();
        runtime.awaitShutdown();
    }
}
