package io.falcon.statussink;

import io.falcon.events.Settings;
import io.falcon.events.Topics;
import java.time.Duration;

/** Typed settings of the status-sink, validated when it starts. */
public record StatusSinkConfig(
        String bootstrapServers,
        String groupId,
        String topic,
        String jdbcUrl,
        String dbUser,
        String dbPassword,
        int maxBatch,
        Duration maxBackoff) {

    public static StatusSinkConfig from(Settings settings) {
        return new StatusSinkConfig(
                settings.required("falcon.kafka.bootstrap-servers"),
                settings.string("falcon.sink.group-id", "falcon-status-sink"),
                settings.string("falcon.sink.topic", Topics.TASK_STATUS.name()),
                settings.required("falcon.db.url"),
                settings.required("falcon.db.user"),
                settings.string("falcon.db.password", ""),
                settings.intBetween("falcon.sink.max-batch", 500, 1, 10_000),
                settings.duration("falcon.sink.max-backoff", Duration.ofSeconds(30)));
    }
}
