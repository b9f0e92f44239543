package io.falcon.events.streams;

import io.falcon.events.security.KafkaConnection;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler;

/** The Kafka Streams settings every Falcon topology runs with, and how it stops. */
public final class ExactlyOnceStreams {
    private ExactlyOnceStreams() {}

    /**
     * exactly_once_v2, changelog replication, a session timeout that bounds how long a crashed instance's tasks wait
     * before another instance takes them over, a processing-exception handler that logs and goes on (the processors
     * dead-letter what fails themselves; this is the backstop), and static membership under
     * {@link #defaultInstanceId()}: Kafka Streams only removes a static member from the group when it closes, and
     * without that a replacement waits out the session timeout before it gets the tasks.
     */
    public static Properties properties(
            String applicationId,
            String bootstrapServers,
            short replicationFactor,
            String stateDir,
            int streamThreads,
            Duration sessionTimeout) {
        return properties(
                applicationId,
                bootstrapServers,
                replicationFactor,
                stateDir,
                streamThreads,
                sessionTimeout,
                defaultInstanceId());
    }

    /** As above, with an explicit group.instance.id (unique per running instance of the application). */
    public static Properties properties(
            String applicationId,
            String bootstrapServers,
            short replicationFactor,
            String stateDir,
            int streamThreads,
            Duration sessionTimeout,
            String instanceId) {
        return properties(
                applicationId,
                KafkaConnection.plaintext(bootstrapServers),
                replicationFactor,
                stateDir,
                streamThreads,
                sessionTimeout,
                instanceId);
    }

    /** As above on a connection that may be secured (Kafka Streams hands it to its consumers, producers and admin). */
    public static Properties properties(
            String applicationId,
            KafkaConnection kafka,
            short replicationFactor,
            String stateDir,
            int streamThreads,
            Duration sessionTimeout) {
        return properties(
                applicationId, kafka, replicationFactor, stateDir, streamThreads, sessionTimeout, defaultInstanceId());
    }

    /** The full form: a connection and an explicit group.instance.id. */
    public static Properties properties(
            String applicationId,
            KafkaConnection kafka,
            short replicationFactor,
            String stateDir,
            int streamThreads,
            Duration sessionTimeout,
            String instanceId) {
        Properties props = kafka.properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) replicationFactor);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, streamThreads);
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), (int) sessionTimeout.toMillis());
        props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        props.put(
                StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
                LogAndContinueProcessingExceptionHandler.class);
        return props;
    }

    /** {@link io.falcon.events.GroupMembership#instanceId()}: stable across a restart of the same instance. */
    public static String defaultInstanceId() {
        return io.falcon.events.GroupMembership.instanceId();
    }

    /**
     * Commits, closes and leaves the group (removes this static member), so a replacement instance gets the tasks
     * without waiting for the session timeout.
     */
    public static void close(KafkaStreams streams) {
        streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));
    }
}
