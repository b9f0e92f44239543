package io.falcon.faults;

import static io.falcon.testkit.builders.DeviceFaultBuilder.deviceFault;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.SharedInfra;
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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Fault counts live in changelogged stores: an instance that lost its local state still isolates on time. */
class FaultStreamsRestartIT {
    @Test
    void countsSurviveARestartFromTheChangelog() throws Exception {
        String bootstrap = SharedInfra.kafka().bootstrapServers();
        TopicProvisioner.ensureAll(bootstrap, 3, (short) 1);
        String appId = SharedInfra.uniqueName("faults");
        String cluster = appId + "-c1";
        Path stateDir = Files.createTempDirectory("faults-restart");
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
                "6s");
        List<FaultVerdict> verdicts;
        try (TopicProducer<String, DeviceFault> producer = TopicProducer.to(bootstrap, Topics.DEVICE_FAULTS);
                TopicReader<String, FaultVerdict> reader =
                        TopicReader.fromBeginning(bootstrap, Topics.FAULT_VERDICTS)) {
            long now = System.currentTimeMillis();
            try (FaultStreamsApp app = new FaultStreamsApp(FaultStreamsConfig.from(settings)).start()) {
                send(producer, fault(cluster, now));
                send(producer, fault(cluster, now + 1000));
                assertThat(awaitVerdicts(reader, cluster, 2))
                        .as("verdicts for %s", cluster)
                        .hasSize(2);
            }
            try (var paths = Files.walk(stateDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            try (FaultStreamsApp app = new FaultStreamsApp(FaultStreamsConfig.from(settings)).start()) {
                send(producer, fault(cluster, now + 2000));
                verdicts = awaitVerdicts(reader, cluster, 3);
                assertThat(verdicts).as("verdicts for %s", cluster).hasSize(3);
            }
        }
        // the RFC's default policy isolates at the third fault within 24 h: the first two were counted before
        // the restart and must still count after it
        assertThat(verdicts)
                .extracting(FaultVerdict::outcome)
                .containsExactly(
                        FaultVerdict.Outcome.COUNTED, FaultVerdict.Outcome.COUNTED, FaultVerdict.Outcome.ISOLATED);
    }

    private static DeviceFault fault(String cluster, long receivedMs) {
        return deviceFault(cluster, "node-1", "npu-0")
                .code("0x80E18402")
                .level("L2")
                .receivedAt(receivedMs)
                .build();
    }

    private static void send(TopicProducer<String, DeviceFault> producer, DeviceFault fault) {
        producer.send(fault.topicKey(), fault);
    }

    private static List<FaultVerdict> awaitVerdicts(
            TopicReader<String, FaultVerdict> reader, String cluster, int count) {
        return reader.awaitMatching(
                count + " verdicts for " + cluster,
                Duration.ofSeconds(60),
                verdict -> verdict.clusterId().equals(cluster),
                count);
    }
}
