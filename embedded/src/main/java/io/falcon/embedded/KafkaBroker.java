package io.falcon.embedded;

/**
 * A Kafka cluster a test or the local demo runs on: the embedded broker, or one outside the JVM (a Testcontainers
 * broker, a developer's cluster; {@link SharedInfra#broker()}).
 */
public interface KafkaBroker {
    /** {@code host:port[,host:port...]} for the clients' {@code bootstrap.servers}. */
    String bootstrapServers();

    /** A broker outside the JVM, known by its address only; nothing to start or stop. */
    static KafkaBroker at(String bootstrapServers) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("no bootstrap servers given");
        }
        return () -> bootstrapServers;
    }
}
