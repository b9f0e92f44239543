package io.falcon.testkit.kafka;

import io.falcon.events.Topic;
import io.falcon.events.security.KafkaConnection;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes to one topic with the catalog topic's serdes, each send acknowledged by the broker before it returns, so
 * that what a test sent is on the topic when it goes on to wait for the consequences.
 */
public final class TopicProducer<K, V> implements AutoCloseable {
    private final Producer<byte[], byte[]> producer;
    private final Topic<K, V> topic;
    private final String name;

    TopicProducer(Producer<byte[], byte[]> producer, Topic<K, V> topic, String name) {
        this.producer = producer;
        this.topic = topic;
        this.name = name;
    }

    /** Writes to the catalog topic. */
    public static <K, V> TopicProducer<K, V> to(String bootstrapServers, Topic<K, V> topic) {
        return to(bootstrapServers, topic, topic.name());
    }

    /** Writes to a topic of another name with the catalog topic's serdes (a test's own copy of the topic). */
    public static <K, V> TopicProducer<K, V> to(String bootstrapServers, Topic<K, V> topic, String name) {
        return to(KafkaConnection.plaintext(bootstrapServers), topic, name);
    }

    /** Writes to the catalog topic over a connection that may be secured (TLS, SASL). */
    public static <K, V> TopicProducer<K, V> to(KafkaConnection kafka, Topic<K, V> topic) {
        return to(kafka, topic, topic.name());
    }

    /** Writes to a topic of another name over a connection that may be secured. */
    public static <K, V> TopicProducer<K, V> to(KafkaConnection kafka, Topic<K, V> topic, String name) {
        return new TopicProducer<>(
                new KafkaProducer<>(
                        kafka.with(Map.of(ProducerConfig.ACKS_CONFIG, "all")),
                        new ByteArraySerializer(),
                        new ByteArraySerializer()),
                topic,
                name);
    }

    public RecordMetadata send(K key, V value) {
        return sendBytes(key, topic.valueSerde().serializer().serialize(name, value));
    }

    /** Bytes as they are, e.g. a payload no consumer can decode. */
    public RecordMetadata sendRaw(K key, byte[] payload) {
        return sendBytes(key, payload);
    }

    /** A record without a value: on a compacted topic, "this key has no state any more". */
    public RecordMetadata tombstone(K key) {
        return sendBytes(key, null);
    }

    private RecordMetadata sendBytes(K key, byte[] payload) {
        try {
            return producer.send(new ProducerRecord<>(
                            name, topic.keySerde().serializer().serialize(name, key), payload))
                    .get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending to " + name, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the broker refused a record for " + name, e.getCause());
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
