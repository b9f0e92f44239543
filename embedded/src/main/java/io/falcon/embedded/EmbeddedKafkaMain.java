package io.falcon.embedded;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The embedded Kafka broker as a process of its own, so that it can be killed and restarted while Falcon's components
 * go on: {@code EmbeddedKafkaMain LOG_DIR PORT}. The log dir keeps topics, records, offsets and transactions across
 * restarts; the fixed port keeps the clients' bootstrap address. Prints {@code kafka ready bootstrap=HOST:PORT} once
 * the broker serves, which a supervisor waits for.
 */
public final class EmbeddedKafkaMain {

    private EmbeddedKafkaMain() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: EmbeddedKafkaMain LOG_DIR PORT");
            System.exit(2);
        }
        EmbeddedKafka kafka = EmbeddedKafka.launch(Path.of(args[0]).toAbsolutePath(), Integer.parseInt(args[1]));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            kafka.close();
                            stopped.countDown();
                        },
                        "falcon-kafka-shutdown"));
        System.out.println("kafka ready bootstrap=" + kafka.bootstrapServers());
        System.out.flush();
        stopped.await();
    }
}
