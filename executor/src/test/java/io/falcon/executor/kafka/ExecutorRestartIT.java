package io.falcon.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.cdc.SourcePosition;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.ExecutorApp;
import io.falcon.executor.ExecutorConfig;
import io.falcon.executor.gke.GoogleClients;
import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.FleetSim;
import io.falcon.fleetsim.FleetSimConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The executor is stopped while a node pool it asked for is still provisioning, after the command was committed; a
 * new executor finds the pool in GKE by label and reports it ready, without the command being delivered again.
 */
class ExecutorRestartIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void poolProvisioningAcrossARestartIsCarriedOnByTheNewProcessWhenAskedAgain() throws Exception {
        EmbeddedKafka kafka = SharedInfra.kafka();
        kafka.createTopics(3, Topics.EXECUTOR_COMMANDS.name(), Topics.EXECUTOR_EVENTS.name(),
                Topics.DEAD_LETTER.name(), Topics.CDC_CLUSTERS.name());
        String run = SharedInfra.uniqueName("restart").replace('_', '-');
        String jobId = "job-" + run;
        String group = "executor-" + run;
        ClusterTarget cluster = new ClusterTarget("cluster-" + run, "edge-r", "proj-r", "us-central1", "v7x",
                "bucket-r");
        String pool = "falcon-rs-" + Integer.toHexString(run.hashCode());

        try (FleetSim sim = FleetSim.start(FleetSimConfig.of(
                EdgeClusterConfig.of("proj-r", "us-central1", "edge-r", "tpu7x")));
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
                KafkaConsumer<String, byte[]> events = consumer(kafka, Topics.EXECUTOR_EVENTS.name());
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers()))) {
            sim.nodePoolKnobs("proj-r", "us-central1", "edge-r").creationDelay(Duration.ofSeconds(4));
            Map<String, String> settings = new HashMap<>(ExecutorConfig.simulatorDefaults(kafka.bootstrapServers(),
                    sim.gkeEndpoint(), sim.computeEndpoint()));
            settings.put(ExecutorKeys.GROUP_ID.key(), group);
            settings.put(ExecutorKeys.POLL_INTERVAL.key(), "100ms");
            ExecutorConfig config = ExecutorConfig.from(settings);
            // the clusters registry, as cdc-ingest publishes it
            publishClusterRow(producer, cluster);

            try (ClusterManagerClient gke = GoogleClients.clusterManager(config)) {
                String poolPath = cluster.resourceName() + "/nodePools/" + pool;
                Map<String, String> first = new HashMap<>(settings);
                first.put(ExecutorKeys.PRODUCER_NAME.key(), "executor-first");
                var topic = Topics.EXECUTOR_COMMANDS;
                Runnable ensurePool = () -> {
                    producer.send(new ProducerRecord<>(topic.name(),
                            cluster.clusterId().getBytes(StandardCharsets.UTF_8),
                            topic.valueSerde().serializer().serialize(topic.name(),
                                    new ExecutorCommand.EnsureNodePool(Meta.of("test", Instant.now()), jobId,
                                            cluster, pool, "v7x", "2x4", SupplyMode.ON_DEMAND, Optional.empty()))));
                    producer.flush();
                };
                try (ExecutorApp app = new ExecutorApp(ExecutorConfig.from(first)).start()) {
                    ensurePool.run();
                    awaitPool(gke, poolPath);
                    awaitCommitted(admin, group);
                } // stopped while the pool is PROVISIONING
                assertThat(gke.getNodePool(poolPath).getStatus()).isEqualTo(NodePool.Status.PROVISIONING);

                Map<String, String> second = new HashMap<>(settings);
                second.put(ExecutorKeys.PRODUCER_NAME.key(), "executor-second");
                long restarted = System.nanoTime();
                try (ExecutorApp app = new ExecutorApp(ExecutorConfig.from(second)).start()) {
                    // The new process remembers nothing; the scheduler re-sends EnsureNodePool while the job is
                    // Provisioning, and the executor carries the pool on from what GKE shows.
                    ensurePool.run();
                    ExecutorEvent.NodePoolReady ready = awaitReady(events, jobId);
                    // An upper bound of the takeover: the old process left the group when it closed, so the new
                    // one is assigned the commands at once (this also includes the rest of the pool's creation).
                    Duration takeover = Duration.ofNanos(System.nanoTime() - restarted);
                    System.out.println("executor takeover after a graceful restart (to its first event): "
                            + takeover.toMillis() + " ms");
                    assertThat(takeover).isLessThan(Duration.ofSeconds(15));
                    assertThat(ready.meta().producer()).isEqualTo("executor-second");
                    assertThat(ready.nodePoolName()).isEqualTo(pool);
                    assertThat(ready.clusterId()).isEqualTo(cluster.clusterId());
                }
                long creates = gke.listOperations("projects/proj-r/locations/us-central1").getOperationsList()
                        .stream().filter(o -> o.getOperationType() == Operation.Type.CREATE_NODE_POOL).count();
                assertThat(creates).isEqualTo(1);
            }
        }
    }

    private static void publishClusterRow(KafkaProducer<byte[], byte[]> producer, ClusterTarget c) {
        var topic = Topics.CDC_CLUSTERS;
        ClusterRow row = new ClusterRow(c.clusterId(), c.name(), c.project(), c.location(), c.tpuType(),
                c.gcsBucket(), Optional.empty(), "active", Optional.of(Instant.now()));
        ClusterChange change = new ClusterChange(Meta.of("test", Instant.now()), ChangeOp.CREATE, Optional.empty(),
                Optional.of(row), new SourcePosition("binlog.000001", 4, 0, System.currentTimeMillis()));
        producer.send(new ProducerRecord<>(topic.name(), c.clusterId().getBytes(StandardCharsets.UTF_8),
                topic.valueSerde().serializer().serialize(topic.name(), change)));
        producer.flush();
    }

    private static void awaitPool(ClusterManagerClient gke, String poolPath) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                gke.getNodePool(poolPath);
                return;
            } catch (com.google.api.gax.rpc.NotFoundException e) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("pool " + poolPath + " was never created");
    }

    /** Until the group's committed offsets reach the end of the commands topic. */
    private static void awaitCommitted(Admin admin, String group) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < 3; p++) {
                latest.put(new TopicPartition(Topics.EXECUTOR_COMMANDS.name(), p), OffsetSpec.latest());
            }
            var ends = admin.listOffsets(latest).all().get();
            boolean done = ends.entrySet().stream().allMatch(e -> e.getValue().offset() == 0
                    || (committed.get(e.getKey()) != null
                            && committed.get(e.getKey()).offset() >= e.getValue().offset()));
            if (done && !committed.isEmpty()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("commands were not committed");
    }

    private static ExecutorEvent.NodePoolReady awaitReady(KafkaConsumer<String, byte[]> consumer, String jobId) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                ExecutorEvent e = Topics.EXECUTOR_EVENTS.valueSerde().deserializer().deserialize(r.topic(), r.value());
                if (e instanceof ExecutorEvent.NodePoolReady ready && ready.jobId().equals(jobId)) {
                    return ready;
                }
            }
        }
        throw new AssertionError("no NodePoolReady for " + jobId + " within " + WAIT);
    }

    private static KafkaConsumer<String, byte[]> consumer(EmbeddedKafka kafka, String topic) {
        KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, SharedInfra.uniqueName("reader"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
        c.subscribe(List.of(topic));
        return c;
    }
}
