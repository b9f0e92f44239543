package io.falcon.executor;

import com.google.cloud.compute.v1.ReservationsClient;
import com.google.cloud.container.v1.ClusterManagerClient;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.core.JobDriver;
import io.falcon.executor.gke.GkeClusterApi;
import io.falcon.executor.gke.GoogleClients;
import io.falcon.executor.gke.NodePoolManager;
import io.falcon.executor.gke.ReservationLookup;
import io.falcon.executor.isolation.IsolationActuator;
import io.falcon.executor.isolation.KnownClusters;
import io.falcon.executor.k8s.EdgeClusterClients;
import io.falcon.executor.k8s.JobStatusReconciler;
import io.falcon.executor.k8s.KubernetesEdgeApi;
import io.falcon.executor.kafka.ClusterRegistryWatcher;
import io.falcon.executor.kafka.CommandConsumer;
import io.falcon.executor.kafka.KafkaEventSink;
import io.falcon.ops.FalconMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor component: a command consumer, an idempotent event producer, the node-pool tracker and the job
 * status informers. Embeddable ({@code local} runs it in one JVM with the others): {@link #start()} returns at
 * once, {@link #close()} drains and stops everything; nothing calls System.exit.
 */
public final class ExecutorApp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ExecutorApp.class);

    private final ExecutorConfig config;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final ClusterManagerClient gke;
    private final ReservationsClient reservations;
    private final com.google.cloud.compute.v1.ResourcePoliciesClient resourcePolicies;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaEventSink sink;
    private final EdgeClusterClients edgeClients;
    private final NodePoolManager nodePools;
    private final JobStatusReconciler reconciler;
    private final CommandDispatcher dispatcher;
    private final List<CommandConsumer> commands = new java.util.ArrayList<>();
    private final ClusterRegistryWatcher registry;
    private final KnownClusters knownClusters;
    private final IsolationActuator isolation;
    private final List<Thread> commandThreads = new java.util.ArrayList<>();
    private Thread registryThread;
    private boolean closed;

    public ExecutorApp(ExecutorConfig config) {
        this(config, Clock.systemUTC());
    }

    public ExecutorApp(ExecutorConfig config, Clock clock) {
        this(config, clock, new FalconMetrics(new SimpleMeterRegistry()));
    }

    /** Threads of the timers: each reports or inventories at most a few clusters at a time. */
    static final int TIMER_THREADS = 8;

    public ExecutorApp(ExecutorConfig config, Clock clock, FalconMetrics metrics) {
        this.config = config;
        this.clock = clock;
        this.scheduler =
                // timers (heartbeats, Jobs reported again, inventories); the pools' steps have threads of their own
                Executors.newScheduledThreadPool(
                        Math.min(config.trackerThreads(), TIMER_THREADS), daemonThreads("falcon-executor-tracker"));
        this.gke = GoogleClients.clusterManager(config);
        this.producer = new KafkaProducer<>(producerProps(config));
        this.sink = new KafkaEventSink(producer, clock);
        EventSink metered = new MeteredEventSink(sink, metrics);
        Events events = new Events(config.producerName(), clock);
        this.edgeClients = new EdgeClusterClients(gke, config.credentials(), config.namespace());
        this.reconciler = new JobStatusReconciler(
                edgeClients,
                config.namespace(),
                metered,
                events,
                clock,
                config.imagePullGrace(),
                config.informerResync(),
                scheduler,
                config.pollInterval(),
                config.inventoryInterval(),
                config.ownership());
        this.reservations = GoogleClients.reservations(config);
        this.resourcePolicies = GoogleClients.resourcePolicies(config);
        io.falcon.executor.gke.WorkloadPolicies workloadPolicies =
                new io.falcon.executor.gke.WorkloadPolicies(resourcePolicies);
        GkeClusterApi gkeApi = new GkeClusterApi(
                gke,
                new ReservationLookup(
                        reservations,
                        (cluster, reservation, capacity) ->
                                metrics.reservationRemaining(cluster.clusterId(), reservation, capacity.remaining())),
                workloadPolicies,
                config.scaleDown(),
                config.ownership());
        KubernetesEdgeApi edgeApi =
                new KubernetesEdgeApi(edgeClients, config.jobRenderer(), config.namespace(), this::watchCluster);
        this.nodePools = new NodePoolManager(
                gkeApi, edgeApi, metered, events, scheduler, clock, NodePoolManager.Settings.of(config));
        reconciler.onNodeReady(nodePools::nudge);
        workloadPolicies.onInsertDone(nodePools::nudge);
        JobDriver jobs = new JobDriver(edgeApi, metered, events, config.ownership());
        this.dispatcher = new CommandDispatcher(nodePools, jobs, reconciler);
        for (int i = 0; i < config.commandThreads(); i++) {
            commands.add(new CommandConsumer(
                            new KafkaConsumer<>(consumerProps(config, i)),
                            producer,
                            sink,
                            dispatcher::handle,
                            clock,
                            config.producerName())
                    .onDeadLetter(metrics::deadLetter)
                    .onRevoked(dispatcher::revoked)
                    .lanes(config.commandLanes()));
        }
        this.knownClusters = new KnownClusters(edgeClients);
        this.isolation = new IsolationActuator(config.kafka(), config.groupId() + "-isolation", knownClusters, clock);
        this.registry = config.watchClusterRegistry()
                ? new ClusterRegistryWatcher(new KafkaConsumer<>(registryProps(config)), this::watchCluster)
                : null;
    }

    /** Starts the loops and returns. */
    public synchronized ExecutorApp start() {
        if (!commandThreads.isEmpty()) {
            return this;
        }
        nodePools.start();
        isolation.start();
        long beat = config.heartbeatInterval().toMillis();
        scheduler.scheduleWithFixedDelay(
                new ExecutorHeartbeats(
                        reconciler, sink, clock, config.producerName(), io.falcon.events.GroupMembership.instanceId()),
                beat,
                beat,
                TimeUnit.MILLISECONDS);
        for (int i = 0; i < commands.size(); i++) {
            Thread thread = new Thread(commands.get(i), "falcon-executor-commands" + (i == 0 ? "" : "-" + i));
            commandThreads.add(thread);
            thread.start();
        }
        if (registry != null) {
            registryThread = new Thread(registry, "falcon-executor-cluster-registry");
            registryThread.setDaemon(true);
            registryThread.start();
        }
        log.info(
                "executor started: kafka={} gke={} credentials={} namespace={} nodePoolTimeout={} poll={}",
                config.kafka().bootstrapServers(),
                config.gkeEndpoint(),
                config.credentials().wireName(),
                config.namespace(),
                config.nodePoolCreateTimeout(),
                config.pollInterval());
        return this;
    }

    /** Starts watching the jobs of a cluster (also done on the first command for it). */
    public void watchCluster(ClusterTarget cluster) {
        dispatcher.watchCluster(cluster);
        knownClusters.accept(cluster);
    }

    /** The command partitions the first command loop holds, for readiness (it joins like the others). */
    public io.falcon.ops.Checks.AssignmentTracker commandAssignment() {
        return commands.get(0).assignment();
    }

    /** Whether every command loop is alive, for liveness. */
    public boolean running() {
        return !commandThreads.isEmpty() && commandThreads.stream().allMatch(Thread::isAlive) && !closed;
    }

    public ExecutorConfig config() {
        return config;
    }

    /** Node pools being created or deleted right now. */
    public int nodePoolsInFlight() {
        return nodePools.inFlight();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        log.info("executor stopping");
        commands.forEach(CommandConsumer::stop);
        if (registry != null) {
            registry.stop();
        }
        commandThreads.forEach(ExecutorApp::join);
        join(registryThread);
        nodePools.close();
        reconciler.close();
        isolation.close();
        scheduler.shutdown();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        scheduler.shutdownNow();
        producer.close(Duration.ofSeconds(5));
        edgeClients.close();
        gke.close();
        reservations.close();
        resourcePolicies.close();
        log.info("executor stopped");
    }

    private static void join(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // public: bench/executor-throughput drives the real executor parts with the properties it ships with
    public static Map<String, Object> producerProps(ExecutorConfig config) {
        return config.kafka()
                .with(Map.of(
                        ProducerConfig.CLIENT_ID_CONFIG,
                        config.groupId() + "-producer",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.LINGER_MS_CONFIG,
                        5,
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                        ByteArraySerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                        ByteArraySerializer.class));
    }

    // public: bench/executor-throughput drives the real executor parts with the properties it ships with
    public static Map<String, Object> consumerProps(ExecutorConfig config) {
        return consumerProps(config, 0);
    }

    /** The consumer of command loop {@code loop}; each loop is its own static member of the group. */
    static Map<String, Object> consumerProps(ExecutorConfig config, int loop) {
        // static membership: a restarted executor takes its partitions back at once (GroupMembership)
        String instanceId = io.falcon.events.GroupMembership.instanceId();
        return io.falcon.events.GroupMembership.staticMember(
                config.kafka()
                        .with(Map.of(
                                ConsumerConfig.GROUP_ID_CONFIG,
                                config.groupId(),
                                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                                false,
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                "earliest",
                                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                                100,
                                // Commands of a scheduler transaction that aborted must never be carried out.
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_committed",
                                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                                ByteArrayDeserializer.class,
                                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                                ByteArrayDeserializer.class)),
                loop == 0 ? instanceId : instanceId + "-" + loop);
    }

    static Map<String, Object> registryProps(ExecutorConfig config) {
        return config.kafka()
                .with(Map.of(
                        ConsumerConfig.CLIENT_ID_CONFIG,
                        config.groupId() + "-cluster-registry",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed",
                        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                        ByteArrayDeserializer.class,
                        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                        ByteArrayDeserializer.class));
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
