package io.falcon.executor.kafka;

import io.falcon.events.DeadLetter;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.ops.Checks;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command loop: poll EXECUTOR_COMMANDS; for each command, hand it to its handler, flush the events it produced,
 * then commit its offset before the next command is carried out. Committing each command before acting on the next
 * means a restart redelivers at most the one command in hand, never one that a later command already undid (an
 * EnsureJob replayed after its EnsureJobDeleted would create the Job a second time). An undecodable command (or
 * one whose handler throws) goes to DEAD_LETTER with the reason; nothing ends the loop but {@link #stop()}. If
 * publishing failed, the command is not committed but read again.
 */
public final class CommandConsumer implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(CommandConsumer.class);

    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final KafkaEventSink sink;
    private final java.util.function.Consumer<ExecutorCommand> dispatcher;
    private final Clock clock;
    private final String producerName;
    private volatile boolean running = true;
    private final Checks.AssignmentTracker assignment = new Checks.AssignmentTracker();
    private java.util.function.BiConsumer<String, String> deadLettered = (topic, stage) -> {};

    public CommandConsumer(
            Consumer<byte[], byte[]> consumer,
            Producer<byte[], byte[]> producer,
            KafkaEventSink sink,
            java.util.function.Consumer<ExecutorCommand> dispatcher,
            Clock clock,
            String producerName) {
        this.consumer = consumer;
        this.producer = producer;
        this.sink = sink;
        this.dispatcher = dispatcher;
        this.clock = clock;
        this.producerName = producerName;
    }

    /** Told of every dead letter (source topic, stage "decode" or "process"), for the metric. */
    public CommandConsumer onDeadLetter(java.util.function.BiConsumer<String, String> listener) {
        this.deadLettered = listener;
        return this;
    }

    /** The command partitions this instance holds, for readiness. */
    public Checks.AssignmentTracker assignment() {
        return assignment;
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(List.of(Topics.EXECUTOR_COMMANDS.name()), assignment);
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                if (!records.isEmpty()) {
                    runBatch(records);
                }
            }
        } catch (WakeupException e) {
            if (running) {
                throw e;
            }
        } catch (RuntimeException e) {
            log.error("command loop stopped by an unexpected error", e);
            throw e;
        } finally {
            try {
                io.falcon.events.GroupMembership.leaveAndClose(consumer, Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                log.warn("closing the command consumer failed", e);
            }
        }
    }

    /**
     * Carries out the batch one command at a time. If a command's events cannot be published, or its commit is
     * refused (the partition was taken away in a rebalance), the rest of the batch is not carried out: every
     * partition of the batch is rewound to its first command not yet committed, and read again.
     */
    private void runBatch(ConsumerRecords<byte[], byte[]> records) {
        Map<TopicPartition, Long> unfinished = new java.util.LinkedHashMap<>();
        for (TopicPartition partition : records.partitions()) {
            unfinished.put(partition, records.records(partition).get(0).offset());
        }
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (!running) {
                return; // not committed: the next owner of the partition carries it out
            }
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            handle(record);
            producer.flush();
            Exception sendError = sink.takeError();
            if (sendError != null) {
                log.error(
                        "events of command {}-{}@{} were not all published; reading it again",
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        sendError);
                rewind(unfinished);
                return;
            }
            try {
                consumer.commitSync(Map.of(partition, new OffsetAndMetadata(record.offset() + 1)));
            } catch (org.apache.kafka.clients.consumer.CommitFailedException
                    | org.apache.kafka.common.errors.RebalanceInProgressException e) {
                log.warn(
                        "commit of command {}-{}@{} refused ({}); reading the batch again",
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        e.getMessage());
                rewind(unfinished);
                return;
            }
            unfinished.put(partition, record.offset() + 1);
        }
    }

    private void rewind(Map<TopicPartition, Long> unfinished) {
        unfinished.forEach((partition, offset) -> {
            if (consumer.assignment().contains(partition)) {
                consumer.seek(partition, offset);
            }
        });
    }

    private void handle(ConsumerRecord<byte[], byte[]> record) {
        ExecutorCommand command;
        try {
            command = Topics.EXECUTOR_COMMANDS.valueSerde().deserializer().deserialize(record.topic(), record.value());
            if (command == null) {
                throw new IllegalArgumentException("empty command (tombstone)");
            }
            if (command.cluster() == null || command.cluster().clusterId() == null) {
                throw new IllegalArgumentException("command without a cluster");
            }
        } catch (RuntimeException e) {
            deadLetter(record, "cannot decode executor command: " + e.getMessage(), e);
            deadLettered.accept(record.topic(), "decode");
            return;
        }
        try {
            dispatcher.accept(command);
        } catch (RuntimeException e) {
            log.error("handler of {} for job {} failed", command.getClass().getSimpleName(), command.jobId(), e);
            deadLetter(record, "handling " + command.getClass().getSimpleName() + " failed: " + e.getMessage(), e);
            deadLettered.accept(record.topic(), "process");
        }
    }

    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason, Throwable error) {
        log.warn("dead-lettering {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), reason);
        DeadLetter letter = DeadLetter.of(
                Meta.of(producerName, clock.instant()),
                record.topic(),
                record.partition(),
                record.offset(),
                record.key(),
                record.value(),
                reason,
                error);
        var topic = Topics.DEAD_LETTER;
        String key = record.key() == null ? null : new String(record.key(), java.nio.charset.StandardCharsets.UTF_8);
        producer.send(
                new ProducerRecord<>(
                        topic.name(),
                        topic.keySerde().serializer().serialize(topic.name(), key),
                        topic.valueSerde().serializer().serialize(topic.name(), letter)),
                (m, e) -> {
                    if (e != null) {
                        log.error("dead-lettering failed", e);
                    }
                });
    }

    public void stop() {
        running = false;
        consumer.wakeup();
    }
}
