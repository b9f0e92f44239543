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
    private final Listeners listeners;
    private final KafkaRaftServer server;
    private boolean closed;

    private EmbeddedKafka(
            Path logDir, boolean deleteLogDirOnClose, int port, Listeners listeners, KafkaRaftServer server) {
        this.logDir = logDir;
        this.deleteLogDirOnClose = deleteLogDirOnClose;
        this.port = port;
        this.listeners = listeners;
        this.server = server;
    }

    /**
     * Secured listeners next to the PLAINTEXT one (which stays for the broker itself, {@link #admin()} and setting
     * up users and ACLs, and whose principal User:ANONYMOUS is a super user when the authorizer is on).
     *
     * @param tls an SSL listener with this key store (PKCS12), requiring client certificates signed by what the
     *     trust store holds when it is given
     * @param scram a SASL_PLAINTEXT listener with SCRAM-SHA-512 (users: {@link #createScramUser})
     * @param authorizer Kafka's StandardAuthorizer: a principal may do only what its ACLs allow
     * @param superUsers principals besides User:ANONYMOUS that may do anything (e.g. a client certificate's)
     */
    public record Security(java.util.Optional<Tls> tls, boolean scram, boolean authorizer, List<String> superUsers) {
        public Security {
            superUsers = List.copyOf(superUsers);
        }

        /** A PKCS12 key store for the SSL listener, and optionally the trust store of required client certificates. */
        public record Tls(Path keyStore, String password, java.util.Optional<Path> clientTrustStore) {
            @Override
            public String toString() {
                return "Tls[keyStore=" + keyStore + ", clientTrustStore=" + clientTrustStore + "]";
            }
        }
    }

    /** The ports of the secured listeners (0: none). */
    private record Listeners(int ssl, int sasl) {}

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

    /** Starts a broker with secured listeners on free ports and a temporary log dir (tests of TLS, SASL and ACLs). */
    public static EmbeddedKafka launch(Security security) {
        return launch(Directories.createTemp("falcon-kafka-"), 0, true, java.util.Optional.of(security), Map.of());
    }

    /**
     * Starts a broker on a free port with a temporary log dir and some broker settings replaced: benches that
     * measure sustained rates use it to give the broker a production setting in place of a small-footprint one
     * (say, Kafka's default 1 GiB segments instead of 8 MB, whose frequent rolls keep the log cleaner compacting
     * changelogs all through a run).
     */
    public static EmbeddedKafka launch(Map<String, ?> overrides) {
        return launch(Directories.createTemp("falcon-kafka-"), 0, true, java.util.Optional.empty(), overrides);
    }

    private static EmbeddedKafka launch(Path logDir, int requestedPort, boolean deleteLogDirOnClose) {
        return launch(logDir, requestedPort, deleteLogDirOnClose, java.util.Optional.empty(), Map.of());
    }

    private static EmbeddedKafka launch(
            Path logDir,
            int requestedPort,
            boolean deleteLogDirOnClose,
            java.util.Optional<Security> security,
            Map<String, ?> overrides) {
        long started = System.nanoTime();
        Path dir = Directories.ensureExists(logDir);
        int port = Ports.resolve(requestedPort, "Kafka broker");
        int controllerPort = Ports.freePort();
        Listeners listeners = new Listeners(
                security.flatMap(Security::tls).isPresent() ? Ports.freePort() : 0,
                security.filter(Security::scram).isPresent() ? Ports.freePort() : 0);
        KRaftStorage.formatIfNeeded(dir, NODE_ID, CONTROLLER_LISTENER);
        Map<String, Object> config = new java.util.HashMap<>(brokerConfig(dir, port, controllerPort));
        security.ifPresent(s -> config.putAll(securedConfig(s, listeners, port, controllerPort)));
        config.putAll(overrides);
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(config), Time.SYSTEM);
        try {
            server.startup(); // returns once the broker has caught up with the metadata log and is unfenced
        } catch (RuntimeException e) {
            shutdownQuietly(server);
            throw new IllegalStateException(
                    "Kafka broker failed to start on port " + port + " (controller port " + controllerPort
                            + ", log dir " + dir + ")",
                    e);
        }
        EmbeddedKafka kafka = new EmbeddedKafka(dir, deleteLogDirOnClose, port, listeners, server);
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

    /**
     * The listeners, their protocols and the security of the secured ones. Only the SSL and SASL listeners are
     * configured per listener (listener.name.NAME.*), so the PLAINTEXT one and the controller stay as they are.
     */
    private static Map<String, Object> securedConfig(Security security, Listeners listeners, int port, int controller) {
        String host = Ports.LOOPBACK;
        Map<String, Object> config = new java.util.HashMap<>();
        StringBuilder names = new StringBuilder("PLAINTEXT://" + host + ":" + port);
        StringBuilder protocols = new StringBuilder("PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        security.tls().ifPresent(tls -> {
            names.append(",SSL://").append(host).append(':').append(listeners.ssl());
            protocols.append(",SSL:SSL");
            config.put("listener.name.ssl.ssl.keystore.location", tls.keyStore().toString());
            config.put("listener.name.ssl.ssl.keystore.type", "PKCS12");
            config.put("listener.name.ssl.ssl.keystore.password", tls.password());
            config.put("listener.name.ssl.ssl.key.password", tls.password());
            tls.clientTrustStore().ifPresent(trust -> {
                config.put("listener.name.ssl.ssl.client.auth", "required");
                config.put("listener.name.ssl.ssl.truststore.location", trust.toString());
                config.put("listener.name.ssl.ssl.truststore.type", "PKCS12");
                config.put("listener.name.ssl.ssl.truststore.password", tls.password());
            });
        });
        if (security.scram()) {
            names.append(",SASL_PLAINTEXT://").append(host).append(':').append(listeners.sasl());
            protocols.append(",SASL_PLAINTEXT:SASL_PLAINTEXT");
            config.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
            config.put("listener.name.sasl_plaintext.sasl.enabled.mechanisms", "SCRAM-SHA-512");
            config.put(
                    "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        }
        String advertised = names.toString();
        config.put("listeners", advertised + "," + CONTROLLER_LISTENER + "://" + host + ":" + controller);
        config.put("advertised.listeners", advertised);
        config.put("listener.security.protocol.map", protocols.toString());
        if (security.authorizer()) {
            config.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            // the PLAINTEXT and controller listeners authenticate nobody: ANONYMOUS is the broker and the test's admin
            List<String> supers = new java.util.ArrayList<>(List.of("User:ANONYMOUS"));
            supers.addAll(security.superUsers());
            config.put("super.users", String.join(";", supers));
            config.put("allow.everyone.if.no.acl.found", "false");
        }
        return config;
    }

    /** {@code host:port} of the SSL listener. */
    public String sslBootstrapServers() {
        if (listeners.ssl() == 0) {
            throw new IllegalStateException("this broker has no SSL listener");
        }
        return Ports.LOOPBACK + ":" + listeners.ssl();
    }

    /** {@code host:port} of the SASL_PLAINTEXT (SCRAM-SHA-512) listener. */
    public String saslBootstrapServers() {
        if (listeners.sasl() == 0) {
            throw new IllegalStateException("this broker has no SASL listener");
        }
        return Ports.LOOPBACK + ":" + listeners.sasl();
    }

    /**
     * Creates (or replaces) a SCRAM-SHA-512 user and returns once the broker knows it, so that a login right after
     * succeeds.
     */
    public void createScramUser(String user, String password) {
        try (Admin admin = admin()) {
            admin.alterUserScramCredentials(List.of(new org.apache.kafka.clients.admin.UserScramCredentialUpsertion(
                            user,
                            new org.apache.kafka.clients.admin.ScramCredentialInfo(
                                    org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512, 4096),
                            password)))
                    .all()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            // the broker answers describe from the metadata it has applied: once it lists the user, logins work
            long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
            while (!knowsScramUser(admin, user)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the broker does not know the SCRAM user " + user);
                }
                Thread.onSpinWait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating SCRAM user " + user, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot create SCRAM user " + user, e);
        }
    }

    private static boolean knowsScramUser(Admin admin, String user)
            throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return admin.describeUserScramCredentials(List.of(user))
                    .all()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .containsKey(user);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.ResourceNotFoundException) {
                return false;
            }
            throw e;
        }
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
