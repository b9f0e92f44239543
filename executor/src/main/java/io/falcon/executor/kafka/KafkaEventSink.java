package io.falcon.executor.kafka;

import io.falcon.events.Topics;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.EventSink;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes executor events to EXECUTOR_EVENTS keyed by tpu_type, through the shared idempotent producer. A send error
 * is kept for the thread that sent the event, so that each command loop sees only the errors of its own commands.
 */
public final class KafkaEventSink implements EventSink {
    private static final Logger log = LoggerFactory.getLogger(KafkaEventSink.class);

    private final Producer<byte[], byte[]> producer;
    private final ThreadLocal<AtomicReference<Exception>> lastError = ThreadLocal.withInitial(AtomicReference::new);

    public KafkaEventSink(Producer<byte[], byte[]> producer) {
        this.producer = producer;
    }

    @Override
    public void emit(ExecutorEvent event) {
        var topic = Topics.EXECUTOR_EVENTS;
        byte[] key = topic.keySerde().serializer().serialize(topic.name(), event.tpuType());
        byte[] value = topic.valueSerde().serializer().serialize(topic.name(), event);
        AtomicReference<Exception> senders = lastError.get();
        producer.send(new ProducerRecord<>(topic.name(), key, value), (metadata, error) -> {
            if (error != null) {
                senders.set(error);
                log.error("publishing {} for job {} failed", event.getClass().getSimpleName(), event.jobId(), error);
            }
        });
        log.debug("event {} job={} cluster={}", event.getClass().getSimpleName(), event.jobId(), event.clusterId());
    }

    /**
     * The last send error of an event this thread sent since its last call, if any (checked before committing
     * consumed commands, after a flush).
     */
    public Exception takeError() {
        return lastError.get().getAndSet(null);
    }
}
