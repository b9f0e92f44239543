package io.falcon.events.streams;

import io.falcon.events.DeadLetter;
import io.falcon.events.JsonSerde;
import io.falcon.events.Meta;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For Processor API topologies that read raw bytes: decodes a record, and sends what does not decode (or cannot be
 * used) to the topology's dead-letter sink with the reason, instead of failing the stream thread.
 */
public final class StreamsDeadLetters {
    private static final Logger LOG = LoggerFactory.getLogger(StreamsDeadLetters.class);

    private final String producer;
    private final String sinkName;

    public StreamsDeadLetters(String producer, String sinkName) {
        this.producer = producer;
        this.sinkName = sinkName;
    }

    public <T> Optional<T> decode(JsonSerde<T> serde, Record<String, byte[]> record,
            ProcessorContext<String, Object> context) {
        try {
            return Optional.ofNullable(serde.fromBytes(record.value()));
        } catch (SerializationException e) {
            send(record, context, e.getMessage(), e);
            return Optional.empty();
        }
    }

    public void send(Record<String, byte[]> record, ProcessorContext<String, Object> context, String reason,
            Throwable error) {
        var metadata = context.recordMetadata();
        String topic = metadata.map(m -> m.topic()).orElse("unknown");
        int partition = metadata.map(m -> m.partition()).orElse(-1);
        long offset = metadata.map(m -> m.offset()).orElse(-1L);
        LOG.warn("dead-lettering record topic={} partition={} offset={} key={} reason={}", topic, partition, offset,
                record.key(), reason);
        byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
        DeadLetter letter = DeadLetter.of(Meta.of(producer, Instant.ofEpochMilli(context.currentSystemTimeMs())),
                topic, partition, offset, key, record.value(), reason, error);
        context.forward(new Record<>(record.key() == null ? "" : record.key(), (Object) letter, record.timestamp()),
                sinkName);
    }
}
