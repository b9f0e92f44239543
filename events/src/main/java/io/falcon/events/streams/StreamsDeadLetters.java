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

    /**
     * The most bytes of a record's value a dead letter keeps. A dead letter is itself a record: one that carried an
     * input of about Kafka's 1 MB limit or more (a compressed batch may hold a larger record than the limit) as
     * base64 would be refused by the dead-letter topic, and under exactly-once that refusal fails the task, which
     * replays the same input after every restart. Beyond it the dead letter keeps the first bytes and says so; the
     * source topic, partition and offset it names still lead to the whole record while it is retained.
     */
    public static final int MAX_PAYLOAD_BYTES = 256 * 1024;

    /** The most characters of a record's key and of a reason a dead letter keeps, for the same reason. */
    public static final int MAX_TEXT = 4096;

    public void send(
            Record<String, byte[]> record, ProcessorContext<String, Object> context, String reason, Throwable error) {
        byte[] value = record.value();
        if (value != null && value.length > MAX_PAYLOAD_BYTES) {
            reason = reason + " (dead letter keeps the first " + MAX_PAYLOAD_BYTES + " of its " + value.length
                    + " bytes)";
            value = java.util.Arrays.copyOf(value, MAX_PAYLOAD_BYTES);
        }
        reason = clipped(reason);
        String recordKey = record.key() == null ? null : clipped(record.key());
        var metadata = context.recordMetadata();
        String topic = metadata.map(m -> m.topic()).orElse("unknown");
        int partition = metadata.map(m -> m.partition()).orElse(-1);
        long offset = metadata.map(m -> m.offset()).orElse(-1L);
        LOG.warn(
                "dead-lettering record topic={} partition={} offset={} key={} reason={}",
                topic,
                partition,
                offset,
                recordKey,
                reason);
        byte[] key = recordKey == null ? null : recordKey.getBytes(StandardCharsets.UTF_8);
        DeadLetter letter = DeadLetter.of(
                Meta.of(producer, Instant.ofEpochMilli(context.currentSystemTimeMs())),
                topic,
                partition,
                offset,
                key,
                value,
                reason,
                error);
        context.forward(
                new Record<>(recordKey == null ? "" : recordKey, (Object) letter, record.timestamp()), sinkName);
    }

    private static String clipped(String text) {
        if (text == null || text.length() <= MAX_TEXT) {
            return text;
        }
        // not between the two halves of a surrogate pair, which would leave an unpaired one
        int end = Character.isLowSurrogate(text.charAt(MAX_TEXT)) ? MAX_TEXT - 1 : MAX_TEXT;
        return text.substring(0, end) + "... (" + text.length() + " characters)";
    }

    private static String topic(ProcessorContext<String, Object> context) {
        return context.recordMetadata().map(m -> m.topic()).orElse("unknown");
    }
}
