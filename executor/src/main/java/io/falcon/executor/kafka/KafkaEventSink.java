package io.falcon.executor.kafka;

import io.falcon.events.Topics;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.EventSink;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes executor events to EXECUTOR_EVENTS keyed by tpu_type, through the shared idempotent producer. A send error
 * is kept for the thread that sent the event, so that each command loop sees only the errors of its own commands.
 *
 * <p>It also keeps what a heartbeat may claim ({@link #outstandingSince}): the oldest send not yet acknowledged by the
 * broker, and the oldest send that failed for good since the last full report, so that no heartbeat says a cluster is
 * observed past a report that is not on the topic.
 */
public final class KafkaEventSink implements EventSink {
    private static final Logger log = LoggerFactory.getLogger(KafkaEventSink.class);

    private final Producer<byte[], byte[]> producer;
    private final Clock clock;
    private final ThreadLocal<AtomicReference<Exception>> lastError = ThreadLocal.withInitial(AtomicReference::new);
    private final AtomicLong sequence = new AtomicLong();
    /** Sends not yet acknowledged, with when they were sent (this process's clock). */
    private final ConcurrentHashMap<Long, Instant> inFlight = new ConcurrentHashMap<>();
    /** The oldest send that failed for good and was not reported again since. */
    private final AtomicReference<Optional<Instant>> failedSince = new AtomicReference<>(Optional.empty());

    public KafkaEventSink(Producer<byte[], byte[]> producer) {
        this(producer, Clock.systemUTC());
    }

    public KafkaEventSink(Producer<byte[], byte[]> producer, Clock clock) {
        this.producer = producer;
        this.clock = clock;
    }

    @Override
    public void emit(ExecutorEvent event) {
        var topic = Topics.EXECUTOR_EVENTS;
        byte[] key = topic.keySerde().serializer().serialize(topic.name(), event.tpuType());
        byte[] value = topic.valueSerde().serializer().serialize(topic.name(), event);
        send(new ProducerRecord<>(topic.name(), key, value), event);
        log.debug("event {} job={} cluster={}", event.getClass().getSimpleName(), event.jobId(), event.clusterId());
    }

    /** Sends the event to every partition of the topic (a heartbeat: every scheduler task must read it). */
    public void broadcast(ExecutorEvent event) {
        var topic = Topics.EXECUTOR_EVENTS;
        byte[] key = topic.keySerde().serializer().serialize(topic.name(), event.tpuType());
        byte[] value = topic.valueSerde().serializer().serialize(topic.name(), event);
        for (PartitionInfo partition : producer.partitionsFor(topic.name())) {
            send(new ProducerRecord<>(topic.name(), partition.partition(), key, value), event);
        }
    }

    private void send(ProducerRecord<byte[], byte[]> record, ExecutorEvent event) {
        AtomicReference<Exception> senders = lastError.get();
        long id = sequence.incrementAndGet();
        Instant sentAt = clock.instant();
        inFlight.put(id, sentAt);
        producer.send(record, (metadata, error) -> {
            inFlight.remove(id);
            if (error != null) {
                senders.set(error);
                failedSince.accumulateAndGet(
                        Optional.of(sentAt), (a, b) -> a.isPresent() && a.get().isBefore(b.get()) ? a : b);
                log.error("publishing {} for job {} failed", event.getClass().getSimpleName(), event.jobId(), error);
            }
        });
    }

    /**
     * The last send error of an event this thread sent since its last call, if any (checked before committing
     * consumed commands, after a flush).
     */
    public Exception takeError() {
        return lastError.get().getAndSet(null);
    }

    /**
     * The calling thread's send errors, to be taken later by another thread (after a flush): a command lane's, taken
     * by the loop that commits what the lane carried out.
     */
    public java.util.function.Supplier<Exception> errorsOfThisThread() {
        AtomicReference<Exception> senders = lastError.get();
        return () -> senders.getAndSet(null);
    }

    /** Waits until every send so far is acknowledged or failed. */
    public void flush() {
        producer.flush();
    }

    /** A send failed for good and nothing was reported again since: every state must be reported again. */
    public Optional<Instant> failedSince() {
        return failedSince.get();
    }

    /** Everything was reported again from {@code since} on: failures of sends before it are made good. */
    public void reportedAgainFrom(Instant since) {
        failedSince.updateAndGet(f -> f.filter(at -> !at.isBefore(since)));
    }

    /** The oldest send that is not on the topic: not acknowledged yet, or failed and not made good. */
    public Optional<Instant> outstandingSince() {
        Optional<Instant> oldest = inFlight.values().stream().min(Instant::compareTo);
        Optional<Instant> failed = failedSince.get();
        if (oldest.isEmpty()) {
            return failed;
        }
        return failed.filter(f -> f.isBefore(oldest.get())).or(() -> oldest);
    }
}
