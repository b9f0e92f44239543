package io.falcon.faults.topology;

import io.falcon.events.DeadLetter;
import io.falcon.events.JsonSerde;
import io.falcon.events.Meta;
import io.falcon.faults.core.Verdicts;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Decodes raw records; what does not decode (or is unusable) goes to the dead-letter topic with the reason. */
final class DeadLetters {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

    private DeadLetters() {
    }

    static <T> Optional<T> decode(JsonSerde<T> serde, Record<String, byte[]> record,
            ProcessorContext<String, Object> context) {
        try {
            return Optional.ofNullable(serde.fromBytes(record.value()));
        } catch (SerializationException e) {
            send(record, context, e.getMessage(), e);
            return Optional.empty();
        }
    }

    static void send(Record<String, byte[]> record, ProcessorContext<String, Object> context, String reason,
            Throwable error) {
        var metadata = context.recordMetadata();
        String topic = metadata.map(m -> m.topic()).orElse("unknown");
        int partition = metadata.map(m -> m.partition()).orElse(-1);
        long offset = metadata.map(m -> m.offset()).orElse(-1L);
        LOG.warn("dead-lettering record topic={} partition={} offset={} key={} reason={}", topic, partition, offset,
                record.key(), reason);
        DeadLetter letter = DeadLetter.of(Meta.of(Verdicts.PRODUCER, Instant.ofEpochMilli(context.currentSystemTimeMs())),
                topic, partition, offset, record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8),
                record.value(), reason, error);
        context.forward(new Record<>(record.key() == null ? "" : record.key(), (Object) letter, record.timestamp()),
                FaultTopology.DEAD_LETTER_SINK);
    }
}
