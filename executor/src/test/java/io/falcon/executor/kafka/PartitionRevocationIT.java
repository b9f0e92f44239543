package io.falcon.executor.kafka;

import static io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.container.v1.ClusterManagerClient;
import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.Topics;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.executor.ExecutorApp;
import io.falcon.executor.ExecutorConfig;
import io.falcon.executor.gke.GoogleClients;
import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.FleetRecord;
import io.falcon.fleetsim.FleetSim;
import io.falcon.fleetsim.FleetSimConfig;
import io.falcon.testkit.Await;
import io.falcon.testkit.kafka.TopicProducer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Two executors share the command partitions (k8s/ deploys two). On the real broker: an executor is stepping node
 * pool creations when another member joins its group and takes some of the partitions. The work its commands started
 * must stop with the partitions (a creation stepped on would re-create a pool the new owner deleted, and the old
 * owner keeps no offset to hand over anyway), while the partitions it keeps go on.
 */
class PartitionRevocationIT {
    private static final Duration WAIT = Duration.ofSeconds(45);
    private static final String PROJECT = "proj-rv";
    private static final String LOCATION = "us-central1";
    private static final String GKE_CLUSTER = "edge-rv";

    @Test
    void theWorkOfARevokedPartitionStopsAndAPoolItsNewOwnerDeletedIsNotCreatedAgain() throws Exception {
        EmbeddedKafka kafka = SharedInfra.kafka();
        kafka.createTopics(
                3,
                Topics.EXECUTOR_COMMANDS.name(),
                Topics.EXECUTOR_EVENTS.name(),
                Topics.DEAD_LETTER.name(),
                Topics.CDC_CLUSTERS.name());
        String run = SharedInfra.uniqueName("revoke").replace('_', '-');
        String group = "executor-" + run;
        try (FleetSim sim = FleetSim.start(
                        FleetSimConfig.of(EdgeClusterConfig.of(PROJECT, LOCATION, GKE_CLUSTER, "tpu7x")));
                TopicProducer<String, ExecutorCommand> commands =
                        TopicProducer.to(kafka.bootstrapServers(), Topics.EXECUTOR_COMMANDS);
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            // creations that stay in flight for the whole test
            sim.nodePoolKnobs(PROJECT, LOCATION, GKE_CLUSTER).creationDelay(Duration.ofMinutes(10));
            int partitions = admin.describeTopics(List.of(Topics.EXECUTOR_COMMANDS.name()))
                    .allTopicNames()
                    .get()
                    .get(Topics.EXECUTOR_COMMANDS.name())
                    .partitions()
                    .size();
            // one clusters row per command partition (all rows name the same GKE cluster)
            Map<Integer, ClusterTarget> rowOf = new HashMap<>();
            for (int i = 0; rowOf.size() < partitions; i++) {
                String id = "rv-" + run + "-" + i;
                rowOf.putIfAbsent(
                        partitionOf(id, partitions),
                        new ClusterTarget(id, GKE_CLUSTER, PROJECT, LOCATION, "v7x", "bucket-rv"));
            }
            Map<String, String> settings = new HashMap<>(ExecutorConfig.simulatorDefaults(
                    kafka.bootstrapServers(), sim.gkeEndpoint(), sim.computeEndpoint()));
            settings.put(ExecutorKeys.GROUP_ID.key(), group);
            settings.put(ExecutorKeys.POLL_INTERVAL.key(), "100ms");
            settings.put(ExecutorKeys.PRODUCER_NAME.key(), "executor-old-owner");
            ExecutorConfig config = ExecutorConfig.from(settings);

            try (ClusterManagerClient gke = GoogleClients.clusterManager(config);
                    ExecutorApp oldOwner = new ExecutorApp(config).start()) {
                for (var entry : rowOf.entrySet()) {
                    commands.send(entry.getValue().clusterId(), ensurePool(entry.getValue(), entry.getKey()));
                }
                Await.until(
                        "a creation in flight per partition",
                        WAIT,
                        () -> oldOwner.nodePoolsInFlight() == partitions,
                        () -> "in flight: " + oldOwner.nodePoolsInFlight());

                // the other executor joins the group and is given some of the partitions
                Set<TopicPartition> taken = ConcurrentHashMap.newKeySet();
                AtomicBoolean stop = new AtomicBoolean();
                Thread newOwner = new Thread(() -> joinAs(kafka, group, "zzzz-" + run, taken, stop), "new-owner");
                newOwner.start();
                try {
                    Await.until("the new member given partitions", WAIT, () -> !taken.isEmpty(), () -> "none yet");
                    Await.until(
                            "the old owner stopping the work of the partitions it lost",
                            WAIT,
                            () -> oldOwner.nodePoolsInFlight() <= partitions - taken.size(),
                            () -> "in flight: " + oldOwner.nodePoolsInFlight() + ", taken " + taken);

                    // the new owner's part: the scheduler no longer wants those pools, and it deletes them
                    List<String> deleted = new ArrayList<>();
                    for (TopicPartition partition : taken) {
                        String pool = poolName(partition.partition());
                        gke.deleteNodePool(rowOf.get(partition.partition()).resourceName() + "/nodePools/" + pool);
                        deleted.add(pool);
                    }
                    for (String pool : deleted) {
                        Await.until("pool " + pool + " gone", WAIT, () -> !exists(gke, pool), () -> "still listed");
                    }

                    // the old owner goes on with what it kept: a new creation on one of its partitions is carried
                    // out (its tracker ran meanwhile), and nothing of the lost partitions was created again
                    int kept = rowOf.keySet().stream()
                            .filter(p -> taken.stream().noneMatch(t -> t.partition() == p))
                            .findFirst()
                            .orElseThrow();
                    ExecutorCommand.EnsureNodePool probe = executorCommand("job-probe-" + run)
                            .cluster(rowOf.get(kept))
                            .topology("2x2x1")
                            .nodePoolName("falcon-rv-probe-" + Integer.toHexString(run.hashCode()))
                            .producer("test")
                            .at(Instant.now())
                            .ensureNodePool();
                    commands.send(rowOf.get(kept).clusterId(), probe);
                    Await.until(
                            "the old owner creating a pool of a partition it kept",
                            WAIT,
                            () -> exists(gke, probe.nodePoolName()),
                            () -> "not created");
                    for (String pool : deleted) {
                        assertThat(exists(gke, pool))
                                .as(pool + " not created again")
                                .isFalse();
                        assertThat(sim.record().entries().stream()
                                        .filter(e -> e.kind() == FleetRecord.Kind.NODE_POOL_CREATE
                                                && e.outcome() == FleetRecord.Outcome.ACCEPTED
                                                && e.name().equals(pool)))
                                .as("accepted creations of " + pool)
                                .hasSize(1);
                    }
                } finally {
                    stop.set(true);
                    newOwner.join(10_000);
                }
            }
        }
    }

    private static String poolName(int partition) {
        return "falcon-rv-p" + partition;
    }

    private static ExecutorCommand.EnsureNodePool ensurePool(ClusterTarget row, int partition) {
        return executorCommand("job-rv-" + partition)
                .cluster(row)
                .topology("2x2x1")
                .nodePoolName(poolName(partition))
                .producer("test")
                .at(Instant.now())
                .ensureNodePool();
    }

    private static boolean exists(ClusterManagerClient gke, String pool) {
        return gke
                .listNodePools("projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + GKE_CLUSTER)
                .getNodePoolsList()
                .stream()
                .anyMatch(p -> p.getName().equals(pool));
    }

    /** The command partition of a cluster id, as the scheduler's producer picks it (the default partitioner). */
    private static int partitionOf(String clusterId, int partitions) {
        byte[] key =
                Topics.EXECUTOR_COMMANDS.keySerde().serializer().serialize(Topics.EXECUTOR_COMMANDS.name(), clusterId);
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }

    /**
     * A member of the executors' group that takes its share of the partitions and keeps it (polling, carrying out
     * nothing: the test plays its part) until told to stop.
     */
    private static void joinAs(
            EmbeddedKafka kafka, String group, String instanceId, Set<TopicPartition> taken, AtomicBoolean stop) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(Topics.EXECUTOR_COMMANDS.name()), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    taken.removeAll(partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    taken.addAll(partitions);
                }
            });
            while (!stop.get()) {
                consumer.poll(Duration.ofMillis(200));
            }
            io.falcon.events.GroupMembership.leaveAndClose(consumer, Duration.ofSeconds(5));
        }
    }
}
