package io.falcon.faults;

import io.falcon.ops.FalconMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.falcon.events.Topics;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.faults.topology.FaultTopology;
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

    private final FaultStreamsConfig config;
    private final KafkaStreams streams;
    private final ScheduledExecutorService policyWatcher;
    private final KafkaProducer<String, IsolationPolicy> policyProducer;

    public FaultStreamsApp(FaultStreamsConfig config) {
        this(config, new FalconMetrics(new SimpleMeterRegistry()));
    }

    public FaultStreamsApp(FaultStreamsConfig config, FalconMetrics metrics) {
        this.config = config;
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) config.replicationFactor());
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.streamThreads());
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), (int) config.sessionTimeout().toMillis());
        streams = new KafkaStreams(FaultTopology.build(config.topology(), metrics), props);
        streams.setStateListener((next, previous) -> LOG.info("fault streams {} -> {}", previous, next));
        if (config.policyFile().isPresent()) {
            policyProducer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                    ProducerConfig.ACKS_CONFIG, "all"),
                    new StringSerializer(), Topics.ISOLATION_POLICY.valueSerde().serializer());
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
            PolicyPublisher publisher = new PolicyPublisher(config.policyFile().orElseThrow(), Clock.systemUTC(),
                    policy -> policyProducer.send(new ProducerRecord<>(Topics.ISOLATION_POLICY.name(),
                            IsolationPolicy.KEY, policy)));
            long every = config.policyPollInterval().toMillis();
            policyWatcher.scheduleWithFixedDelay(() -> {
                try {
                    publisher.check();
                } catch (RuntimeException e) {
                    LOG.error("isolation policy check failed", e);
                }
            }, 0, every, TimeUnit.MILLISECONDS);
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
        streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));
    }
}
