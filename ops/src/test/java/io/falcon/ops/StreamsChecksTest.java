package io.falcon.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class StreamsChecksTest {
    @Test
    void aCreatedStreamsIsAliveButNotReadyAndAClosedOneIsNeither() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("falcon.test.input").to("falcon.test.output");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ops-streams-check-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, System.getProperty("java.io.tmpdir") + "/ops-streams-check-test");
        try (KafkaStreams streams = new KafkaStreams(builder.build(), props)) {
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.CREATED);
            ReadinessCheck ready = StreamsChecks.ready("scheduler-streams", streams);
            ReadinessCheck alive = StreamsChecks.alive("scheduler-streams", streams);
            assertThat(ready.check().ok()).isFalse();
            assertThat(ready.check().detail()).isEqualTo("state CREATED");
            assertThat(alive.check().ok()).isTrue();

            streams.close();
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.NOT_RUNNING);
            assertThat(ready.check().ok()).isFalse();
            assertThat(alive.check().ok()).isFalse();
            assertThat(alive.check().detail()).isEqualTo("state NOT_RUNNING");
        }
    }
}
