package io.falcon.cdc;

import io.falcon.ops.Checks;
import io.falcon.ops.ComponentRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs cdc-ingest until SIGTERM/SIGINT. Configuration comes from environment variables (e.g.
 * {@code FALCON_CDC_DATABASE_HOST}) and system properties (e.g. {@code -Dfalcon.cdc.database.host=...}), see
 * {@link CdcConfig}. A missing or bad setting stops it at once with a message naming the setting (exit code 2).
 */
public final class CdcIngestMain {
    private CdcIngestMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (System.getProperty("logback.configurationFile") == null
                && CdcIngestMain.class.getResource("/cdc-ingest-logback.xml") != null) {
            System.setProperty("logback.configurationFile", "cdc-ingest-logback.xml");
        }
        Logger log = LoggerFactory.getLogger(CdcIngestMain.class);
        CdcConfig config;
        try {
            config = CdcConfig.fromEnvironment(System.getenv(), System.getProperties());
        } catch (CdcConfig.CdcConfigException e) {
            log.error("cdc-ingest configuration error: {}", e.getMessage());
            System.err.println("cdc-ingest configuration error: " + e.getMessage());
            System.exit(2);
            return;
        }
        ComponentRuntime runtime = ComponentRuntime.start("cdc-ingest", System.getenv());
        CdcIngest ingest = runtime.manage("cdc-ingest", new CdcIngest(config));
        runtime.ops().addReadinessCheck(Checks.flag("debezium-engine",
                        () -> ingest.state() == CdcIngest.State.RUNNING, "engine is not streaming"))
                .addLivenessCheck(Checks.flag("debezium-engine",
                        () -> ingest.state() != CdcIngest.State.CLOSED, "engine closed"));
        ingest.start();
        runtime.awaitShutdown();
    }
}
