package io.falcon.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.testkit.Await;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Test
    void producesAndConsumesARecord() throws Exception {
        EmbeddedKafka kafka = SharedInfra.kafka();
        String topic = SharedInfra.uniqueName("plain");
        kafka.createTopics(topic);

        try (KafkaProducer<String, String> producer = producer(kafka, Map.of())) {
            producer.send(new ProducerRecord<>(topic, "job-1", "queued")).get();
        }

        assertThat(consumeAll(kafka, topic, "read_uncommitted", 1))
                .extracting(ConsumerRecord::key, ConsumerRecord::value)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("job-1", "queued"));
    }

    /**
     * lz4 (cdc-ingest's producers compress with it) through the lz4-java on the class path: the producer compresses,
     * the broker compresses what came uncompressed to a topic whose compression.type is lz4, the consumer decompresses
     * both. Without a working lz4-java on the class path the send or the read fails.
     */
    @Test
    void lz4CompressedBatchesRoundTrip() throws Exception {
        EmbeddedKafka kafka = SharedInfra.kafka();
        String topic = SharedInfra.uniqueName("lz4");
        kafka.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("compression.type", "lz4"))));
        // repetitive values so that a batch really compresses
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            values.add("job-" + i + " queued on pool tpu-v5e-" + (i % 4) + " ".repeat(64));
        }
        try (KafkaProducer<String, String> compressing = producer(
                        kafka,
                        Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4", ProducerConfig.LINGER_MS_CONFIG, 20));
                KafkaProducer<String, String> plain = producer(kafka, Map.of())) {
            for (int i = 0; i < values.size(); i++) {
                (i % 2 == 0 ? compressing : plain).send(new ProducerRecord<>(topic, "k" + i, values.get(i)));
            }
            compressing.flush();
            plain.flush();
        }

        assertThat(consumeAll(kafka, topic, "read_uncommitted", values.size()))
                .extracting(ConsumerRecord::value)
                .containsExactlyInAnyOrderElementsOf(values);
    }

    @Test
    void readCommittedConsumerSeesCommittedTransactionsOnly() throws Exception {
        EmbeddedKafka kafka = SharedInfra.kafka();
        String topic = SharedInfra.uniqueName("tx");
        kafka.createTopics(topic);

        try (KafkaProducer<String, String> producer = producer(
                kafka,
                Map.of(
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        "true",
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        SharedInfra.uniqueName("txid")))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "aborted"));
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "committed"));
            producer.commitTransaction();
        }

        // Two data records plus two transaction markers are in the log; read_committed must see only one.
        List<ConsumerRecord<String, String>> records = consumeAll(kafka, topic, "read_committed", 1);
        assertThat(records).extracting(ConsumerRecord::value).containsExactly("committed");
    }

    @Test
    void restartOnTheSameLogDirKeepsTopicAndRecord(@TempDir Path logDir) throws Exception {
        String topic = "survives-restart";
        try (EmbeddedKafka kafka = EmbeddedKafka.launch(logDir)) {
            kafka.createTopics(3, topic);
            try (KafkaProducer<String, String> producer = producer(kafka, Map.of())) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "before restart"))
                        .get();
            }
        }

        try (EmbeddedKafka restarted = EmbeddedKafka.launch(logDir)) {
            assertThat(restarted.listTopics()).contains(topic);
            assertThat(consumeAll(restarted, topic, "read_committed", 1))
                    .extracting(ConsumerRecord::value)
                    .containsExactly("before restart");
        }
    }

    @Test
    void failsFastWhenTheGivenPortIsInUse(@TempDir Path logDir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThatThrownBy(() -> EmbeddedKafka.launch(logDir, taken.getLocalPort()))
                    .hasMessageContaining("port " + taken.getLocalPort())
                    .hasMessageContaining("already in use");
        }
    }

    private static KafkaProducer<String, String> producer(EmbeddedKafka kafka, Map<String, Object> extra) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.putAll(extra);
        return new KafkaProducer<>(props);
    }

    /** Reads from the beginning until {@code expected} records arrived, then a little longer to catch extras. */
    private static List<ConsumerRecord<String, String>> consumeAll(
            EmbeddedKafka kafka, String topic, String isolationLevel, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, SharedInfra.uniqueName("group"));
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            Await.until(
                    expected + " records of " + topic,
                    TIMEOUT,
                    () -> {
                        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                        return records.size() >= expected;
                    },
                    () -> "read " + records);
            consumer.poll(Duration.ofMillis(300)).forEach(records::add);
        }
        return records;
    }
}
