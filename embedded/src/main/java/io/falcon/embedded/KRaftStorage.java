package io.falcon.embedded;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.storage.Formatter;

/** Formats a KRaft log directory once, the way {@code kafka-storage.sh format} would. */
final class KRaftStorage {

    private KRaftStorage() {}

    static boolean isFormatted(Path logDir) {
        return Files.exists(logDir.resolve("meta.properties"));
    }

    /** Formats {@code logDir} unless it already is, so restarts keep topics and records. */
    static void formatIfNeeded(Path logDir, int nodeId, String controllerListenerName) {
        if (isFormatted(logDir)) {
            return;
        }
        if (!Directories.isEmpty(logDir)) {
            throw new IllegalStateException("Kafka log dir " + logDir
                    + " is not empty but has no meta.properties; refusing to format it. Use an empty directory.");
        }
        try {
            new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setNodeId(nodeId)
                    .setClusterId(Uuid.randomUuid().toString())
                    .addDirectory(logDir.toString())
                    .setMetadataLogDirectory(logDir.toString())
                    .setControllerListenerName(controllerListenerName)
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("Cannot format Kafka log dir " + logDir, e);
        }
    }
}
