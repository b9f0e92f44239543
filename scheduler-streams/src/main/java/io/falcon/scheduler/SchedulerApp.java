package io.falcon.scheduler;

import io.falcon.events.streams.ExactlyOnceStreams;
import io.falcon.ops.FalconMetrics;
import io.falcon.scheduler.topology.SchedulerTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the scheduler topology with exactly-once processing; closing it commits and leaves the group cleanly. */
public final class SchedulerApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerApp.class);

    private final KafkaStreams streams;
    private final SchedulerConfig config;

    public SchedulerApp(SchedulerConfig config) {
        this(config, new FalconMetrics(new SimpleMeterRegistry()));
    }

    public SchedulerApp(SchedulerConfig config, FalconMetrics metrics) {
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
        streams = new KafkaStreams(SchedulerTopology.build(config.tickInterval(), config.scheduling(), metrics), props);
        streams.setStateListener((next, previous) -> LOG.info("scheduler streams {} -> {}", previous, next));
    }

    public SchedulerApp start() {
        // Topics the scheduler reads or writes beyond its own input that `falcon topics create` normally makes: a
        // missing source topic (fault verdicts, when fault-streams is not deployed yet; the operators' controls, before
        // anyone switched anything) would fail every assignment.
        io.falcon.events.TopicProvisioner.ensureExist(
                config.kafka(),
                config.replicationFactor(),
                io.falcon.events.Topics.SCHEDULER_INPUT,
                java.util.List.of(
                        io.falcon.events.Topics.FAULT_VERDICTS,
                        io.falcon.events.Topics.SCHEDULER_CONTROLS,
                        io.falcon.events.Topics.DECISIONS));
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

    @Override
    public void close() {
        ExactlyOnceStreams.close(streams);
    }
}
