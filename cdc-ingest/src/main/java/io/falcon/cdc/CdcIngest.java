package io.falcon.cdc;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.falcon.events.config.SharedKeys;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cdc-ingest service: runs the Debezium embedded engine over the jobs and clusters tables and publishes every
 * change to Kafka ({@link CdcConfig#jobsTopic()}, {@link CdcConfig#clustersTopic()}, dead letters to
 * {@link CdcConfig#deadLetterTopic()}), committing binlog offsets only after Kafka acknowledged the events.
 *
 * <p>{@link #start()} returns at once; a supervisor thread runs the engine and, when it stops on an error (database
 * gone, Kafka not acknowledging), starts a fresh engine and producer after a backoff, resuming from the committed
 * offsets. {@link #close()} stops it and flushes the offsets of what was acknowledged. Never calls System.exit, so
 * the local module can embed it.
 */
public final class CdcIngest implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CdcIngest.class);
    private static final long MAX_BACKOFF_MS = 30_000;

    /** Lifecycle of the service. */
    public enum State {
        NEW,
        STARTING,
        RUNNING,
        RESTARTING,
        CLOSED
    }

    private final CdcConfig config;
    private final KafkaChangePublisher.Counters counters = new KafkaChangePublisher.Counters();
    private final Object lock = new Object();
    private final AtomicReference<Throwable> lastError = new AtomicReference<>();
    private volatile State state = State.NEW;
    private volatile boolean closing;
    private DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
    private Thread supervisor;
    private volatile long engineStarts;

    public CdcIngest(CdcConfig config) {
        this.config = config;
    }

    public CdcConfig config() {
        return config;
    }

    /**
     * Creates the output topics if missing and starts the engine in the background.
     *
     * @throws IllegalStateException if already started or closed, or Kafka is not reachable within 30 s
     */
    public void start() {
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException("cdc-ingest already " + state);
            }
            state = State.STARTING;
        }
        log.info("cdc-ingest starting: {}", config);
        ensureTopics();
        Thread t = new Thread(this::superviseLoop, "falcon-cdc-ingest-" + config.engineName());
        t.setDaemon(false);
        synchronized (lock) {
            supervisor = t;
        }
        t.start();
    }

    public State state() {
        return state;
    }

    /** The error that last stopped the engine, if any. */
    public Throwable lastError() {
        return lastError.get();
    }

    /** How many times an engine was started (1 + restarts). */
    public long engineStarts() {
        return engineStarts;
    }

    /** Events acknowledged by Kafka since start: jobs, clusters, dead letters. */
    public Map<String, Long> publishedCounts() {
        return Map.of(
                "jobs",
                counters.jobs.get(),
                "clusters",
                counters.clusters.get(),
                "deadLetters",
                counters.deadLetters.get(),
                "skipped",
                counters.skipped.get(),
                "batches",
                counters.batches.get());
    }

    @Override
    public void close() {
        Thread t;
        DebeziumEngine<RecordChangeEvent<SourceRecord>> e;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            closing = true;
            state = State.CLOSED;
            t = supervisor;
            e = engine;
            lock.notifyAll();
        }
        log.info("cdc-ingest closing");
        if (e != null) {
            closeEngine(e);
        }
        if (t != null) {
            // An engine being built or just starting may miss the first close: keep closing whatever engine is
            // current until the supervisor thread has ended.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            try {
                t.join(2000);
                while (t.isAlive() && System.nanoTime() < deadline) {
                    DebeziumEngine<RecordChangeEvent<SourceRecord>> current;
                    synchronized (lock) {
                        current = engine;
                    }
                    if (current != null) {
                        closeEngine(current);
                    }
                    t.join(1000);
                }
                if (t.isAlive()) {
                    log.warn("cdc-ingest engine thread did not stop within 60 s; interrupting");
                    t.interrupt();
                    t.join(5000);
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
        log.info("cdc-ingest closed: {}", publishedCounts());
    }

    private void superviseLoop() {
        long backoff = config.restartBackoff().toMillis();
        while (!closing) {
            long startedAt = System.nanoTime();
            runEngineOnce();
            if (closing) {
                break;
            }
            if (System.nanoTime() - startedAt > TimeUnit.MINUTES.toNanos(1)) {
                backoff = config.restartBackoff().toMillis();
            }
            synchronized (lock) {
                if (closing) {
                    break;
                }
                state = State.RESTARTING;
                Throwable err = lastError.get();
                log.warn(
                        "cdc-ingest engine stopped ({}); restarting in {} ms from the committed offsets",
                        err == null ? "no error reported" : err.toString(),
                        backoff);
                try {
                    lock.wait(Math.max(1, backoff));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            backoff = Math.min(MAX_BACKOFF_MS, Math.max(backoff * 2, 100));
        }
        log.info("cdc-ingest supervisor stopped");
    }

    private void runEngineOnce() {
        Producer<byte[], byte[]> producer = null;
        DebeziumEngine<RecordChangeEvent<SourceRecord>> e = null;
        try {
            producer = newProducer();
            Properties props = EngineProperties.of(config);
            e = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                    .using(props)
                    .using(this::onCompletion)
                    .using(new DebeziumEngine.ConnectorCallback() {
                        @Override
                        public void taskStarted() {
                            log.info(
                                    "cdc-ingest streaming from {}:{}/{} (tables {})",
                                    config.dbHost(),
                                    config.dbPort(),
                                    config.dbName(),
                                    config.tableIncludeList());
                        }
                    })
                    .notifying(new KafkaChangePublisher(producer, config, counters))
                    .build();
            synchronized (lock) {
                if (closing) {
                    closeEngine(e);
                    return;
                }
                engine = e;
                state = State.RUNNING;
            }
            engineStarts++;
            e.run();
        } catch (Throwable t) {
            lastError.set(t);
            log.error("cdc-ingest engine failed: {}", t.toString(), t);
        } finally {
            synchronized (lock) {
                engine = null;
            }
            if (e != null) {
                closeEngine(e);
            }
            if (producer != null) {
                try {
                    producer.close(Duration.ofSeconds(5));
                } catch (RuntimeException pe) {
                    log.warn("cdc-ingest producer close failed: {}", pe.toString());
                }
            }
        }
    }

    private void onCompletion(boolean success, String message, Throwable error) {
        if (error != null) {
            lastError.set(error);
            log.error("cdc-ingest engine completed with error: {}", message, error);
        } else if (!success) {
            lastError.set(new IllegalStateException(message));
            log.warn("cdc-ingest engine completed unsuccessfully: {}", message);
        } else {
            log.info("cdc-ingest engine completed: {}", message);
        }
    }

    private static void closeEngine(DebeziumEngine<?> e) {
        try {
            e.close();
        } catch (IllegalStateException alreadyStopped) {
            log.debug("cdc-ingest engine already stopped: {}", alreadyStopped.toString());
        } catch (IOException | RuntimeException ex) {
            log.warn("cdc-ingest engine close failed: {}", ex.toString());
        }
    }

    private Producer<byte[], byte[]> newProducer() {
        Properties p = new Properties();
        p.putAll(config.producer());
        // the connection (bootstrap servers and security) wins over falcon.cdc.producer.*
        p.putAll(config.kafka().properties());
        p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "falcon-cdc-ingest-" + config.engineName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private void ensureTopics() {
        Properties p = config.kafka().properties();
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "falcon-cdc-ingest-admin-" + config.engineName());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        try (Admin admin = Admin.create(p)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String name : List.of(config.jobsTopic(), config.clustersTopic(), config.deadLetterTopic())) {
                if (!existing.contains(name)) {
                    missing.add(new NewTopic(name, config.topicPartitions(), config.replicationFactor()));
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            for (var f : admin.createTopics(missing).values().entrySet()) {
                try {
                    f.getValue().get(30, TimeUnit.SECONDS);
                    log.info("cdc-ingest created topic {}", f.getKey());
                } catch (ExecutionException ex) {
                    if (!(ex.getCause() instanceof TopicExistsException)) {
                        throw ex;
                    }
                }
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking Kafka topics", ie);
        } catch (ExecutionException | TimeoutException ex) {
            state = State.CLOSED;
            throw new IllegalStateException(
                    "cdc-ingest cannot prepare its topics on Kafka at "
                            + config.kafka().bootstrapServers() + " (" + SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key()
                            + "): " + ex,
                    ex);
        }
    }
}
