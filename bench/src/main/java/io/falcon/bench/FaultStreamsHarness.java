package io.falcon.bench;

import io.falcon.embedded.EmbeddedKafka;
import io.falcon.events.Meta;
import io.falcon.events.TopicProvisioner;
import io.falcon.events.Topics;
import io.falcon.events.config.FaultStreamsKeys;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.faults.FaultStreamsApp;
import io.falcon.faults.FaultStreamsConfig;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * fault-streams throughput on the real broker with RocksDB stores and exactly-once: N faults without a job id
 * (counted directly) over 10,000 devices of 4 clusters, produced at once; time until every verdict is out.
 * Usage: FaultStreamsHarness [faults, default 50000]
 */
public final class FaultStreamsHarness {
    private FaultStreamsHarness() {}

    public static void main(String[] args) throws Exception {
        int faults = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        try (EmbeddedKafka kafka = EmbeddedKafka.launch()) {
            TopicProvisioner.ensureAll(kafka.bootstrapServers(), 3, (short) 1);
            FaultStreamsConfig config = FaultStreamsConfig.from(Map.of(
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), kafka.bootstrapServers(),
                    SharedKeys.KAFKA_REPLICATION_FACTOR.key(), "1",
                    FaultStreamsKeys.STATE_DIR.key(),
                            Files.createTempDirectory("fault-bench").toString()));
            Properties producerProps = new Properties();
            producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 10);
            Properties consumerProps = new Properties();
            consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, "bench");
            consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            try (FaultStreamsApp app = new FaultStreamsApp(config).start();
                    KafkaProducer<String, DeviceFault> producer = new KafkaProducer<>(
                            producerProps,
                            new StringSerializer(),
                            Topics.DEVICE_FAULTS.valueSerde().serializer());
                    KafkaConsumer<String, FaultVerdict> verdicts = new KafkaConsumer<>(
                            consumerProps,
                            new StringDeserializer(),
                            Topics.FAULT_VERDICTS.valueSerde().deserializer())) {
                verdicts.subscribe(List.of(Topics.FAULT_VERDICTS.name()));
                Random random = new Random(42);
                long base = System.currentTimeMillis();
                long start = System.nanoTime();
                for (int i = 0; i < faults; i++) {
                    int device = random.nextInt(10_000);
                    DeviceFault fault = new DeviceFault(
                            Meta.of("bench", Instant.now()),
                            "cluster-" + device % 4,
                            "node-" + device / 8,
                            "npu-" + device % 8,
                            "0x" + Integer.toHexString(random.nextInt(16)),
                            Optional.of("L2"),
                            Optional.empty(),
                            base + i);
                    producer.send(new ProducerRecord<>(Topics.DEVICE_FAULTS.name(), fault.topicKey(), fault));
                }
                producer.flush();
                long received = 0;
                Instant deadline = Instant.now().plus(Duration.ofMinutes(5));
                while (received < faults && Instant.now().isBefore(deadline)) {
                    received += verdicts.poll(Duration.ofMillis(200)).count();
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf(
                        "fault-streams (real broker, RocksDB, exactly-once): %d faults -> %d verdicts in"
                                + " %.1fs = %.0f faults/s%n",
                        faults, received, seconds, received / seconds);
            }
        }
    }
}
