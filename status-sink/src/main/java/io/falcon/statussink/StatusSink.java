package io.falcon.statussink;

import io.falcon.events.DeadLetter;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.status.TaskStatus;
import io.falcon.ops.Checks;
import io.falcon.ops.FalconMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes task-status and writes it to the jobs table. Offsets are committed only after the database commit,
 * so a crash in between replays the batch, which the SQL guards make harmless. A database outage pauses the
 * loop with backoff and resumes with the same batch: nothing is lost. Every falcon.sink.prune-interval a timer
 * deletes the versions of terminal jobs past falcon.sink.terminal-retention ({@link StatusVersionPruner}).
 */
public final class StatusSink implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StatusSink.class);
    static final String PRODUCER = "status-sink";

    private final StatusSinkConfig config;
    private final String topic;
    private final StatusWriter writer = new StatusWriter();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final KafkaConsumer<String, byte[]> consumer;
    private final KafkaProducer<byte[], byte[]> deadLetters;
    private final Thread loop;
    private final FalconMetrics metrics;
    private final Checks.AssignmentTracker assignment = new Checks.AssignmentTracker();
    private final StatusVersionPruner pruner;
    /** Prunes on its own thread and connection: a pass never holds up the write loop. */
    private final ScheduledExecutorService pruning = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "status-sink-pruner");
        thread.setDaemon(true);
        return thread;
    });

    private Connection connection;

    public StatusSink(StatusSinkConfig config) {
        this(config, new FalconMetrics(new SimpleMeterRegistry()));
    }

    public StatusSink(StatusSinkConfig config, FalconMetrics metrics) {
        this(config, metrics, Topics.TASK_STATUS.name());
    }

    /**
     * Reading another topic than the catalog's falcon.task-status is for tests only (each test its own topic on the
     * shared broker); it is deliberately not a setting, since a renamed topic would silently disconnect the sink.
     */
    StatusSink(StatusSinkConfig config, FalconMetrics metrics, String topic) {
        this.config = config;
        this.topic = topic;
        this.metrics = metrics;
        Properties consumerProps = config.kafka().properties();
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.maxBatch());
        // static membership: a restarted status-sink takes its partitions back at once (GroupMembership)
        consumerProps.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, io.falcon.events.GroupMembership.instanceId());
        consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(), new ByteArrayDeserializer());
        Properties producerProps = config.kafka().properties();
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        deadLetters = new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer());
        loop = new Thread(this::run, "status-sink");
        pruner = new StatusVersionPruner(config.terminalRetention(), config.pruneBatch());
    }

    public StatusSink start() {
        consumer.subscribe(List.of(topic), assignment);
        loop.start();
        long intervalMs = config.pruneInterval().toMillis();
        pruning.scheduleWithFixedDelay(this::pruneVersions, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * One pruning pass. A failure (the database away) is logged and the next pass tries again: until then the table
     * only keeps a few more rows.
     */
    private void pruneVersions() {
        Instant now = Instant.now();
        try (Connection pruneConnection = openConnection()) {
            int deleted = pruner.prune(pruneConnection, now);
            if (deleted > 0) {
                LOG.info("pruned versions of terminal jobs deleted={} terminalBefore={}", deleted, pruner.cutoff(now));
            }
        } catch (SQLException | RuntimeException e) {
            LOG.warn(
                    "pruning versions of terminal jobs failed, next pass in {}: {}",
                    config.pruneInterval(),
                    e.getMessage());
        }
    }

    private void run() {
        try {
            while (running.get()) {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(500));
                if (!records.isEmpty()) {
                    handle(records);
                }
            }
        } catch (WakeupException e) {
            if (running.get()) {
                throw e;
            }
        } catch (RuntimeException e) {
            LOG.error("status-sink loop stopped", e);
            throw e;
        } finally {
            closeConnection();
            io.falcon.events.GroupMembership.leaveAndClose(consumer, java.time.Duration.ofSeconds(5));
        }
    }

    private void handle(ConsumerRecords<String, byte[]> records) {
        List<TaskStatus> statuses = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            offsets.put(
                    new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
            try {
                statuses.add(Topics.TASK_STATUS.valueSerde().fromBytes(record.value()));
            } catch (SerializationException e) {
                deadLetter(
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        record.key(),
                        record.value(),
                        e.getMessage(),
                        e);
                metrics.deadLetter(record.topic(), "decode");
            }
        }
        long started = System.nanoTime();
        StatusWriter.Outcome outcome = writeWithRetry(statuses);
        metrics.sinkWriteLatency().record(Duration.ofNanos(System.nanoTime() - started));
        metrics.sinkBatchSize().record(statuses.size());
        for (TaskStatus unknown : outcome.unknownJobs()) {
            deadLetter(
                    topic,
                    -1,
                    -1,
                    unknown.jobId(),
                    Topics.TASK_STATUS.valueSerde().toBytes(unknown),
                    "no jobs row with id " + unknown.jobId(),
                    null);
            metrics.deadLetter(topic, "process");
        }
        deadLetters.flush();
        consumer.commitSync(offsets);
        Instant committed = Instant.now();
        statuses.forEach(status ->
                metrics.sinkLag().record(Duration.between(status.meta().occurredAt(), committed)));
        LOG.debug(
                "wrote batch size={} applied={} guarded={} unknown={}",
                statuses.size(),
                outcome.applied(),
                outcome.guarded(),
                outcome.unknownJobs().size());
    }

    /**
     * Retries the same batch until the database takes it, with capped exponential backoff and jitter. A batch the
     * database refuses for its data (SQL state class 22 or 23: a value too long, a constraint) is written one status
     * at a time instead, and each status it still refuses goes to the dead-letter topic with the reason: one bad
     * record must not stall every job's write-back.
     */
    private StatusWriter.Outcome writeWithRetry(List<TaskStatus> statuses) {
        long backoffMs = 200;
        while (true) {
            try {
                return writer.write(connection(), statuses);
            } catch (SQLException e) {
                if (isDataError(e)) {
                    return writeOneByOne(statuses);
                }
                if (!running.get()) {
                    throw new IllegalStateException("stopping with an unwritten batch; it will be redelivered", e);
                }
                LOG.warn(
                        "database write failed, retrying batch of {} in {} ms: {}",
                        statuses.size(),
                        backoffMs,
                        e.getMessage());
                closeConnection();
                keepGroupMembership(backoffMs);
                backoffMs = Math.min(backoffMs * 2, config.maxBackoff().toMillis());
            }
        }
    }

    private StatusWriter.Outcome writeOneByOne(List<TaskStatus> statuses) {
        int applied = 0;
        int guarded = 0;
        List<TaskStatus> unknown = new ArrayList<>();
        for (TaskStatus status : statuses) {
            try {
                StatusWriter.Outcome one = writeWithRetry(List.of(status), status);
                applied += one.applied();
                guarded += one.guarded();
                unknown.addAll(one.unknownJobs());
            } catch (SQLException e) {
                LOG.error(
                        "the database refuses the status of job {} (version {}): {}; dead-lettering it",
                        status.jobId(),
                        status.version(),
                        e.getMessage());
                deadLetter(
                        topic,
                        -1,
                        -1,
                        status.jobId(),
                        Topics.TASK_STATUS.valueSerde().toBytes(status),
                        "the database refuses it: " + e.getMessage(),
                        e);
                metrics.deadLetter(topic, "process");
            }
        }
        return new StatusWriter.Outcome(applied, guarded, unknown);
    }

    /** One status, retried like a batch while the database is unavailable; a data error is thrown. */
    private StatusWriter.Outcome writeWithRetry(List<TaskStatus> one, TaskStatus status) throws SQLException {
        long backoffMs = 200;
        while (true) {
            try {
                return writer.write(connection(), one);
            } catch (SQLException e) {
                if (isDataError(e) || !running.get()) {
                    throw e;
                }
                LOG.warn(
                        "database write of job {} failed, retrying in {} ms: {}",
                        status.jobId(),
                        backoffMs,
                        e.getMessage());
                closeConnection();
                keepGroupMembership(backoffMs);
                backoffMs = Math.min(backoffMs * 2, config.maxBackoff().toMillis());
            }
        }
    }

    /** SQL state class 22 (data exception) or 23 (integrity constraint): retrying the same row cannot help. */
    static boolean isDataError(SQLException e) {
        for (SQLException s = e; s != null; s = s.getNextException()) {
            String state = s.getSQLState();
            if (s instanceof java.sql.SQLDataException
                    || s instanceof java.sql.SQLIntegrityConstraintViolationException
                    || (state != null && (state.startsWith("22") || state.startsWith("23")))) {
                return true;
            }
        }
        return false;
    }

    /** Waits without losing the partitions: paused polls keep the consumer in its group. */
    private void keepGroupMembership(long waitMs) {
        long jittered = waitMs / 2 + ThreadLocalRandom.current().nextLong(waitMs / 2 + 1);
        consumer.pause(consumer.assignment());
        try {
            long until = System.currentTimeMillis() + jittered;
            while (System.currentTimeMillis() < until && running.get()) {
                consumer.poll(Duration.ofMillis(Math.min(100, Math.max(1, until - System.currentTimeMillis()))));
            }
        } finally {
            consumer.resume(consumer.assignment());
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = openConnection();
        }
        return connection;
    }

    private Connection openConnection() throws SQLException {
        Connection opened = JdbcDataSource.of(config).getConnection();
        try (var statement = opened.createStatement()) {
            statement.execute("SET time_zone = '+00:00'");
        } catch (SQLException e) {
            opened.close();
            throw e;
        }
        return opened;
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("closing a broken connection failed", e);
            }
            connection = null;
        }
    }

    private void deadLetter(
            String topic, int partition, long offset, String key, byte[] payload, String reason, Throwable error) {
        LOG.warn(
                "dead-lettering task status topic={} partition={} offset={} job={} reason={}",
                topic,
                partition,
                offset,
                key,
                reason);
        DeadLetter letter = DeadLetter.of(
                Meta.of(PRODUCER, Instant.now()),
                topic,
                partition,
                offset,
                key == null ? null : key.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                payload,
                reason,
                error);
        deadLetters.send(new ProducerRecord<>(
                Topics.DEAD_LETTER.name(),
                key == null ? null : key.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                Topics.DEAD_LETTER.valueSerde().toBytes(letter)));
    }

    /** The partitions this instance holds right now, for readiness. */
    public Checks.AssignmentTracker assignment() {
        return assignment;
    }

    @Override
    public void close() {
        pruning.shutdownNow();
        running.set(false);
        consumer.wakeup();
        try {
            pruning.awaitTermination(5, TimeUnit.SECONDS);
            loop.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deadLetters.close(Duration.ofSeconds(5));
    }
}
