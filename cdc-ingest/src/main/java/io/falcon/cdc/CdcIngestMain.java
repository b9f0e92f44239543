package io.falcon.cdc;

import java.util.concurrent.CountDownLatch;
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
        CdcIngest ingest = new CdcIngest(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("cdc-ingest received shutdown signal");
            ingest.close();
            stopped.countDown();
        }, "falcon-cdc-ingest-shutdown"));
        ingest.start();
        stopped.await();
    }
}
