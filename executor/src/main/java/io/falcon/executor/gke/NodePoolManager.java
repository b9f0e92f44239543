package io.falcon.executor.gke;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted;
import io.falcon.executor.EventSink;
import io.falcon.executor.Events;
import io.falcon.executor.ExecutorConfig;
import io.falcon.executor.Mdc;
import io.falcon.executor.core.EdgeApi;
import io.falcon.executor.core.GkeApi;
import io.falcon.executor.core.NodePoolDriver;
import io.falcon.executor.core.PoolReconciler;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-pool side of the executor at run time: the {@link NodePoolDriver}'s due tasks stepped every poll interval,
 * each on one of its step threads ({@code falcon.executor.tracker-threads}), and a periodic inventory of the falcon-* pools of every cluster it has seen. All decisions are in
 * {@link PoolReconciler}; GKE and Kubernetes are behind {@link GkeApi} and {@link EdgeApi}.
 */
public final class NodePoolManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodePoolManager.class);

    /** Timers of the manager; see ExecutorConfig for the keys. */
    public record Settings(
            Duration createTimeout,
            Duration pollInterval,
            Duration visibilityGrace,
            Duration inventoryInterval,
            Duration maxBackoff,
            int deleteFailuresReported,
            NodePoolSpec.ScaleDown scaleDown,
            io.falcon.executor.core.Ownership ownership,
            int stepThreads) {
        public Settings {
            if (stepThreads < 1) {
                throw new IllegalArgumentException("stepThreads must be at least 1, got " + stepThreads);
            }
            Objects.requireNonNull(createTimeout, "createTimeout");
            Objects.requireNonNull(pollInterval, "pollInterval");
            Objects.requireNonNull(visibilityGrace, "visibilityGrace");
            Objects.requireNonNull(inventoryInterval, "inventoryInterval");
            Objects.requireNonNull(maxBackoff, "maxBackoff");
        }

        public static Settings of(ExecutorConfig config) {
            return new Settings(
                    config.nodePoolCreateTimeout(),
                    config.pollInterval(),
                    config.visibilityGrace(),
                    config.inventoryInterval(),
                    config.maxBackoff(),
                    config.deleteFailuresReported(),
                    config.scaleDown(),
                    config.ownership(),
                    config.trackerThreads());
        }

        public PoolReconciler.Settings reconciler() {
            return new PoolReconciler.Settings(
                    createTimeout,
                    pollInterval,
                    visibilityGrace,
                    maxBackoff,
                    deleteFailuresReported,
                    java.util.Map.of(
                            io.falcon.events.executor.SupplyMode.RESERVATION,
                            scaleDown.reservation(),
                            io.falcon.events.executor.SupplyMode.ON_DEMAND,
                            scaleDown.onDemand(),
                            io.falcon.events.executor.SupplyMode.FLEX_START,
                            scaleDown.flexStart()));
        }
    }

    private final NodePoolDriver driver;
    private final ScheduledExecutorService scheduler;
    /**
     * Where the pools' steps run, apart from the scheduler's timers (heartbeats, informer resyncs), which a queue of
     * slow steps must not hold up.
     */
    private final java.util.concurrent.ExecutorService steps;

    private final Clock clock;
    private final Settings settings;
    /** Clusters seen (commands, registry), by id, for the inventory. */
    private final Map<String, ClusterTarget> clusters = new ConcurrentHashMap<>();

    private ScheduledFuture<?> poller;
    private ScheduledFuture<?> inventory;

    public NodePoolManager(
            GkeApi gke,
            EdgeApi edges,
            EventSink sink,
            Events events,
            ScheduledExecutorService scheduler,
            Clock clock,
            Settings settings) {
        this.driver = new NodePoolDriver(
                gke,
                edges,
                new PoolReconciler(
                        settings.reconciler(),
                        events,
                        () -> ThreadLocalRandom.current().nextDouble(),
                        settings.ownership()),
                sink,
                events);
        this.scheduler = scheduler;
        this.clock = clock;
        this.settings = settings;
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        // each step mostly waits on GKE: many threads, each gone after a minute without work
        java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(
                settings.stepThreads(),
                settings.stepThreads(),
                60,
                TimeUnit.SECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "falcon-executor-pool-step-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        this.steps = pool;
        // a command's first step (look-ups and the create) off the command loop, which goes on at once
        driver.stepsOn(steps, clock::instant);
    }

    public synchronized void start() {
        if (poller == null) {
            long ms = settings.pollInterval().toMillis();
            poller = scheduler.scheduleWithFixedDelay(this::tick, ms, ms, TimeUnit.MILLISECONDS);
            long inv = settings.inventoryInterval().toMillis();
            inventory = scheduler.scheduleWithFixedDelay(this::inventoryAll, inv, inv, TimeUnit.MILLISECONDS);
        }
    }

    /** Number of pools being created, waited for or deleted (for tests and health). */
    public int inFlight() {
        return driver.inFlight();
    }

    public void ensure(EnsureNodePool command) {
        known(command.cluster());
        driver.ensure(command, clock.instant());
    }

    public void ensureDeleted(EnsureNodePoolDeleted command) {
        known(command.cluster());
        driver.ensureDeleted(command, clock.instant());
    }

    /**
     * First sight of a cluster (a command or the clusters registry, also after a restart): report its falcon pools
     * at once, so the scheduler can confirm deletions and spot orphans without waiting for the periodic inventory.
     * Nothing is re-reported or resumed from here: the scheduler re-sends what it still wants.
     */
    public void discovered(ClusterTarget cluster) {
        known(cluster);
        try (var ignored = Mdc.of("cluster", cluster.clusterId() + "/" + cluster.name())) {
            driver.inventory(cluster);
        } catch (RuntimeException e) {
            log.warn("node pool inventory of cluster {} failed: {}", cluster.clusterId(), e.getMessage());
        }
    }

    /**
     * Something the pool's creation waits for happened (a node of the pool turned Ready, seen by the node informer;
     * the workload policy it names was created): step the creation now rather than at its next attempt, on the
     * manager's step threads (the step calls GKE). Nothing happens for a pool without a creation in flight.
     */
    public void nudge(ClusterTarget cluster, String pool) {
        try {
            steps.execute(() -> {
                try (var ignored = Mdc.of("cluster", cluster.clusterId() + "/" + cluster.name(), "nodePool", pool)) {
                    driver.nudge(cluster, pool, clock.instant());
                } catch (RuntimeException e) {
                    log.error("node pool {} step after a nudge failed", pool, e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("node pool {} not nudged: the manager is closed", pool);
        }
    }

    /** Lists the cluster's pools and reports the falcon-* ones. */
    public void inventory(ClusterTarget cluster) {
        driver.inventory(cluster);
    }

    private void known(ClusterTarget cluster) {
        clusters.put(cluster.clusterId(), cluster);
    }

    /**
     * The command partitions of these clusters went to another executor: the pools being created or deleted for them
     * here stop and are forgotten ({@link NodePoolDriver#forgetClusters}). Their inventories go on (they only report).
     */
    public void revoked(java.util.Set<String> clusterIds) {
        int forgotten = driver.forgetClusters(clusterIds);
        if (forgotten > 0) {
            log.info("{} node pool task(s) of clusters {} forgotten", forgotten, clusterIds);
        }
    }

    /** Forgets a cluster (removed from the registry): no more inventories of it. */
    public void forget(String clusterId) {
        clusters.remove(clusterId);
    }

    private void tick() {
        try {
            driver.tick(clock::instant, steps);
        } catch (RuntimeException e) {
            log.error("node pool tick failed", e);
        }
    }

    private void inventoryAll() {
        for (ClusterTarget cluster : clusters.values()) {
            try (var ignored = Mdc.of("cluster", cluster.clusterId() + "/" + cluster.name())) {
                driver.inventory(cluster);
            } catch (RuntimeException e) {
                log.warn("node pool inventory of cluster {} failed: {}", cluster.clusterId(), e.getMessage());
            }
        }
    }

    @Override
    public synchronized void close() {
        if (poller != null) {
            poller.cancel(false);
            inventory.cancel(false);
            poller = null;
            inventory = null;
        }
        steps.shutdown();
    }
}
