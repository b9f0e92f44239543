package io.falcon.cli;

import io.falcon.events.Topic;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The CLI's Kafka access: group-less readers (they never move anyone's offsets) and an acks=all writer. */
final class KafkaTopics {
    private KafkaTopics() {}

    /** A consumer of raw bytes assigned to every partition of the topic. */
    static KafkaConsumer<byte[], byte[]> assignAll(Connections connections, String topic) {
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(connections.consumer(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        try {
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, Connections.KAFKA_TIMEOUT);
            if (partitions == null || partitions.isEmpty()) {
                throw CliException.refused("topic " + topic + " does not exist on " + connections.bootstrapServers()
                        + " (create the topics with: falcon topics create)");
            }
            consumer.assign(partitions.stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList());
            return consumer;
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            consumer.close(java.time.Duration.ZERO);
            throw CliException.unreachable("cannot reach Kafka at " + connections.bootstrapServers()
                    + ": no metadata for " + topic + " within " + Connections.KAFKA_TIMEOUT.toSeconds() + "s");
        } catch (RuntimeException e) {
            consumer.close(java.time.Duration.ZERO);
            throw e;
        }
    }

    /** Reads a topic from the beginning to its current end: the last value per key (a tombstone removes it). */
    static <V> Map<String, V> snapshot(Connections connections, Topic<String, V> topic) {
        Map<String, V> latest = new LinkedHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = assignAll(connections, topic.name())) {
            consumer.seekToBeginning(consumer.assignment());
            Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment(), Connections.KAFKA_TIMEOUT);
            long deadline = System.nanoTime() + Connections.KAFKA_TIMEOUT.toNanos() * 3;
            while (!caughtUp(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw CliException.unreachable("cannot read " + topic.name() + " to its end in time");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(java.time.Duration.ofMillis(200))) {
                    String key = record.key() == null
                            ? null
                            : topic.keySerde().deserializer().deserialize(record.topic(), record.key());
                    if (key == null) {
                        continue;
                    }
                    if (record.value() == null) {
                        latest.remove(key);
                    } else {
                        latest.put(key, topic.valueSerde().fromBytes(record.value()));
                    }
                }
            }
        }
        return latest;
    }

    private static boolean caughtUp(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey(), Connections.KAFKA_TIMEOUT) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Writes records and waits for every acknowledgement. */
    static <V> List<RecordMetadata> send(
            Connections connections, Topic<String, V> topic, List<Map.Entry<String, V>> records) {
        try (KafkaProducer<String, V> producer = new KafkaProducer<>(
                connections.producer(),
                topic.keySerde().serializer(),
                topic.valueSerde().serializer())) {
            List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
            for (Map.Entry<String, V> record : records) {
                sent.add(producer.send(new ProducerRecord<>(topic.name(), record.getKey(), record.getValue())));
            }
            List<RecordMetadata> acks = new ArrayList<>();
            for (java.util.concurrent.Future<RecordMetadata> future : sent) {
                acks.add(future.get());
            }
            return acks;
        } catch (ExecutionException e) {
            throw CliException.unreachable("cannot write to " + topic.name() + " on " + connections.bootstrapServers()
                    + ": " + Connections.firstLine(String.valueOf(e.getCause().getMessage())));
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw CliException.unreachable("cannot reach Kafka at " + connections.bootstrapServers() + ": "
                    + Connections.firstLine(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliException.refused("interrupted");
        }
    }

    /**
     * Every value of one key, oldest first: reads only the key's partition (the producer's default partitioner),
     * from its beginning to its current end.
     */
    static <V> List<V> history(Connections connections, Topic<String, V> topic, String key) {
        List<V> values = new ArrayList<>();
        byte[] keyBytes = topic.keySerde().serializer().serialize(topic.name(), key);
        try (KafkaConsumer<byte[], byte[]> consumer = assignAll(connections, topic.name())) {
            int partitions = consumer.assignment().size();
            TopicPartition own = new TopicPartition(
                    topic.name(),
                    org.apache.kafka.common.utils.Utils.toPositive(
                                    org.apache.kafka.common.utils.Utils.murmur2(keyBytes))
                            % partitions);
            consumer.assign(List.of(own));
            consumer.seekToBeginning(List.of(own));
            long end =
                    consumer.endOffsets(List.of(own), Connections.KAFKA_TIMEOUT).get(own);
            long deadline = System.nanoTime() + Connections.KAFKA_TIMEOUT.toNanos() * 3;
            while (consumer.position(own, Connections.KAFKA_TIMEOUT) < end) {
                if (System.nanoTime() > deadline) {
                    throw CliException.unreachable("cannot read " + topic.name() + " to its end in time");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(java.time.Duration.ofMillis(200))) {
                    if (record.value() != null
                            && record.key() != null
                            && java.util.Arrays.equals(record.key(), keyBytes)) {
                        values.add(topic.valueSerde().fromBytes(record.value()));
                    }
                }
            }
        }
        return values;
    }
}
