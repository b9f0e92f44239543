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
 * For Processor API topologies that read raw bytes: decodes a record, and sends what does not decode, or what makes
 * the processor throw, to the topology's dead-letter sink with the reason and the input, instead of failing the
 * stream thread (which, with exactly-once, would replay the same record after every restart: a crash loop).
 */
public final class StreamsDeadLetters {
    private static final Logger LOG = LoggerFactory.getLogger(StreamsDeadLetters.class);

    /** Told of every dead letter: source topic and stage ("decode" or "process"), for a metric. */
    @FunctionalInterface
    public interface Listener {
        void deadLettered(String sourceTopic, String stage);

        Listener NONE = (topic, stage) -> {};
    }

    private final String producer;
    private final String sinkName;

    public StreamsDeadLetters(String producer, String sinkName) {
        this.producer = producer;
        this.sinkName = sinkName;
    }

    public <T> Optional<T> decode(
            JsonSerde<T> serde, Record<String, byte[]> record, ProcessorContext<String, Object> context) {
        return decode(serde, record, context, Listener.NONE);
    }

    public <T> Optional<T> decode(
            JsonSerde<T> serde,
            Record<String, byte[]> record,
            ProcessorContext<String, Object> context,
            Listener listener) {
        try {
            return Optional.ofNullable(serde.fromBytes(record.value()));
        } catch (SerializationException e) {
            send(record, context, e.getMessage(), e);
            listener.deadLettered(topic(context), "decode");
            return Optional.empty();
        }
    }

    /**
     * Runs the processing of one record; if it throws, the record goes to the dead-letter topic with the reason,
     * onFailure runs (to rebuild in-memory state the failed step may have left half-changed), and the stream goes
     * on. Returns whether the processing completed.
     */
    public boolean guard(
            Record<String, byte[]> record,
            ProcessorContext<String, Object> context,
            Listener listener,
            Runnable processing,
            Runnable onFailure) {
        try {
            processing.run();
            return true;
        } catch (RuntimeException e) {
            LOG.error("processing a record of {} failed; dead-lettering it and going on", topic(context), e);
            send(record, context, "processing failed: " + e, e);
            listener.deadLettered(topic(context), "process");
            onFailure.run();
            return false;
        }
    }

    public void send(
            Record<String, byte[]> record, ProcessorContext<String, Object> context, String reason, Throwable error) {
        var metadata = context.recordMetadata();
        String topic = metadata.map(m -> m.topic()).orElse("unknown");
        int partition = metadata.map(m -> m.partition()).orElse(-1);
        long offset = metadata.map(m -> m.offset()).orElse(-1L);
        LOG.warn(
                "dead-lettering record topic={} partition={} offset={} key={} reason={}",
                topic,
                partition,
                offset,
                record.key(),
                reason);
        byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
        DeadLetter letter = DeadLetter.of(
                Meta.of(producer, Instant.ofEpochMilli(context.currentSystemTimeMs())),
                topic,
                partition,
                offset,
                key,
                record.value(),
                reason,
                error);
        context.forward(
                new Record<>(record.key() == null ? "" : record.key(), (Object) letter, record.timestamp()), sinkName);
    }

    private static String topic(ProcessorContext<String, Object> context) {
        return context.recordMetadata().map(m -> m.topic()).orElse("unknown");
    }
}
