package io.falcon.executor.kafka;

import io.falcon.events.DeadLetter;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.executor.core.CommandBatch;
import io.falcon.ops.Checks;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
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
 * The command loop: poll EXECUTOR_COMMANDS; carry out each partition's commands of the poll in offset order as
 * {@link CommandBatch} plans them, then flush the events they produced and commit the partition's offsets once.
 * A restart redelivers what was not committed, at most one poll's commands of a partition: each is idempotent, and
 * the plan never carries out a creation whose deletion follows in the same batch (and commits such a deletion at
 * once), so a redelivery never re-creates a Job or node pool that a later command already deleted. An undecodable
 * command (or one whose handler throws) goes to DEAD_LETTER with the reason; nothing ends the loop but {@link
 * #stop()}. If publishing failed, or the commit was refused, the uncommitted rest is read again.
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
    private final Checks.AssignmentTracker assignment;
    private java.util.function.BiConsumer<String, String> deadLettered = (topic, stage) -> {};
    /**
     * The clusters whose commands came from each partition this loop holds (commands are keyed by cluster id): the
     * work in memory they started is the partition's, and stops when the partition goes.
     */
    private final Map<TopicPartition, Set<String>> clustersOf = new ConcurrentHashMap<>();

    private volatile java.util.function.Consumer<Set<String>> revoked = clusters -> {};

    /**
     * Carries out the lanes of a segment at once ({@link CommandBatch#lanes}); empty: one after another on this
     * thread. The segment's commit waits for every lane, so nothing it started is committed before it is done.
     */
    private Optional<java.util.concurrent.ExecutorService> laneRunner = Optional.empty();

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
        this.assignment = new Checks.AssignmentTracker(new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                stopWorkOf(partitions, "revoked");
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                stopWorkOf(partitions, "lost");
            }
        });
    }

    /**
     * Told the clusters of the partitions this loop no longer holds, so that the work in memory their commands started
     * (node pools being created or deleted, with their retries) stops at once: the new owner of the partition carries
     * out the scheduler's commands from the last committed offset (and the scheduler re-sends what it still wants),
     * and a creation stepped on here would re-create a pool it deleted.
     */
    public CommandConsumer onRevoked(java.util.function.Consumer<Set<String>> listener) {
        this.revoked = listener;
        return this;
    }

    private void stopWorkOf(Collection<TopicPartition> partitions, String how) {
        Set<String> clusters = new java.util.TreeSet<>();
        for (TopicPartition partition : partitions) {
            Set<String> of = clustersOf.remove(partition);
            if (of != null) {
                clusters.addAll(of);
            }
        }
        if (clusters.isEmpty()) {
            return;
        }
        log.info("command partitions {} {}: stopping the work of clusters {}", partitions, how, clusters);
        try {
            revoked.accept(clusters);
        } catch (RuntimeException e) {
            log.error("stopping the work of clusters {} failed", clusters, e);
        }
    }

    /**
     * Up to this many lanes of a poll's commands are carried out at once (commands of different node pools, Jobs and
     * tasks; one resource's commands stay in order). 1: one command after another, as the design's loop did.
     */
    public CommandConsumer lanes(int lanes) {
        if (lanes > 1) {
            java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
            laneRunner = Optional.of(java.util.concurrent.Executors.newFixedThreadPool(lanes, r -> {
                Thread t = new Thread(r, "falcon-executor-lane-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            }));
        }
        return this;
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
     * Carries out the batch partition by partition. If the events cannot be published, or a commit is refused (the
     * partition was taken away in a rebalance), the rest of the batch is not carried out: every partition of the
     * batch is rewound to its first command not yet committed, and read again.
     */
    private void runBatch(ConsumerRecords<byte[], byte[]> records) {
        Map<TopicPartition, Long> unfinished = new java.util.LinkedHashMap<>();
        for (TopicPartition partition : records.partitions()) {
            unfinished.put(partition, records.records(partition).get(0).offset());
        }
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> own = records.records(partition);
            List<Optional<ExecutorCommand>> commands = new ArrayList<>(own.size());
            for (ConsumerRecord<byte[], byte[]> record : own) {
                Optional<ExecutorCommand> command = decode(record);
                command.ifPresent(c -> clustersOf
                        .computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet())
                        .add(c.cluster().clusterId()));
                commands.add(command);
            }
            List<Integer> segment = new ArrayList<>();
            for (CommandBatch.Step step : CommandBatch.plan(commands)) {
                if (!running) {
                    return; // not committed: the next owner of the partition carries it out
                }
                if (step instanceof CommandBatch.Run run) {
                    segment.add(run.index());
                } else if (step instanceof CommandBatch.Skip skip) {
                    ExecutorCommand skipped = commands.get(skip.index()).orElseThrow();
                    log.info(
                            "skipping {} of job {}: {} follows in the same batch",
                            skipped.getClass().getSimpleName(),
                            skipped.jobId(),
                            commands.get(skip.supersededBy())
                                    .map(c -> c.getClass().getSimpleName())
                                    .orElse(""));
                } else if (step instanceof CommandBatch.Commit commit) {
                    Optional<List<java.util.function.Supplier<Exception>>> lanes = carryOut(own, commands, segment);
                    segment.clear();
                    if (!running) {
                        return;
                    }
                    ConsumerRecord<byte[], byte[]> last = own.get(commit.through());
                    if (lanes.isEmpty() || !publishAndCommit(partition, last, lanes.get())) {
                        rewind(unfinished);
                        return;
                    }
                    unfinished.put(partition, last.offset() + 1);
                }
            }
        }
    }

    /**
     * Carries out the runs of one segment: its lanes at once on the lane runner, else one after another here. Returns
     * how to take the send errors of the lanes' threads once the events are flushed; empty if a lane did not finish
     * (the segment is then read again, as when publishing fails).
     */
    private Optional<List<java.util.function.Supplier<Exception>>> carryOut(
            List<ConsumerRecord<byte[], byte[]>> own, List<Optional<ExecutorCommand>> commands, List<Integer> runs) {
        List<List<Integer>> lanes = CommandBatch.lanes(runs, commands);
        if (laneRunner.isEmpty() || lanes.size() <= 1) {
            for (int index : runs) {
                if (!running) {
                    return Optional.empty();
                }
                commands.get(index).ifPresent(command -> handle(own.get(index), command));
            }
            return Optional.of(List.of());
        }
        List<java.util.concurrent.Future<java.util.function.Supplier<Exception>>> done = new ArrayList<>(lanes.size());
        for (List<Integer> lane : lanes) {
            done.add(laneRunner.get().submit(() -> {
                for (int index : lane) {
                    if (!running) {
                        break;
                    }
                    commands.get(index).ifPresent(command -> handle(own.get(index), command));
                }
                // the sink notes a failed send per sending thread: this lane's, taken after the flush
                return sink.errorsOfThisThread();
            }));
        }
        List<java.util.function.Supplier<Exception>> errors = new ArrayList<>(done.size());
        boolean finished = true;
        for (java.util.concurrent.Future<java.util.function.Supplier<Exception>> lane : done) {
            try {
                errors.add(lane.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                finished = false;
            } catch (java.util.concurrent.ExecutionException e) {
                // handle() dead-letters what throws: a lane fails only on an Error, which the next read retries
                log.error("a lane of commands failed; reading them again", e.getCause());
                finished = false;
            }
        }
        return finished ? Optional.of(errors) : Optional.empty();
    }

    /** Flushes the events produced so far, then commits the partition through {@code last}. */
    private boolean publishAndCommit(
            TopicPartition partition,
            ConsumerRecord<byte[], byte[]> last,
            List<java.util.function.Supplier<Exception>> laneErrors) {
        producer.flush();
        Exception sendError = sink.takeError();
        for (java.util.function.Supplier<Exception> lane : laneErrors) {
            Exception error = lane.get();
            sendError = sendError == null ? error : sendError;
        }
        if (sendError != null) {
            log.error(
                    "events of the commands of {} up to offset {} were not all published; reading them again",
                    partition,
                    last.offset(),
                    sendError);
            return false;
        }
        try {
            consumer.commitSync(Map.of(partition, new OffsetAndMetadata(last.offset() + 1)));
            return true;
        } catch (org.apache.kafka.clients.consumer.CommitFailedException
                | org.apache.kafka.common.errors.RebalanceInProgressException e) {
            log.warn(
                    "commit of the commands of {} up to offset {} refused ({}); reading them again",
                    partition,
                    last.offset(),
                    e.getMessage());
            return false;
        }
    }

    private void rewind(Map<TopicPartition, Long> unfinished) {
        unfinished.forEach((partition, offset) -> {
            if (consumer.assignment().contains(partition)) {
                consumer.seek(partition, offset);
            }
        });
    }

    /** The command of a record; empty (and dead-lettered) if it cannot be decoded. */
    private Optional<ExecutorCommand> decode(ConsumerRecord<byte[], byte[]> record) {
        try {
            ExecutorCommand command =
                    Topics.EXECUTOR_COMMANDS.valueSerde().deserializer().deserialize(record.topic(), record.value());
            if (command == null) {
                throw new IllegalArgumentException("empty command (tombstone)");
            }
            if (command.cluster() == null || command.cluster().clusterId() == null) {
                throw new IllegalArgumentException("command without a cluster");
            }
            return Optional.of(command);
        } catch (RuntimeException e) {
            deadLetter(record, "cannot decode executor command: " + e.getMessage(), e);
            deadLettered.accept(record.topic(), "decode");
            return Optional.empty();
        }
    }

    private void handle(ConsumerRecord<byte[], byte[]> record, ExecutorCommand command) {
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
        laneRunner.ifPresent(java.util.concurrent.ExecutorService::shutdown);
    }
}
