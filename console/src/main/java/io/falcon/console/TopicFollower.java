package io.falcon.console;

import io.falcon.console.view.ConsoleIndex;
import io.falcon.events.Topic;
import io.falcon.events.Topics;
import io.falcon.events.security.KafkaConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads falcon.task-status, falcon.decisions, falcon.isolation, falcon.fault-verdicts and falcon.executor.events (a
 * reservation's count and use as read, its shortages, work refused or gone through: the fleet's health) from their
 * beginning and then as they grow, into the {@link ConsoleIndex}. Without a consumer group: it commits nothing and needs only READ on
 * the five topics; a restart reads them again (the index is bounded, so memory is too). A record that does not
 * parse is logged and skipped: the console shows what it can. Topics that do not exist yet are looked for again.
 */
public final class TopicFollower implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TopicFollower.class);
    private static final List<Topic<String, ?>> TOPICS = List.of(
            Topics.TASK_STATUS, Topics.DECISIONS, Topics.ISOLATION, Topics.FAULT_VERDICTS, Topics.EXECUTOR_EVENTS);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final ConsoleIndex index;
    private final Thread thread;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private volatile boolean assignedAll;

    public TopicFollower(KafkaConnection kafka, ConsoleIndex index) {
        this.index = index;
        this.consumer = new KafkaConsumer<>(
                kafka.with(Map.of(
                        ConsumerConfig.CLIENT_ID_CONFIG, "falcon-console",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        this.thread = new Thread(this::run, "console-topics");
        this.thread.setDaemon(true);
    }

    public TopicFollower start() {
        thread.start();
        return this;
    }

    /** Whether every one of the five topics is assigned (for readiness). */
    public boolean following() {
        return assignedAll;
    }

    private void run() {
        try {
            while (running.get()) {
                if (!assignedAll) {
                    assign();
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    apply(record);
                }
            }
        } catch (WakeupException e) {
            if (running.get()) {
                throw e;
            }
        } catch (RuntimeException e) {
            LOG.error("the console stopped reading Falcon's topics", e);
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    private void assign() {
        List<TopicPartition> partitions = new ArrayList<>();
        boolean all = true;
        for (Topic<String, ?> topic : TOPICS) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic.name(), Duration.ofSeconds(10));
            if (infos == null || infos.isEmpty()) {
                all = false;
                LOG.info("topic {} does not exist yet; the console looks again", topic.name());
                continue;
            }
            infos.forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
        }
        if (!partitions.equals(List.copyOf(consumer.assignment()))) {
            List<TopicPartition> fresh = partitions.stream()
                    .filter(p -> !consumer.assignment().contains(p))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(fresh);
        }
        assignedAll = all;
        if (!all) {
            sleep();
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void apply(ConsumerRecord<byte[], byte[]> record) {
        String key = record.key() == null ? "" : new String(record.key(), java.nio.charset.StandardCharsets.UTF_8);
        try {
            if (record.topic().equals(Topics.TASK_STATUS.name()) && record.value() != null) {
                index.accept(Topics.TASK_STATUS.valueSerde().fromBytes(record.value()));
            } else if (record.topic().equals(Topics.DECISIONS.name()) && record.value() != null) {
                index.accept(Topics.DECISIONS.valueSerde().fromBytes(record.value()));
            } else if (record.topic().equals(Topics.FAULT_VERDICTS.name()) && record.value() != null) {
                index.accept(Topics.FAULT_VERDICTS.valueSerde().fromBytes(record.value()));
            } else if (record.topic().equals(Topics.EXECUTOR_EVENTS.name()) && record.value() != null) {
                index.accept(Topics.EXECUTOR_EVENTS.valueSerde().fromBytes(record.value()));
            } else if (record.topic().equals(Topics.ISOLATION.name())) {
                index.isolation(
                        key,
                        record.value() == null
                                ? Optional.empty()
                                : Optional.of(Topics.ISOLATION.valueSerde().fromBytes(record.value())));
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "skipped a record the console cannot read: topic={} partition={} offset={} key={}: {}",
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    key,
                    e.toString());
        }
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        consumer.wakeup();
        thread.join(5_000);
    }
}
