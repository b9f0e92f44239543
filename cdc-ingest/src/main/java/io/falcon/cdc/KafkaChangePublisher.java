package io.falcon.cdc;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.falcon.events.Topics;
import io.falcon.events.cdc.SchedulerRouting;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's ChangeConsumer: maps every record of a batch, sends the events (and dead letters) with the idempotent
 * producer, waits until Kafka acknowledged all of them, and only then marks the records processed so their offsets
 * may be committed. Each change goes to its table's topic (keyed by row id) and, when the scheduler must see it
 * ({@link SchedulerRouting}), to falcon.scheduler.input keyed by tpu_type, in binlog order: one producer sending in
 * that order keeps it per partition, so jobs and clusters changes of a TPU type reach the scheduler in the order the
 * database committed them. If any send fails nothing of the batch is marked and the batch fails, which stops the engine;
 * {@link CdcIngest} restarts it and Debezium delivers again from the last committed offset (at least once; the event
 * ids are deterministic so consumers can recognise duplicates).
 */
final class KafkaChangePublisher implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {
    private static final Logger log = LoggerFactory.getLogger(KafkaChangePublisher.class);

    private final Producer<byte[], byte[]> producer;
    private final CdcConfig config;
    private final Counters counters;

    KafkaChangePublisher(Producer<byte[], byte[]> producer, CdcConfig config, Counters counters) {
        this.producer = producer;
        this.config = config;
        this.counters = counters;
    }

    /** Counts shared across engine restarts, for health and tests. */
    static final class Counters {
        final AtomicLong jobs = new AtomicLong();
        final AtomicLong clusters = new AtomicLong();
        final AtomicLong deadLetters = new AtomicLong();
        final AtomicLong skipped = new AtomicLong();
        final AtomicLong batches = new AtomicLong();
    }

    @Override
    public void handleBatch(
            List<RecordChangeEvent<SourceRecord>> records,
            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        List<Future<RecordMetadata>> sends = new ArrayList<>(records.size());
        List<String> what = new ArrayList<>(records.size());
        int jobs = 0;
        int clusters = 0;
        int dead = 0;
        int skipped = 0;
        String first = null;
        String last = null;
        for (RecordChangeEvent<SourceRecord> event : records) {
            MappingDecision decision = RecordAdapter.decide(event.record());
            if (decision instanceof MappingDecision.PublishJob p) {
                String topic = config.jobsTopic();
                byte[] value = Topics.CDC_JOBS.valueSerde().serializer().serialize(topic, p.change());
                sends.add(producer.send(record(topic, p.key(), value)));
                String pos = p.change().source().binlogFile() + ":"
                        + p.change().source().binlogPosition() + ":"
                        + p.change().source().rowInEvent();
                what.add("jobs id=" + p.key() + " op=" + p.change().op() + " pos=" + pos);
                for (SchedulerRouting.Routed routed : SchedulerRouting.route(p.change())) {
                    sends.add(producer.send(schedulerInput(routed)));
                    what.add("scheduler input key=" + routed.key() + " job=" + p.key());
                }
                log.debug(
                        "cdc change table=jobs id={} op={} pos={} eventId={}",
                        p.key(),
                        p.change().op(),
                        pos,
                        p.change().meta().eventId());
                first = first == null ? pos : first;
                last = pos;
                jobs++;
            } else if (decision instanceof MappingDecision.PublishCluster p) {
                String topic = config.clustersTopic();
                byte[] value = Topics.CDC_CLUSTERS.valueSerde().serializer().serialize(topic, p.change());
                sends.add(producer.send(record(topic, p.key(), value)));
                String pos = p.change().source().binlogFile() + ":"
                        + p.change().source().binlogPosition() + ":"
                        + p.change().source().rowInEvent();
                what.add("clusters id=" + p.key() + " op=" + p.change().op() + " pos=" + pos);
                for (SchedulerRouting.Routed routed : SchedulerRouting.route(p.change())) {
                    sends.add(producer.send(schedulerInput(routed)));
                    what.add("scheduler input key=" + routed.key() + " cluster=" + p.key());
                }
                log.debug(
                        "cdc change table=clusters id={} op={} pos={} eventId={}",
                        p.key(),
                        p.change().op(),
                        pos,
                        p.change().meta().eventId());
                first = first == null ? pos : first;
                last = pos;
                clusters++;
            } else if (decision instanceof MappingDecision.Unmappable u) {
                String topic = config.deadLetterTopic();
                byte[] value = Topics.DEAD_LETTER.valueSerde().serializer().serialize(topic, u.letter());
                sends.add(producer.send(record(topic, u.key(), value)));
                what.add("dead-letter key=" + u.key());
                log.warn("cdc change dead-lettered key={} topic={}: {}", u.key(), topic, u.reason());
                dead++;
            } else if (decision instanceof MappingDecision.Skip s) {
                log.trace("cdc record skipped: {}", s.reason());
                skipped++;
            }
        }
        producer.flush();
        for (int i = 0; i < sends.size(); i++) {
            try {
                sends.get(i).get();
            } catch (ExecutionException e) {
                log.error(
                        "cdc batch not acknowledged by Kafka ({}): {}; nothing of the batch of {} is marked processed,"
                                + " the engine restarts and delivers it again",
                        what.get(i),
                        e.getCause().toString(),
                        records.size());
                throw new PublishException(
                        "Kafka did not acknowledge " + what.get(i) + ": " + e.getCause(), e.getCause());
            }
        }
        for (RecordChangeEvent<SourceRecord> event : records) {
            committer.markProcessed(event);
        }
        committer.markBatchFinished();
        counters.jobs.addAndGet(jobs);
        counters.clusters.addAndGet(clusters);
        counters.deadLetters.addAndGet(dead);
        counters.skipped.addAndGet(skipped);
        counters.batches.incrementAndGet();
        if (jobs + clusters + dead > 0) {
            log.info(
                    "cdc batch published jobs={} clusters={} deadLetters={} skipped={} positions={}..{}",
                    jobs,
                    clusters,
                    dead,
                    skipped,
                    first,
                    last);
        }
    }

    private static ProducerRecord<byte[], byte[]> schedulerInput(SchedulerRouting.Routed routed) {
        String topic = Topics.SCHEDULER_INPUT.name();
        return record(
                topic,
                routed.key(),
                Topics.SCHEDULER_INPUT.valueSerde().serializer().serialize(topic, routed.input()));
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String key, byte[] value) {
        return new ProducerRecord<>(topic, key.getBytes(java.nio.charset.StandardCharsets.UTF_8), value);
    }

    /** Kafka did not acknowledge a batch; the engine must stop and deliver it again. */
    static final class PublishException extends RuntimeException {
        PublishException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
