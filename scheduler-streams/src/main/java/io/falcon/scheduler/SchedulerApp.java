package io.falcon.scheduler;

import io.falcon.ops.FalconMetrics;
import io.falcon.scheduler.topology.SchedulerTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the scheduler topology with exactly-once processing; closing it commits and leaves the group cleanly. */
public final class SchedulerApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerApp.class);

    private final KafkaStreams streams;

    public SchedulerApp(SchedulerConfig config) {
        this(config, new FalconMetrics(new SimpleMeterRegistry()));
    }

    public SchedulerApp(SchedulerConfig config, FalconMetrics metrics) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) config.replicationFactor());
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.streamThreads());
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), (int) config.sessionTimeout().toMillis());
        streams = new KafkaStreams(SchedulerTopology.build(config.tickInterval(), metrics), props);
        streams.setStateListener((next, previous) -> LOG.info("scheduler streams {} -> {}", previous, next));
    }

    public SchedulerApp start() {
        streams.start();
        return this;
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    /** For readiness and liveness checks. */
    public KafkaStreams streams() {
        return streams;
    }

    /** Leaves the group on close, so that a replacement instance gets the tasks without waiting for a timeout. */
    @Override
    public void close() {
        streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));
    }
}
