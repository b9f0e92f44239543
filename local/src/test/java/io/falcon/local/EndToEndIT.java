package io.falcon.local;

import io.falcon.cli.JobBoard;
import io.falcon.cli.JobSubmission;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.SharedInfra;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real path through every module: INSERT a jobs row -> Debezium -> Kafka -> scheduler -> executor -> GKE and
 * Kubernetes APIs of the simulated fleet -> status events -> status-sink -> the row.
 */
class EndToEndIT {
    private static LocalFalcon falcon;

    @BeforeAll
    static void start() throws Exception {
        falcon = LocalFalcon.start(SharedInfra.kafka(), SharedInfra.mariaDb(), SharedInfra.uniqueName("e2e"),
                Files.createTempDirectory("falcon-e2e"), LocalFalcon.demoFleetConfig());
    }

    @AfterAll
    static void stop() {
        if (falcon != null) {
            falcon.close();
        }
    }

    @Test
    void anInsertedJobRunsOnTheFleetAndItsRowEndsSucceeded() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(connection, new JobSubmission.Request("e2e-ok", "alice", "profiling", "v6e", "2x4",
                    "{\"image\":\"train:1\",\"command\":[\"python\"],\"env\":{\"FALCON_SIM_DURATION_SECONDS\":\"1\"}}",
                    Optional.empty(), Optional.of(600L)));
            JobBoard.JobView done = awaitTerminal(connection, "e2e-ok");

            assertThat(done.status()).as(done.headline()).isEqualTo("Succeeded");
            assertThat(done.clusterId()).isPresent();
            assertThat(done.nodePoolName()).contains("falcon-e2e-ok");
            assertThat(done.jobUid()).isPresent();
            assertThat(done.dispatchedAt()).isPresent();
            assertThat(done.finishedAt()).isPresent();
            String project = DemoFleet.CLUSTERS.stream().filter(c -> c.id().equals(done.clusterId().get()))
                    .findFirst().orElseThrow().project();
            assertThat(project).startsWith("falcon-edge-");
        }
    }

    @Test
    void aRowWithAnInvalidSpecEndsFailedWithInvalidSpecNamingTheField() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(connection, new JobSubmission.Request("e2e-bad", "bob", "bad", "v6e", "2x2",
                    "{\"command\":[\"python\"]}", Optional.empty(), Optional.empty()));
            JobBoard.JobView done = awaitTerminal(connection, "e2e-bad");

            assertThat(done.status()).isEqualTo("Failed");
            assertThat(done.reason()).contains("InvalidSpec");
            assertThat(done.message()).contains("spec.image");
        }
    }

    @Test
    void aJobKilledByOomEndsFailedWithThePodReason() throws Exception {
        try (Connection connection = falcon.connect()) {
            JobSubmission.submit(connection, new JobSubmission.Request("e2e-oom", "carol", "oom", "v6e", "2x2",
                    "{\"image\":\"train:1\",\"command\":[\"python\"],\"env\":{\"FALCON_SIM_OOM\":\"true\",\"FALCON_SIM_DURATION_SECONDS\":\"1\"}}",
                    Optional.empty(), Optional.empty()));
            JobBoard.JobView done = awaitTerminal(connection, "e2e-oom");

            assertThat(done.status()).isEqualTo("Failed");
            assertThat(done.reason()).contains("JobFailed");
            assertThat(done.message()).contains("OOMKilled").contains("137");
        }
    }

    @Test
    void repeatedHardwareFaultsOfADeviceIsolateItInItsClustersConfigMap() throws Exception {
        DemoFleet.DemoCluster cluster = DemoFleet.CLUSTERS.get(0);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, falcon.kafka().bootstrapServers());
        try (KafkaProducer<String, DeviceFault> producer = new KafkaProducer<>(props, new StringSerializer(),
                Topics.DEVICE_FAULTS.valueSerde().serializer())) {
            long now = System.currentTimeMillis();
            for (int i = 0; i < 3; i++) { // the RFC's default policy: 3 faults within 24 h isolate
                DeviceFault fault = new DeviceFault(Meta.of("test", Instant.now()), cluster.id(), "node-7", "npu-3",
                        "0x80E18402", Optional.of("L2"), Optional.empty(), now + i * 1000L);
                producer.send(new ProducerRecord<>(Topics.DEVICE_FAULTS.name(), fault.topicKey(), fault)).get();
            }
        }
        var configMaps = falcon.fleet().kubernetesClient(cluster.project(), cluster.location(), cluster.name())
                .configMaps().inNamespace("cluster-system").withName("clusterd-manual-info-cm");
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        String node = null;
        while (Instant.now().isBefore(deadline) && node == null) {
            var cm = configMaps.get();
            node = cm == null || cm.getData() == null ? null : cm.getData().get("node-7");
            Thread.sleep(200);
        }
        assertThat(node).as("node-7 in clusterd-manual-info-cm").isNotNull()
                .contains("\"Total\":[\"npu-3\"]").contains("ManuallySeparateNPU").contains("0x80E18402");
    }

    private static JobBoard.JobView awaitTerminal(Connection connection, String jobId) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
        Optional<JobBoard.JobView> last = Optional.empty();
        while (Instant.now().isBefore(deadline)) {
            last = JobBoard.find(connection, jobId);
            if (last.isPresent() && last.get().isTerminal()) {
                return last.get();
            }
            Thread.sleep(200);
        }
        throw new AssertionError(jobId + " did not finish; last seen: " + last.map(JobBoard.JobView::headline));
    }
}
