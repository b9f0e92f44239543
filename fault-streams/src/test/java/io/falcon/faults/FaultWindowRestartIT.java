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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    private static DeviceFault jobFault(String cluster, String device, long receivedMs) {
        return new DeviceFault(
                Meta.of("test", Instant.ofEpochMilli(receivedMs)),
                cluster,
                "node-1",
                device,
                "0x80E18402",
                Optional.of("L2"),
                Optional.of(cluster + "-job"),
                receivedMs);
    }

    private static void send(TopicProducer<String, DeviceFault> producer, DeviceFault fault) {
        producer.send(fault.topicKey(), fault);
    }
}
