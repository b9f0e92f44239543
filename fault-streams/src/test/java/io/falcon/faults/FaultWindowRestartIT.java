package io.falcon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.SharedInfra;
import io.falcon.events.Meta;
import io.falcon.events.TopicProvisioner;
import io.falcon.events.Topics;
import io.falcon.events.config.FaultStreamsKeys;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.testkit.kafka.TopicProducer;
import io.falcon.testkit.kafka.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * The job window keeps its held faults decoded in memory; the changelogged store is the durable copy: an instance
 * that lost its local state rebuilds them and decides the window after a restart.
 */
class FaultWindowRestartIT {
    @Test
    void faultsHeldInTheJobWindowSurviveARestartFromTheChangelog() throws Exception {
        String bootstrap = SharedInfra.kafka().bootstrapServers();
        TopicProvisioner.ensureAll(bootstrap, 3, (short) 1);
        String appId = SharedInfra.uniqueName("faults-held");
        String cluster = appId + "-c1";
        Path stateDir = Files.createTempDirectory("faults-held");
        Map<String, String> settings = Map.of(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(),
                bootstrap,
                SharedKeys.KAFKA_REPLICATION_FACTOR.key(),
                "1",
                FaultStreamsKeys.APPLICATION_ID.key(),
                appId,
                FaultStreamsKeys.STATE_DIR.key(),
                stateDir.toString(),
                FaultStreamsKeys.SESSION_TIMEOUT.key(),
                "6s",
                FaultStreamsKeys.JOB_WINDOW.key(),
                "15s",
                FaultStreamsKeys.GRACE.key(),
                "1s");
        List<FaultVerdict> verdicts = new ArrayList<>();
        try (TopicProducer<String, DeviceFault> producer = TopicProducer.to(bootstrap, Topics.DEVICE_FAULTS);
                TopicReader<String, FaultVerdict> reader =
                        TopicReader.fromBeginning(bootstrap, Topics.FAULT_VERDICTS)) {
            long now = System.currentTimeMillis();
            try (FaultStreamsApp app = new FaultStreamsApp(FaultStreamsConfig.from(settings)).start()) {
                send(producer, jobFault(cluster, "npu-0", now));
                send(producer, jobFault(cluster, "npu-1", now + 1000));
                // consumed and committed (held, not decided: the window is 15 s) before the instance goes
                Thread.sleep(5000);
            }
            try (var paths = Files.walk(stateDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            try (FaultStreamsApp app = new FaultStreamsApp(FaultStreamsConfig.from(settings)).start()) {
                verdicts.addAll(reader.awaitMatching(
                        "2 verdicts for " + cluster,
                        Duration.ofSeconds(60),
                        verdict -> verdict.clusterId().equals(cluster),
                        2));
            }
        }
        assertThat(verdicts).extracting(FaultVerdict::outcome).containsOnly(FaultVerdict.Outcome.SOFTWARE_FAULT);
    }

    @Test
    void aLatePeerAfterARestartIsJudgedByTheDecidedRoundsRestoredFromTheChangelog() throws Exception {
        String bootstrap = SharedInfra.kafka().bootstrapServers();
        TopicProvisioner.ensureAll(bootstrap, 3, (short) 1);
        String appId = SharedInfra.uniqueName("faults-rounds");
        String cluster = appId + "-c1";
        Path stateDir = Files.createTempDirectory("faults-rounds");
        Map<String, String> settings = Map.of(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(),
                bootstrap,
                SharedKeys.KAFKA_REPLICATION_FACTOR.key(),
                "1",
                FaultStreamsKeys.APPLICATION_ID.key(),
                appId,
                FaultStreamsKeys.STATE_DIR.key(),
                stateDir.toString(),
                FaultStreamsKeys.SESSION_TIMEOUT.key(),
                "6s",
                FaultStreamsKeys.JOB_WINDOW.key(),
                "5s",
                FaultStreamsKeys.GRACE.key(),
                "1s");
        List<FaultVerdict> verdicts = new ArrayList<>();
        try (TopicProducer<String, DeviceFault> producer = TopicProducer.to(bootstrap, Topics.DEVICE_FAULTS);
                TopicReader<String, FaultVerdict> reader =
                        TopicReader.fromBeginning(bootstrap, Topics.FAULT_VERDICTS)) {
            long now = System.currentTimeMillis();
            try (FaultStreamsApp app = new FaultStreamsApp(FaultStreamsConfig.from(settings)).start()) {
                send(producer, jobFault(cluster, "npu-0", now));
                send(producer, jobFault(cluster, "npu-1", now + 1000));
                // decided (a software round) and committed before the instance goes
                reader.awaitMatching(
                        "the round of " + cluster,
                        Duration.ofSeconds(60),
                        verdict -> verdict.clusterId().equals(cluster),
                        2);
            }
            try (var paths = Files.walk(stateDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            try (FaultStreamsApp app = new FaultStreamsApp(FaultStreamsConfig.from(settings)).start()) {
                // a peer of that round that arrives now, after the restart (within the allowed lateness)
                send(producer, jobFault(cluster, "npu-2", now + 2000));
                verdicts.addAll(reader.awaitMatching(
                        "the round's and the late peer's verdicts",
                        Duration.ofSeconds(60),
                        verdict -> verdict.clusterId().equals(cluster),
                        3));
            }
        }
        assertThat(verdicts)
                .extracting(FaultVerdict::deviceName, FaultVerdict::outcome)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("npu-0", FaultVerdict.Outcome.SOFTWARE_FAULT),
                        org.assertj.core.groups.Tuple.tuple("npu-1", FaultVerdict.Outcome.SOFTWARE_FAULT),
                        org.assertj.core.groups.Tuple.tuple("npu-2", FaultVerdict.Outcome.SOFTWARE_FAULT));
    }

    /**
     * Earlier versions kept a job's decided rounds of every code in one value under the job's key; a changelog
     * written by them is read, each code's rounds kept under their own key from then on, and the job's key deleted.
     */
    @Test
    void decidedRoundsWrittenOneValuePerJobByEarlierVersionsAreReadAndKeptPerCode() throws Exception {
        String bootstrap = SharedInfra.kafka().bootstrapServers();
        TopicProvisioner.ensureAll(bootstrap, 3, (short) 1);
        String appId = SharedInfra.uniqueName("faults-layout");
        String cluster = appId + "-c1";
        String job = cluster + "-job";
        Path stateDir = Files.createTempDirectory("faults-layout");
        Map<String, String> settings = Map.of(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(),
                bootstrap,
                SharedKeys.KAFKA_REPLICATION_FACTOR.key(),
                "1",
                FaultStreamsKeys.APPLICATION_ID.key(),
                appId,
                FaultStreamsKeys.STATE_DIR.key(),
                stateDir.toString(),
                FaultStreamsKeys.SESSION_TIMEOUT.key(),
                "6s",
                FaultStreamsKeys.JOB_WINDOW.key(),
                "5s",
                FaultStreamsKeys.GRACE.key(),
                "1s");
        long now = System.currentTimeMillis();
        String changelog = appId + "-fault-window-rounds-changelog";
        String jobKey = cluster + "\u0000" + job;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            int partitions = admin.describeTopics(List.of(Topics.DEVICE_FAULTS.name()))
                    .allTopicNames()
                    .get()
                    .get(Topics.DEVICE_FAULTS.name())
                    .partitions()
                    .size();
            admin.createTopics(List.of(new NewTopic(changelog, partitions, (short) 1)
                            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
                    .all()
                    .get();
            // the task of the cluster's partition restores it: the partition its faults are produced to
            int partition = Utils.toPositive(Utils.murmur2(cluster.getBytes(StandardCharsets.UTF_8))) % partitions;
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                    Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                    new StringSerializer(),
                    new ByteArraySerializer())) {
                // a software round of code A (npu-0, then npu-1) and a counted round of code B (npu-5 alone)
                producer.send(new ProducerRecord<>(
                                changelog,
                                partition,
                                jobKey,
                                earlierRounds(
                                        new Object[] {"A", now, "node-1/npu-0", now + 1000, "node-1/npu-1"},
                                        new Object[] {"B", now, "node-1/npu-5", Long.MAX_VALUE, ""})))
                        .get();
            }
        }
        List<FaultVerdict> verdicts = new ArrayList<>();
        try (TopicProducer<String, DeviceFault> producer = TopicProducer.to(bootstrap, Topics.DEVICE_FAULTS);
                TopicReader<String, FaultVerdict> reader = TopicReader.fromBeginning(bootstrap, Topics.FAULT_VERDICTS);
                FaultStreamsApp app = new FaultStreamsApp(FaultStreamsConfig.from(settings)).start()) {
            // late faults of both rounds, on other devices: judged by the rounds restored
            send(producer, jobFault(cluster, "npu-2", "A", now + 2000));
            send(producer, jobFault(cluster, "npu-6", "B", now + 500));
            verdicts.addAll(reader.awaitMatching(
                    "the late faults' verdicts",
                    Duration.ofSeconds(60),
                    v -> v.clusterId().equals(cluster),
                    2));
        }
        assertThat(verdicts)
                .extracting(FaultVerdict::deviceName, FaultVerdict::outcome)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("npu-2", FaultVerdict.Outcome.SOFTWARE_FAULT),
                        org.assertj.core.groups.Tuple.tuple("npu-6", FaultVerdict.Outcome.SOFTWARE_FAULT));

        Map<String, byte[]> last = new java.util.HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed",
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            var topicPartitions = consumer.partitionsFor(changelog).stream()
                    .map(info -> new org.apache.kafka.common.TopicPartition(changelog, info.partition()))
                    .toList();
            consumer.assign(topicPartitions);
            consumer.seekToBeginning(topicPartitions);
            Map<org.apache.kafka.common.TopicPartition, Long> ends = consumer.endOffsets(topicPartitions);
            long deadline = System.currentTimeMillis() + 30_000;
            while (topicPartitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))
                    && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> last.put(r.key(), r.value()));
            }
        }
        assertThat(last).containsKeys(jobKey, jobKey + "\u0000A", jobKey + "\u0000B");
        assertThat(last.get(jobKey))
                .as("the job's key of the earlier layout is deleted")
                .isNull();
        assertThat(last.get(jobKey + "\u0000A")).isNotNull();
    }

    /** Decided rounds as earlier versions encoded them (format byte 5), each {code, first, device, other, device}. */
    private static byte[] earlierRounds(Object[]... rounds) throws java.io.IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
        out.writeByte(5);
        out.writeInt(rounds.length);
        for (Object[] round : rounds) {
            out.writeUTF((String) round[0]);
            out.writeLong((Long) round[1]);
            out.writeUTF((String) round[2]);
            out.writeLong((Long) round[3]);
            out.writeUTF((String) round[4]);
        }
        return bytes.toByteArray();
    }

    private static DeviceFault jobFault(String cluster, String device, long receivedMs) {
        return jobFault(cluster, device, "0x80E18402", receivedMs);
    }

    private static DeviceFault jobFault(String cluster, String device, String code, long receivedMs) {
        return new DeviceFault(
                Meta.of("test", Instant.ofEpochMilli(receivedMs)),
                cluster,
                "node-1",
                device,
                code,
                Optional.of("L2"),
                Optional.of(cluster + "-job"),
                receivedMs);
    }

    private static void send(TopicProducer<String, DeviceFault> producer, DeviceFault fault) {
        producer.send(fault.topicKey(), fault);
    }
}
