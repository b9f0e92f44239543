package io.falcon.testkit.kafka;

import io.falcon.events.Topic;
import io.falcon.events.security.KafkaConnection;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads one topic from the beginning of every partition (no consumer group, committed transactions only) with the
 * catalog topic's serdes, keeping every record read so far, and waits for what a test expects to arrive.
 *
 * <p>A record the topic's serde cannot decode fails the wait that read it (a component wrote something its readers
 * cannot read), unless the reader {@link #skippingUndecodable() skips} them: a topic every test of the JVM shares
 * may carry another test's deliberately broken records.
 */
public final class TopicReader<K, V> implements AutoCloseable {
    static final Duration POLL = Duration.ofMillis(100);
    private static final Duration METADATA_WAIT = Duration.ofSeconds(30);
    private static final int STATE_RECORDS = 10;

    private final Consumer<byte[], byte[]> consumer;
    private final Topic<K, V> topic;
    private final String name;
    private final List<ConsumerRecord<K, V>> records = new ArrayList<>();
    private int undecodable;
    private String lastDecodeError = "";
    private boolean skipUndecodable;

    TopicReader(Consumer<byte[], byte[]> consumer, Topic<K, V> topic, String name) {
        this.consumer = consumer;
        this.topic = topic;
        this.name = name;
        List<TopicPartition> partitions = Await.present(
                "the partitions of " + name,
                METADATA_WAIT,
                () -> {
                    List<PartitionInfo> infos = consumer.partitionsFor(name, Duration.ofSeconds(5));
                    return infos == null || infos.isEmpty()
                            ? Optional.empty()
                            : Optional.of(infos.stream()
                                    .map(i -> new TopicPartition(name, i.partition()))
                                    .toList());
                },
                () -> "no partitions yet");
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Reads the catalog topic. */
    public static <K, V> TopicReader<K, V> fromBeginning(String bootstrapServers, Topic<K, V> topic) {
        return fromBeginning(bootstrapServers, topic, topic.name());
    }

    /** Reads a topic of another name with the catalog topic's serdes (a test's own copy of the topic). */
    public static <K, V> TopicReader<K, V> fromBeginning(String bootstrapServers, Topic<K, V> topic, String name) {
        return fromBeginning(KafkaConnection.plaintext(bootstrapServers), topic, name);
    }

    /** Reads the catalog topic over a connection that may be secured (TLS, SASL). */
    public static <K, V> TopicReader<K, V> fromBeginning(KafkaConnection kafka, Topic<K, V> topic) {
        return fromBeginning(kafka, topic, topic.name());
    }

    /** Reads a topic of another name over a connection that may be secured. */
    public static <K, V> TopicReader<K, V> fromBeginning(KafkaConnection kafka, Topic<K, V> topic, String name) {
        return new TopicReader<>(
                new KafkaConsumer<>(
                        kafka.with(Map.of(
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_committed",
                                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                                false)),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer()),
                topic,
                name);
    }

    /** Counts and skips records that cannot be decoded instead of failing. */
    public TopicReader<K, V> skippingUndecodable() {
        skipUndecodable = true;
        return this;
    }

    /** Polls once and returns the records this poll added. */
    public List<ConsumerRecord<K, V>> poll() {
        List<ConsumerRecord<K, V>> added = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> raw : consumer.poll(POLL)) {
            try {
                K key = raw.key() == null
                        ? null
                        : topic.keySerde().deserializer().deserialize(name, raw.key());
                V value = raw.value() == null
                        ? null
                        : topic.valueSerde().deserializer().deserialize(name, raw.value());
                added.add(new ConsumerRecord<>(raw.topic(), raw.partition(), raw.offset(), key, value));
            } catch (RuntimeException e) {
                undecodable++;
                lastDecodeError = e.toString();
            }
        }
        records.addAll(added);
        return added;
    }

    /** Every record read so far, in the order read (ordered within a partition). */
    public List<ConsumerRecord<K, V>> records() {
        return List.copyOf(records);
    }

    /** The values read so far; a tombstone's value is left out. */
    public List<V> values() {
        return records.stream()
                .map(ConsumerRecord::value)
                .filter(v -> v != null)
                .toList();
    }

    /** How many records were read so far: a mark for {@link #awaitValueAfter}. */
    public int size() {
        return records.size();
    }

    /** Reads until the values read so far satisfy the condition, and returns them. */
    public List<V> awaitValues(String what, Duration timeout, Predicate<List<V>> condition) {
        return decodedAll(Await.present(
                what,
                timeout,
                () -> {
                    poll();
                    List<V> values = values();
                    return condition.test(values) ? Optional.of(values) : Optional.empty();
                },
                this::describe));
    }

    /** Reads until a record matches, and returns the first one that does (among all read since the beginning). */
    public ConsumerRecord<K, V> awaitRecord(String what, Duration timeout, Predicate<ConsumerRecord<K, V>> match) {
        return decodedAll(Await.present(
                what,
                timeout,
                () -> {
                    poll();
                    return records.stream()
                            .filter(r -> r.value() != null && match.test(r))
                            .findFirst();
                },
                this::describe));
    }

    /** Reads until a value matches, and returns the first one that does. */
    public V awaitValue(String what, Duration timeout, Predicate<V> match) {
        return awaitValueAfter(0, what, timeout, match);
    }

    /**
     * Reads until a value at or after the mark (a {@link #size()} taken earlier) matches, and returns the first one
     * that does: for "the next status of this kind" when earlier ones of the same kind were read already.
     */
    public V awaitValueAfter(int mark, String what, Duration timeout, Predicate<V> match) {
        return decodedAll(Await.present(
                what,
                timeout,
                () -> {
                    poll();
                    return records.subList(Math.min(mark, records.size()), records.size()).stream()
                            .map(ConsumerRecord::value)
                            .filter(v -> v != null && match.test(v))
                            .findFirst();
                },
                this::describe));
    }

    /** Reads until at least count records match, and returns every matching record read by then. */
    public List<ConsumerRecord<K, V>> awaitRecords(
            String what, Duration timeout, Predicate<ConsumerRecord<K, V>> match, int count) {
        return decodedAll(Await.present(
                what,
                timeout,
                () -> {
                    poll();
                    List<ConsumerRecord<K, V>> matching = records.stream()
                            .filter(r -> r.value() != null && match.test(r))
                            .toList();
                    return matching.size() >= count ? Optional.of(matching) : Optional.empty();
                },
                this::describe));
    }

    /** Reads until at least count values match, and returns every matching value read by then. */
    public List<V> awaitMatching(String what, Duration timeout, Predicate<V> match, int count) {
        return awaitRecords(what, timeout, r -> match.test(r.value()), count).stream()
                .map(ConsumerRecord::value)
                .toList();
    }

    /**
     * Keeps reading for the whole period and returns every value read: for "nothing more arrives", which no
     * condition can express.
     */
    public List<V> readFor(Duration period) {
        long end = System.nanoTime() + period.toNanos();
        do {
            poll();
        } while (System.nanoTime() < end);
        return decodedAll(values());
    }

    private <T> T decodedAll(T result) {
        if (undecodable > 0 && !skipUndecodable) {
            throw new AssertionError(undecodable + " records of " + name + " could not be decoded with the catalog's "
                    + "serde, the last: " + lastDecodeError);
        }
        return result;
    }

    private String describe() {
        int from = Math.max(0, records.size() - STATE_RECORDS);
        return "read " + records.size() + " records of " + name
                + (undecodable == 0 ? "" : " (and " + undecodable + " undecodable, last: " + lastDecodeError + ")")
                + (records.isEmpty()
                        ? ""
                        : "; the last " + (records.size() - from) + ": "
                                + records.subList(from, records.size()).stream()
                                        .map(r -> r.key() + "=" + r.value())
                                        .toList());
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
