package io.falcon.ops;

import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Routes java.util.logging to slf4j. Libraries a component runs log through it (the MySQL binlog client of
 * Debezium, gRPC, Google's clients); left alone, the JDK's console handler prints their records as two plain-text
 * lines on stderr, in the middle of the JSON lines the image's log configuration writes.
 */
public final class JavaUtilLogging {
    private JavaUtilLogging() {}

    /** Replaces the JDK root logger's handlers with the slf4j bridge (idempotent). */
    public static synchronized void routeToSlf4j() {
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }
}
