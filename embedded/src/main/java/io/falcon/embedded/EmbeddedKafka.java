package io.falcon.embedded;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka 4 broker in KRaft combined mode (broker and controller in this JVM).
 *
 * <p>Tuned for tests and the local demo: replication factor 1 everywhere (so idempotent and transactional
 * producers and exactly_once_v2 Kafka Streams work), no initial rebalance delay, auto topic creation, small
 * segments and few threads. A given log dir is formatted only once, so a restart keeps topics and records.
 */
public final class EmbeddedKafka implements KafkaBroker, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final int NODE_ID = 1;
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private final Path logDir;
    private final boolean deleteLogDirOnClose;
    private final int port;
    private final KafkaRaftServer server;
    private boolean closed;

    private EmbeddedKafka(Path logDir, boolean deleteLogDirOnClose, int port, KafkaRaftServer server) {
        this.logDir = logDir;
        this.deleteLogDirOnClose = deleteLogDirOnClose;
        this.port = port;
        this.server = server;
    }

    /** Starts a broker on a free port with a temporary log dir that is deleted on {@link #close()}. */
    public static EmbeddedKafka launch() {
        return launch(Directories.createTemp("falcon-kafka-"), 0, true);
    }

    /** Starts a broker on a free port, keeping its data in {@code logDir} across restarts. */
    public static EmbeddedKafka launch(Path logDir) {
        return launch(logDir, 0);
    }

    /** Starts a broker on {@code port} (0 = any free port), keeping its data in {@code logDir} across restarts. */
    public static EmbeddedKafka launch(Path logDir, int port) {
        return launch(logDir, port, false);
    }

    private static EmbeddedKafka launch(Path logDir, int requestedPort, boolean deleteLogDirOnClose) {
        long started = System.nanoTime();
        Path dir = Directories.ensureExists(logDir);
        int port = Ports.resolve(requestedPort, "Kafka broker");
        int controllerPort = Ports.freePort();
        KRaftStorage.formatIfNeeded(dir, NODE_ID, CONTROLLER_LISTENER);
        KafkaRaftServer server =
                new KafkaRaftServer(new KafkaConfig(brokerConfig(dir, port, controllerPort)), Time.SYSTEM);
        try {
            server.startup(); // returns once the broker has caught up with the metadata log and is unfenced
        } catch (RuntimeException e) {
            shutdownQuietly(server);
            throw new IllegalStateException(
                    "Kafka broker failed to start on port " + port + " (controller port " + controllerPort
                            + ", log dir " + dir + ")",
                    e);
        }
        EmbeddedKafka kafka = new EmbeddedKafka(dir, deleteLogDirOnClose, port, server);
        log.info(
                "Kafka started on {} in {} ms (log dir {})",
                kafka.bootstrapServers(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                dir);
        return kafka;
    }

    private static Map<String, Object> brokerConfig(Path logDir, int port, int controllerPort) {
        String host = Ports.LOOPBACK;
        return Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", String.valueOf(NODE_ID)),
                Map.entry("controller.quorum.voters", NODE_ID + "@" + host + ":" + controllerPort),
                Map.entry(
                        "listeners",
                        "PLAINTEXT://" + host + ":" + port + "," + CONTROLLER_LISTENER + "://" + host + ":"
                                + controllerPort),
                Map.entry("advertised.listeners", "PLAINTEXT://" + host + ":" + port),
                Map.entry("controller.listener.names", CONTROLLER_LISTENER),
                Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                Map.entry(
                        "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT"),
                Map.entry("log.dirs", logDir.toString()),
                // A single broker: every internal topic must live with one replica.
                Map.entry("offsets.topic.replication.factor", "1"),
                Map.entry("offsets.topic.num.partitions", "1"),
                Map.entry("offsets.topic.segment.bytes", String.valueOf(8 * 1024 * 1024)),
                Map.entry("transaction.state.log.replication.factor", "1"),
                Map.entry("transaction.state.log.min.isr", "1"),
                Map.entry("transaction.state.log.num.partitions", "1"),
                Map.entry("transaction.state.log.segment.bytes", String.valueOf(8 * 1024 * 1024)),
                Map.entry("share.coordinator.state.topic.replication.factor", "1"),
                Map.entry("share.coordinator.state.topic.min.isr", "1"),
                Map.entry("default.replication.factor", "1"),
                Map.entry("min.insync.replicas", "1"),
                Map.entry("num.partitions", "1"),
                Map.entry("auto.create.topics.enable", "true"),
                // Tests start consumer groups all the time; waiting 3 s for more members only slows them.
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                // After a JVM kill the controller keeps the old broker registration until its session expires;
                // the default 9 s would delay every restart of the demo after a crash by that much.
                Map.entry("broker.session.timeout.ms", "4000"),
                Map.entry("broker.heartbeat.interval.ms", "1000"),
                // Small footprint: few threads, small segments and indexes, small cleaner buffer.
                Map.entry("log.segment.bytes", String.valueOf(8 * 1024 * 1024)),
                Map.entry("log.index.size.max.bytes", String.valueOf(1024 * 1024)),
                Map.entry("log.cleaner.dedupe.buffer.size", String.valueOf(4 * 1024 * 1024)),
                Map.entry("log.cleaner.threads", "1"),
                Map.entry("num.network.threads", "2"),
                Map.entry("num.io.threads", "2"),
                Map.entry("background.threads", "2"),
                Map.entry("num.recovery.threads.per.data.dir", "1"),
                Map.entry("num.replica.fetchers", "1"));
    }

    /** {@code host:port} for the clients' {@code bootstrap.servers}. */
    @Override
    public String bootstrapServers() {
        return Ports.LOOPBACK + ":" + port;
    }

    public int port() {
        return port;
    }

    public Path logDir() {
        return logDir;
    }

    /** Creates topics with one replica; topics that already exist are left as they are. */
    public void createTopics(int partitions, String... topics) {
        createTopics(Arrays.stream(topics)
                .map(name -> new NewTopic(name, partitions, (short) 1))
                .toList());
    }

    /** Creates topics with one partition and one replica; topics that already exist are left as they are. */
    public void createTopics(String... topics) {
        createTopics(1, topics);
    }

    /** Creates the given topics; topics that already exist are left as they are. */
    public void createTopics(Collection<NewTopic> topics) {
        try (Admin admin = admin()) {
            for (var result : admin.createTopics(topics).values().entrySet()) {
                try {
                    result.getValue().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("Cannot create topic " + result.getKey(), e.getCause());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topics", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Timed out creating topics " + topicNames(topics), e);
        }
    }

    /** The names of all non-internal topics. */
    public Set<String> listTopics() {
        try (Admin admin = admin()) {
            return admin.listTopics().names().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while listing topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot list topics", e);
        }
    }

    /** A new admin client for this broker; the caller closes it. */
    public Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(props);
    }

    /** Shuts the broker down cleanly; the log dir stays unless it was a temporary one. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        shutdownQuietly(server);
        if (deleteLogDirOnClose) {
            Directories.deleteQuietly(logDir);
        }
        log.info("Kafka on port {} stopped", port);
    }

    private static void shutdownQuietly(KafkaRaftServer server) {
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException e) {
            log.warn("Kafka broker did not shut down cleanly", e);
        }
    }

    private static List<String> topicNames(Collection<NewTopic> topics) {
        return topics.stream().map(NewTopic::name).collect(Collectors.toList());
    }
}
