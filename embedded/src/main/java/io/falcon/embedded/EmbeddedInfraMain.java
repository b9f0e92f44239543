package io.falcon.embedded;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Starts Kafka and MariaDB and waits until Ctrl-C, for poking at them by hand.
 *
 * <p>Usage: {@code EmbeddedInfraMain [dataDir]}. With a data dir, Kafka keeps its data in {@code dataDir/kafka}
 * and MariaDB in {@code dataDir/mariadb} across runs; without one, both use temporary directories.
 */
public final class EmbeddedInfraMain {

    private EmbeddedInfraMain() {}

    public static void main(String[] args) throws InterruptedException {
        Path dataDir = args.length > 0 ? Path.of(args[0]).toAbsolutePath() : null;
        EmbeddedKafka kafka = dataDir == null ? EmbeddedKafka.launch() : EmbeddedKafka.launch(dataDir.resolve("kafka"));
        EmbeddedMariaDb mariaDb;
        try {
            mariaDb = dataDir == null ? EmbeddedMariaDb.launch() : EmbeddedMariaDb.launch(dataDir.resolve("mariadb"));
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            mariaDb.close();
                            kafka.close();
                            stopped.countDown();
                        },
                        "falcon-embedded-infra-shutdown"));

        System.out.println("Kafka bootstrap servers: " + kafka.bootstrapServers());
        System.out.println("MariaDB JDBC URL:        " + mariaDb.jdbcUrl("mysql") + "  (user " + mariaDb.user()
                + ", password " + mariaDb.password() + ")");
        System.out.println("Press Ctrl-C to stop.");
        stopped.await();
    }
}
