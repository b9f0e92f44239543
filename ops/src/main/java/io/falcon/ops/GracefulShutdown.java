package io.falcon.ops;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a component's parts in reverse order of registration when the JVM is asked to stop (SIGTERM from
 * Kubernetes or docker), within one overall deadline. Register parts in start order (ops server first, then the
 * consumers that depend on it): the consumers finish their in-flight batch and commit first, the ops server goes
 * last so probes and the final metrics scrape still answer. A part that overruns the deadline is abandoned (logged)
 * so the rest still close; Kubernetes' terminationGracePeriodSeconds must exceed the deadline.
 */
public final class GracefulShutdown implements Runnable {
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(25);
    private static final Logger LOG = LoggerFactory.getLogger(GracefulShutdown.class);

    private final String component;
    private final Duration deadline;
    private final List<Part> parts = new ArrayList<>();
    private final AtomicBoolean ran = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);

    private record Part(String name, AutoCloseable closeable) {}

    public GracefulShutdown(String component, Duration deadline) {
        this.component = Objects.requireNonNull(component, "component");
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("shutdown deadline must be positive, got " + deadline);
        }
        this.deadline = deadline;
    }

    /** A shutdown with the given deadline, already installed as a JVM shutdown hook. */
    public static GracefulShutdown install(String component, Duration deadline) {
        GracefulShutdown shutdown = new GracefulShutdown(component, deadline);
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown, "falcon-" + component + "-shutdown"));
        return shutdown;
    }

    /** Adds a part to close; parts close in reverse order of registration. */
    public synchronized GracefulShutdown register(String name, AutoCloseable closeable) {
        if (ran.get()) {
            throw new IllegalStateException("shutdown of " + component + " already started");
        }
        parts.add(new Part(Objects.requireNonNull(name, "name"), Objects.requireNonNull(closeable, "closeable")));
        return this;
    }

    /** Blocks the calling (main) thread until the shutdown has run. */
    public void await() throws InterruptedException {
        done.await();
    }

    /** Whether the shutdown finished within the given time. */
    public boolean await(Duration timeout) throws InterruptedException {
        return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Closes every part in reverse order; runs once, later calls return at once. */
    @Override
    public void run() {
        if (!ran.compareAndSet(false, true)) {
            return;
        }
        List<Part> toClose;
        synchronized (this) {
            toClose = new ArrayList<>(parts);
        }
        long end = System.nanoTime() + deadline.toNanos();
        LOG.info("{} shutting down: closing {} parts within {}s", component, toClose.size(), deadline.toSeconds());
        try {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                Part part = toClose.get(i);
                long left = end - System.nanoTime();
                if (left <= 0) {
                    LOG.warn("{} shutdown deadline passed: {} not closed", component, part.name());
                    continue;
                }
                closeWithin(part, left);
            }
        } finally {
            LOG.info("{} shut down", component);
            done.countDown();
        }
    }

    private void closeWithin(Part part, long nanos) {
        Thread closer = new Thread(
                () -> {
                    try {
                        part.closeable().close();
                    } catch (Exception e) {
                        LOG.warn("{}: closing {} failed", component, part.name(), e);
                    }
                },
                "falcon-" + component + "-close-" + part.name());
        closer.setDaemon(true);
        closer.start();
        try {
            // rounded up: a join truncated to whole milliseconds returned just before the deadline, and the next part
            // was then closed in the sliver left (GracefulShutdownTest failed under load)
            closer.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos + 999_999)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (closer.isAlive()) {
            LOG.warn("{}: {} did not close before the shutdown deadline; abandoning it", component, part.name());
        } else {
            LOG.info("{}: {} closed", component, part.name());
        }
    }
}
