package io.falcon.faults;

import io.falcon.events.Topics;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.streams.ExactlyOnceStreams;
import io.falcon.faults.topology.FaultTopology;
import io.falcon.ops.FalconMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the fault topology with exactly-once processing and, when a policy file is configured, publishes it
 * (validated) to the policy topic whenever it changes. Embeddable: start() returns, close() stops everything.
 */
public final class FaultStreamsApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultStreamsApp.class);

    static final int PRODUCER_BATCH_BYTES = 256 * 1024;

    private final FaultStreamsConfig config;
    private final KafkaStreams streams;
    private final ScheduledExecutorService policyWatcher;
    private final KafkaProducer<String, IsolationPolicy> policyProducer;

    public FaultStreamsApp(FaultStreamsConfig config) {
        this(config, new FalconMetrics(new SimpleMeterRegistry()));
    }

    public FaultStreamsApp(FaultStreamsConfig config, FalconMetrics metrics) {
        this.config = config;
        Properties props = ExactlyOnceStreams.properties(
                config.applicationId(),
                config.kafka(),
                config.replicationFactor(),
                config.stateDir(),
                config.streamThreads(),
                config.sessionTimeout());
        props.put(
                StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.commitInterval().toMillis());
        // One verdict per fault (~450 bytes) goes to few partitions: batches of 256 KB instead of the producer's
        // 16 KB mean an eighth of the produce requests for the broker to validate and append, and of the
        // completions for the producer's network thread. Memory: one batch per partition written (the producer's
        // 32 MB buffer bounds it).
        props.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), PRODUCER_BATCH_BYTES);
        // A task reads three topics (faults, isolation commands, the legacy counting topic) and the decisions go by
        // the faults' receive times, not by the records' timestamps across those topics, so there is nothing to
        // wait for: with task idling disabled Kafka Streams also skips the bookkeeping (a set and a map) it allocated
        // for every record to decide whether to wait (issue 12 C, the stream thread's largest allocation in Kafka
        // Streams itself).
        props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
        streams = new KafkaStreams(FaultTopology.build(config.topology(), metrics), props);
        streams.setStateListener((next, previous) -> LOG.info("fault streams {} -> {}", previous, next));
        if (config.policyFile().isPresent()) {
            policyProducer = new KafkaProducer<>(
                    config.kafka()
                            .with(Map.of(
                                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.ACKS_CONFIG, "all")),
                    new StringSerializer(),
                    Topics.ISOLATION_POLICY.valueSerde().serializer());
            policyWatcher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "falcon-fault-policy-watcher");
                t.setDaemon(true);
                return t;
            });
        } else {
            policyProducer = null;
            policyWatcher = null;
        }
    }

    public FaultStreamsApp start() {
        streams.start();
        if (policyWatcher != null) {
            PolicyPublisher publisher = new PolicyPublisher(
                    config.policyFile().orElseThrow(),
                    Clock.systemUTC(),
                    policy -> policyProducer.send(
                            new ProducerRecord<>(Topics.ISOLATION_POLICY.name(), IsolationPolicy.KEY, policy)));
            long every = config.policyPollInterval().toMillis();
            policyWatcher.scheduleWithFixedDelay(
                    () -> {
                        try {
                            publisher.check();
                        } catch (RuntimeException e) {
                            LOG.error("isolation policy check failed", e);
                        }
                    },
                    0,
                    every,
                    TimeUnit.MILLISECONDS);
        }
        return this;
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    /** For readiness and liveness checks. */
    public KafkaStreams streams() {
        return streams;
    }

    @Override
    public void close() {
        if (policyWatcher != null) {
            policyWatcher.shutdownNow();
            policyProducer.close(Duration.ofSeconds(5));
        }
        ExactlyOnceStreams.close(streams);
    }
}
