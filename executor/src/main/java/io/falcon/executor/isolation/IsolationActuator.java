package io.falcon.executor.isolation;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.falcon.events.Topics;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.security.KafkaConnection;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries fault-streams' isolation state to the edge clusters: reads the compacted falcon.isolation from the
 * beginning (it is the desired state per cluster/node), writes each node into cluster-system/clusterd-manual-info-cm
 * of its cluster, and watches that ConfigMap with an informer; a device an operator removed becomes a Release on
 * falcon.isolation-commands, which fault-streams applies (device released, counters cleared). What the ConfigMap
 * lists goes there too (ListedByOthers, ListedByFalcon), so fault-streams' state knows the devices already isolated
 * (its budget, state lost). The ConfigMaps of all known clusters are watched, not only of those with isolations.
 * One thread does all ConfigMap work, so informer events are queued to it.
 */
public final class IsolationActuator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IsolationActuator.class);

    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final IsolationClusters clusters;
    private final ConfigMapSync sync;
    private final Duration resync;
    private final Map<String, SharedIndexInformer<ConfigMap>> informers = new ConcurrentHashMap<>();
    private final Queue<Check> checks = new ConcurrentLinkedQueue<>();
    /**
     * Desired ConfigMap entries not written yet (cluster not known yet, API error), by cluster/node key: re-applied
     * every second until written, so an isolation is never dropped because it arrived before its cluster's row.
     * Only touched on the actuator's thread.
     */
    private final Map<String, Optional<NodeIsolation>> unapplied = new java.util.LinkedHashMap<>();

    private long lastRetryMs;
    private volatile boolean running = true;
    private Thread thread;

    /** all: publish all the ConfigMap lists (first sight, periodic resync), not only what changed. */
    private record Check(String clusterId, Optional<ConfigMap> deleted, boolean all) {}

    private long lastWatchKnownMs;

    /** Production wiring: its own consumer (no group: always the whole compacted topic) and producer. */
    public IsolationActuator(KafkaConnection kafka, String clientId, IsolationClusters clusters, Clock clock) {
        this(
                new KafkaConsumer<>(kafka.with(Map.of(
                        ConsumerConfig.CLIENT_ID_CONFIG,
                        clientId + "-isolation",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        // fault-streams writes falcon.isolation in transactions: never act on an aborted one
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed",
                        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                        ByteArrayDeserializer.class,
                        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                        ByteArrayDeserializer.class))),
                new KafkaProducer<>(kafka.with(Map.of(
                        ProducerConfig.CLIENT_ID_CONFIG,
                        clientId + "-isolation-commands",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                        ByteArraySerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                        ByteArraySerializer.class))),
                clusters,
                clock,
                Duration.ofMinutes(5));
    }

    public IsolationActuator(
            Consumer<byte[], byte[]> consumer,
            Producer<byte[], byte[]> producer,
            IsolationClusters clusters,
            Clock clock,
            Duration informerResync) {
        this.consumer = consumer;
        this.producer = producer;
        this.clusters = clusters;
        this.resync = informerResync;
        this.sync = new ConfigMapSync(clusters, this::publish, clock, "executor");
    }

    public synchronized IsolationActuator start() {
        if (thread == null) {
            thread = new Thread(this::run, "falcon-executor-isolation");
            thread.setDaemon(true);
            thread.start();
        }
        return this;
    }

    /** Starts watching a cluster's ConfigMap (done on its first isolation record too). */
    public void watch(String clusterId) {
        if (informers.containsKey(clusterId)) {
            return;
        }
        clusters.client(clusterId)
                .ifPresent(client -> informers.computeIfAbsent(clusterId, id -> {
                    LOG.info("cluster={} watching {}/{}", id, ManualInfoConfigMap.NAMESPACE, ManualInfoConfigMap.NAME);
                    return client.configMaps()
                            .inNamespace(ManualInfoConfigMap.NAMESPACE)
                            .withName(ManualInfoConfigMap.NAME)
                            .inform(
                                    new ResourceEventHandler<>() {
                                        @Override
                                        public void onAdd(ConfigMap cm) {
                                            checks.add(new Check(id, Optional.empty(), true));
                                        }

                                        @Override
                                        public void onUpdate(ConfigMap before, ConfigMap after) {
                                            // the periodic resync hands the same version again: publish it all
                                            boolean resync = java.util.Objects.equals(
                                                    before.getMetadata().getResourceVersion(),
                                                    after.getMetadata().getResourceVersion());
                                            checks.add(new Check(id, Optional.empty(), resync));
                                        }

                                        @Override
                                        public void onDelete(ConfigMap cm, boolean finalStateUnknown) {
                                            checks.add(new Check(id, Optional.of(cm), false));
                                        }
                                    },
                                    resync.toMillis());
                }));
    }

    private void run() {
        String topic = Topics.ISOLATION.name();
        try {
            List<TopicPartition> partitions = List.of();
            while (running && partitions.isEmpty()) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
                partitions = infos == null
                        ? List.of()
                        : infos.stream()
                                .map(p -> new TopicPartition(topic, p.partition()))
                                .toList();
                if (partitions.isEmpty()) {
                    watchKnown();
                    runChecks();
                    Thread.sleep(500);
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (running) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    handle(record);
                }
                watchKnown();
                runChecks();
                retryUnapplied();
            }
        } catch (WakeupException | InterruptedException e) {
            // stopping
        } catch (RuntimeException e) {
            LOG.error("isolation actuator stopped", e);
        }
    }

    void handle(ConsumerRecord<byte[], byte[]> record) {
        String key = record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8);
        try {
            String[] clusterAndNode = NodeIsolation.splitKey(key);
            Optional<NodeIsolation> state =
                    Optional.ofNullable(Topics.ISOLATION.valueSerde().fromBytes(record.value()));
            apply(key, clusterAndNode[0], clusterAndNode[1], state);
        } catch (RuntimeException e) {
            LOG.warn(
                    "skipping isolation record key={} at {}-{}@{}: {}",
                    key,
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    e.getMessage());
        }
    }

    private void apply(String key, String clusterId, String node, Optional<NodeIsolation> state) {
        watch(clusterId);
        boolean written;
        try {
            written = sync.apply(clusterId, node, state);
        } catch (RuntimeException e) {
            LOG.warn("cluster={} node={} ConfigMap update failed, will retry: {}", clusterId, node, e.getMessage());
            written = false;
        }
        if (written) {
            unapplied.remove(key);
        } else {
            unapplied.put(key, state);
        }
    }

    /**
     * Watches the ConfigMap of every known cluster (at most every 10 s), not only of those Falcon isolated devices
     * in: what others listed there counts in fault-streams' isolation budget from the start.
     */
    void watchKnown() {
        long now = System.currentTimeMillis();
        if (now - lastWatchKnownMs < 10_000) {
            return;
        }
        lastWatchKnownMs = now;
        for (String clusterId : clusters.known()) {
            if (!informers.containsKey(clusterId)) {
                try {
                    watch(clusterId);
                } catch (RuntimeException e) {
                    LOG.warn(
                            "cluster={} cannot watch {}/{} yet, will retry: {}",
                            clusterId,
                            ManualInfoConfigMap.NAMESPACE,
                            ManualInfoConfigMap.NAME,
                            e.getMessage());
                }
            }
        }
    }

    /** Applies again what could not be written yet (at most once a second). */
    void retryUnapplied() {
        long now = System.currentTimeMillis();
        if (unapplied.isEmpty() || now - lastRetryMs < 1000) {
            return;
        }
        lastRetryMs = now;
        for (Map.Entry<String, Optional<NodeIsolation>> entry : List.copyOf(unapplied.entrySet())) {
            String[] clusterAndNode = NodeIsolation.splitKey(entry.getKey());
            apply(entry.getKey(), clusterAndNode[0], clusterAndNode[1], entry.getValue());
        }
    }

    /** Entries still waiting to be written (for tests and health). */
    int unappliedCount() {
        return unapplied.size();
    }

    void runChecks() {
        Check check;
        while ((check = checks.poll()) != null) {
            try {
                if (check.deleted().isPresent()) {
                    sync.deleted(check.clusterId(), check.deleted().get());
                } else {
                    sync.checkReleases(check.clusterId(), check.all());
                }
            } catch (RuntimeException e) {
                LOG.warn("cluster={} release check failed: {}", check.clusterId(), e.getMessage());
            }
        }
    }

    private void publish(IsolationCommand command) {
        producer.send(new ProducerRecord<>(
                Topics.ISOLATION_COMMANDS.name(),
                command.clusterId().getBytes(StandardCharsets.UTF_8),
                Topics.ISOLATION_COMMANDS.valueSerde().toBytes(command)));
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        if (thread != null) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        informers.values().forEach(SharedIndexInformer::close);
        consumer.close(Duration.ofSeconds(2));
        producer.close(Duration.ofSeconds(5));
    }
}
