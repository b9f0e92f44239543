package io.falcon.executor.kafka;

import static io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.ExecutorApp;
import io.falcon.executor.ExecutorConfig;
import io.falcon.executor.gke.GoogleClients;
import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.FleetSim;
import io.falcon.fleetsim.FleetSimConfig;
import io.falcon.testkit.Await;
import io.falcon.testkit.builders.ClusterRowBuilder;
import io.falcon.testkit.builders.RowChangeBuilder;
import io.falcon.testkit.kafka.TopicProducer;
import io.falcon.testkit.kafka.TopicReader;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
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
        kafka.createTopics(
                3,
                Topics.EXECUTOR_COMMANDS.name(),
                Topics.EXECUTOR_EVENTS.name(),
                Topics.DEAD_LETTER.name(),
                Topics.CDC_CLUSTERS.name());
        String run = SharedInfra.uniqueName("restart").replace('_', '-');
        String jobId = "job-" + run;
        String group = "executor-" + run;
        ClusterTarget cluster =
                new ClusterTarget("cluster-" + run, "edge-r", "proj-r", "us-central1", "v7x", "bucket-r");
        String pool = "falcon-rs-" + Integer.toHexString(run.hashCode());

        try (FleetSim sim = FleetSim.start(
                        FleetSimConfig.of(EdgeClusterConfig.of("proj-r", "us-central1", "edge-r", "tpu7x")));
                TopicProducer<String, ExecutorCommand> commands =
                        TopicProducer.to(kafka.bootstrapServers(), Topics.EXECUTOR_COMMANDS);
                TopicProducer<String, ClusterChange> clusterRows =
                        TopicProducer.to(kafka.bootstrapServers(), Topics.CDC_CLUSTERS);
                TopicReader<String, ExecutorEvent> events =
                        TopicReader.fromBeginning(kafka.bootstrapServers(), Topics.EXECUTOR_EVENTS);
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            sim.nodePoolKnobs("proj-r", "us-central1", "edge-r").creationDelay(Duration.ofSeconds(4));
            Map<String, String> settings = new HashMap<>(ExecutorConfig.simulatorDefaults(
                    kafka.bootstrapServers(), sim.gkeEndpoint(), sim.computeEndpoint()));
            settings.put(ExecutorKeys.GROUP_ID.key(), group);
            settings.put(ExecutorKeys.POLL_INTERVAL.key(), "100ms");
            ExecutorConfig config = ExecutorConfig.from(settings);
            // the clusters registry, as cdc-ingest publishes it
            clusterRows.send(
                    cluster.clusterId(),
                    RowChangeBuilder.inserted(ClusterRowBuilder.of(cluster)
                                    .createdAt(Instant.now())
                                    .build())
                            .at(Instant.now())
                            .build());

            try (ClusterManagerClient gke = GoogleClients.clusterManager(config)) {
                String poolPath = cluster.resourceName() + "/nodePools/" + pool;
                Map<String, String> first = new HashMap<>(settings);
                first.put(ExecutorKeys.PRODUCER_NAME.key(), "executor-first");
                Runnable ensurePool = () -> commands.send(
                        cluster.clusterId(),
                        executorCommand(jobId)
                                .cluster(cluster)
                                .topology("2x2x2")
                                .nodePoolName(pool)
                                .producer("test")
                                .at(Instant.now())
                                .ensureNodePool());
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
                    var ready = (ExecutorEvent.NodePoolReady) events.awaitValue(
                            "NodePoolReady of " + jobId,
                            WAIT,
                            e -> e instanceof ExecutorEvent.NodePoolReady
                                    && e.jobId().equals(jobId));
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
                long creates = gke.listOperations("projects/proj-r/locations/us-central1").getOperationsList().stream()
                        .filter(o -> o.getOperationType() == Operation.Type.CREATE_NODE_POOL)
                        .count();
                assertThat(creates).isEqualTo(1);
            }
        }
    }

    private static void awaitPool(ClusterManagerClient gke, String poolPath) {
        Await.until(
                "pool " + poolPath + " created",
                WAIT,
                () -> gke.getNodePool(poolPath) != null,
                () -> "GKE does not know it");
    }

    /** Until the group's committed offsets reach the end of the commands topic. */
    private static void awaitCommitted(Admin admin, String group) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            latest.put(new TopicPartition(Topics.EXECUTOR_COMMANDS.name(), p), OffsetSpec.latest());
        }
        Map<String, Object> observed = new HashMap<>();
        Await.until(
                "the commands committed by " + group,
                WAIT,
                () -> {
                    Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get();
                    var ends = admin.listOffsets(latest).all().get();
                    observed.put("committed", committed);
                    observed.put("ends", ends);
                    boolean done = ends.entrySet().stream()
                            .allMatch(e -> e.getValue().offset() == 0
                                    || (committed.get(e.getKey()) != null
                                            && committed.get(e.getKey()).offset()
                                                    >= e.getValue().offset()));
                    return done && !committed.isEmpty();
                },
                observed::toString);
    }
}
