package io.falcon.events.streams;

import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/** The Kafka Streams settings every Falcon topology runs with, and how it stops. */
public final class ExactlyOnceStreams {
    private ExactlyOnceStreams() {
    }

    /**
     * exactly_once_v2, changelog replication, and a session timeout that bounds how long a crashed instance's tasks
     * wait before another instance takes them over.
     */
    public static Properties properties(String applicationId, String bootstrapServers, short replicationFactor,
            String stateDir, int streamThreads, Duration sessionTimeout) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) replicationFactor);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, streamThreads);
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), (int) sessionTimeout.toMillis());
        return props;
    }

    /** Commits, closes and leaves the group, so a replacement instance gets the tasks without waiting. */
    public static void close(KafkaStreams streams) {
        streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));
    }
}
