package io.falcon.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.SharedKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** Records are marked processed only after Kafka acknowledged the whole batch. */
class KafkaChangePublisherTest {
    private final CdcConfig config = CdcConfig.from(Map.of(
            CdcIngestKeys.DB_HOST.key(),
            "h",
            CdcIngestKeys.DB_USER.key(),
            "u",
            CdcIngestKeys.DB_NAME.key(),
            "db",
            SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(),
            "k:1"));

    private static final class Committer implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
        final List<RecordChangeEvent<SourceRecord>> marked = new ArrayList<>();
        int batchesFinished;

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record) {
            marked.add(record);
        }

        @Override
        public void markBatchFinished() {
            batchesFinished++;
        }

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets offsets) {
            marked.add(record);
        }

        @Override
        public DebeziumEngine.Offsets buildOffsets() {
            Map<String, Object> m = new HashMap<>();
            return m::put;
        }
    }

    private static RecordChangeEvent<SourceRecord> event(SourceRecord r) {
        return () -> r;
    }

    private static List<RecordChangeEvent<SourceRecord>> batch() {
        Struct update = new Struct(RecordAdapterTest.ENVELOPE)
                .put("before", RecordAdapterTest.jobRow("j1", "Pending", null))
                .put("after", RecordAdapterTest.jobRow("j1", "Aborting", null))
                .put("source", RecordAdapterTest.source("false", 100, 0))
                .put("op", "u")
                .put("ts_ms", 5L);
        Struct unknownTable = new Struct(RecordAdapterTest.ENVELOPE)
                .put("after", RecordAdapterTest.jobRow("u1", "Pending", null))
                .put("source", RecordAdapterTest.source("false", 200, 0).put("table", "users"))
                .put("op", "c");
        SourceRecord tombstone = new SourceRecord(Map.of(), Map.of(), "falcon.db.jobs", null, null, null, null, null);
        return List.of(
                event(RecordAdapterTest.record(update)),
                event(tombstone),
                event(RecordAdapterTest.record(unknownTable)));
    }

    @Test
    void acknowledgedBatchIsMarkedAfterPublishingEventsAndDeadLetters() throws Exception {
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaChangePublisher.Counters counters = new KafkaChangePublisher.Counters();
        Committer committer = new Committer();
        List<RecordChangeEvent<SourceRecord>> batch = batch();

        new KafkaChangePublisher(producer, config, counters).handleBatch(batch, committer);

        List<ProducerRecord<byte[], byte[]>> sent = producer.history();
        assertThat(sent).hasSize(3);
        assertThat(sent.get(0).topic()).isEqualTo("falcon.cdc.jobs");
        assertThat(new String(sent.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("j1");
        JobChange change = Topics.CDC_JOBS
                .valueSerde()
                .deserializer()
                .deserialize("t", sent.get(0).value());
        assertThat(change.op()).isEqualTo(ChangeOp.UPDATE);
        assertThat(change.after().orElseThrow().status()).isEqualTo("Aborting");
        // the abort is an upper component's write: it goes to the scheduler too, keyed by tpu_type, right after
        assertThat(sent.get(1).topic()).isEqualTo("falcon.scheduler.input");
        assertThat(new String(sent.get(1).key(), StandardCharsets.UTF_8))
                .isEqualTo(change.after().orElseThrow().tpuType());
        assertThat(Topics.SCHEDULER_INPUT
                        .valueSerde()
                        .deserializer()
                        .deserialize("t", sent.get(1).value()))
                .isInstanceOf(io.falcon.events.SchedulerInput.JobChanged.class);
        assertThat(sent.get(2).topic()).isEqualTo("falcon.dead-letter");
        DeadLetter letter = Topics.DEAD_LETTER
                .valueSerde()
                .deserializer()
                .deserialize("t", sent.get(2).value());
        assertThat(letter.reason()).contains("unknown table db.users").contains("mysql-bin.000002:200:0");

        assertThat(committer.marked).containsExactlyElementsOf(batch);
        assertThat(committer.batchesFinished).isEqualTo(1);
        assertThat(counters.jobs.get()).isEqualTo(1);
        assertThat(counters.deadLetters.get()).isEqualTo(1);
        assertThat(counters.skipped.get()).isEqualTo(1);
    }

    @Test
    void whenKafkaDoesNotAcknowledgeNothingIsMarkedAndTheBatchFails() {
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer()) {
                    @Override
                    public synchronized void flush() {
                        completeNext();
                        completeNext();
                        errorNext(new TimeoutException("no ack from the leader"));
                    }
                };
        Committer committer = new Committer();

        assertThatThrownBy(() -> new KafkaChangePublisher(producer, config, new KafkaChangePublisher.Counters())
                        .handleBatch(batch(), committer))
                .isInstanceOf(KafkaChangePublisher.PublishException.class)
                .hasMessageContaining("dead-letter")
                .hasMessageContaining("no ack from the leader");
        assertThat(committer.marked).isEmpty();
        assertThat(committer.batchesFinished).isZero();
    }

    @Test
    void whenTheProducerRefusesToSendNothingIsMarked() {
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        producer.sendException = new org.apache.kafka.common.KafkaException("producer closed");
        Committer committer = new Committer();

        assertThatThrownBy(() -> new KafkaChangePublisher(producer, config, new KafkaChangePublisher.Counters())
                        .handleBatch(batch(), committer))
                .hasMessageContaining("producer closed");
        assertThat(committer.marked).isEmpty();
        assertThat(committer.batchesFinished).isZero();
    }
}
