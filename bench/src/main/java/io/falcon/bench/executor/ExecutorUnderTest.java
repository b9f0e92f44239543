package io.falcon.bench.executor;

import io.falcon.executor.Events;
import io.falcon.executor.ExecutorApp;
import io.falcon.executor.ExecutorConfig;
import io.falcon.executor.core.JobDriver;
import io.falcon.executor.gke.NodePoolManager;
import io.falcon.executor.kafka.CommandConsumer;
import io.falcon.executor.kafka.KafkaEventSink;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The executor's command path, wired as {@link ExecutorApp} wires it, over the fake GKE and Kubernetes APIs: the real
 * {@link CommandConsumer} with its lanes, the real {@link NodePoolManager} with its step threads and timers, the real
 * {@link JobDriver}, and a real {@link KafkaEventSink} on a producer and a consumer with the properties the executor
 * ships with. Left out: the job informers and heartbeats (they watch Jobs after their creation, which this bench does
 * not measure), isolation, and the clusters registry.
 */
final class ExecutorUnderTest implements AutoCloseable {
    /** The prefix of every thread the executor starts (its Kafka clients' threads are named after its group id). */
    static final String THREAD_PREFIX = "falcon-executor";

    private final KafkaProducer<byte[], byte[]> producer;
    private final ScheduledExecutorService timers;
    private final NodePoolManager nodePools;
    private final CommandConsumer commands;
    private final Thread commandThread;

    private ExecutorUnderTest(ExecutorConfig config, FakeGke gke, FakeEdge edges) {
        Clock clock = Clock.systemUTC();
        this.producer = new KafkaProducer<>(ExecutorApp.producerProps(config));
        KafkaEventSink sink = new KafkaEventSink(producer, clock);
        Events events = new Events(config.producerName(), clock);
        this.timers =
                Executors.newScheduledThreadPool(config.trackerThreads(), daemonThreads(THREAD_PREFIX + "-tracker"));
        this.nodePools =
                new NodePoolManager(gke, edges, sink, events, timers, clock, NodePoolManager.Settings.of(config));
        JobDriver jobs = new JobDriver(edges, sink, events, config.ownership());
        CommandRouter router = new CommandRouter(nodePools, jobs);
        this.commands = new CommandConsumer(
                        new KafkaConsumer<>(ExecutorApp.consumerProps(config)),
                        producer,
                        sink,
                        router::handle,
                        clock,
                        config.producerName())
                .onRevoked(nodePools::revoked)
                .lanes(config.commandLanes());
        this.commandThread = new Thread(commands, THREAD_PREFIX + "-commands");
    }

    /** Starts the pool poller and the command loop, and returns once the loop holds every command partition. */
    static ExecutorUnderTest start(ExecutorConfig config, FakeGke gke, FakeEdge edges, int partitions, Duration timeout)
            throws InterruptedException {
        ExecutorUnderTest executor = new ExecutorUnderTest(config, gke, edges);
        executor.nodePools.start();
        executor.commandThread.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (executor.commands.assignment().assignment().size() < partitions) {
            if (System.nanoTime() > deadline || !executor.commandThread.isAlive()) {
                executor.close();
                throw new IllegalStateException(
                        "the executor's command loop did not get its " + partitions + " partitions within " + timeout);
            }
            Thread.sleep(20);
        }
        return executor;
    }

    /** Pools the executor is still creating. */
    int poolsInFlight() {
        return nodePools.inFlight();
    }

    @Override
    public void close() {
        commands.stop();
        try {
            commandThread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        nodePools.close();
        timers.shutdownNow();
        producer.close(Duration.ofSeconds(5));
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
