package io.falcon.executor;

import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the executor from environment variables (see {@link ExecutorConfig#fromEnv}) until SIGTERM. */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        ExecutorConfig config;
        try {
            config = ExecutorConfig.fromEnv(System.getenv());
        } catch (IllegalArgumentException e) {
            log.error("{}", e.getMessage());
            throw e; // the JVM exits non-zero with the message naming the bad setting
        }
        CountDownLatch stopped = new CountDownLatch(1);
        ExecutorApp app = new ExecutorApp(config).start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            app.close();
            stopped.countDown();
        }, "falcon-executor-shutdown"));
        stopped.await();
    }
}
