package io.falcon.testkit.kafka;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.DeadLetter;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** The topic drivers against Kafka's mock clients: what they decode, wait for and report. */
class TopicDriversTest {
    private static final String TOPIC = Topics.TASK_STATUS.name();
    private static final Duration SHORT = Duration.ofMillis(300);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private long offset;

    private TopicReader<String, TaskStatus> reader() {
        Node node = new Node(0, "localhost", 9092);
        consumer.updatePartitions(
                TOPIC, List.of(new PartitionInfo(TOPIC, 0, node, new Node[] {node}, new Node[] {node})));
        consumer.updateBeginningOffsets(Map.of(new TopicPartition(TOPIC, 0), 0L));
        return new TopicReader<>(consumer, Topics.TASK_STATUS, TOPIC);
    }

    private void arrives(String key, byte[] value) {
        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, offset++, key.getBytes(StandardCharsets.UTF_8), value));
    }

    private void arrives(TaskStatus status) {
        arrives(status.jobId(), Topics.TASK_STATUS.valueSerde().toBytes(status));
    }

    @Test
    void readsFromTheBeginningDecodingWithTheCatalogsSerdesAndFailsOnWhatItCannotDecode() {
        try (TopicReader<String, TaskStatus> reader = reader()) {
            arrives(taskStatus("j1").build());
            arrives("garbled", "{not json".getBytes(StandardCharsets.UTF_8));

            assertThatThrownBy(() -> reader.awaitValues("one status", SHORT, v -> v.size() == 1))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith("1 records of " + TOPIC + " could not be decoded");
        }
    }

    @Test
    void aReaderOfASharedTopicSkipsWhatItCannotDecode() {
        try (TopicReader<String, TaskStatus> reader = reader().skippingUndecodable()) {
            arrives(taskStatus("j1").build());
            arrives("garbled", "{not json".getBytes(StandardCharsets.UTF_8));
            arrives(taskStatus("j2").status(Status.Running).build());

            List<TaskStatus> values = reader.awaitValues("two statuses", SHORT, v -> v.size() == 2);
            assertThat(values).extracting(TaskStatus::jobId).containsExactly("j1", "j2");
            assertThat(reader.records()).extracting(ConsumerRecord::key).containsExactly("j1", "j2");
        }
    }

    @Test
    void waitsForTheFirstMatchOrTheNextOneAfterAMark() {
        try (TopicReader<String, TaskStatus> reader = reader()) {
            arrives(taskStatus("j1").version(1).build());
            assertThat(reader.awaitValue("j1", SHORT, s -> s.jobId().equals("j1"))
                            .version())
                    .isEqualTo(1);
            int mark = reader.size();
            arrives(taskStatus("j1").version(2).build());
            assertThat(reader.awaitValueAfter(
                                    mark, "the next j1", SHORT, s -> s.jobId().equals("j1"))
                            .version())
                    .isEqualTo(2);
            assertThat(reader.awaitRecord("j1's record", SHORT, r -> r.key().equals("j1"))
                            .offset())
                    .isZero();
        }
    }

    @Test
    void collectsMatchingValuesUntilEnoughArrivedAndOtherwiseFailsWithWhatItRead() {
        try (TopicReader<String, TaskStatus> reader = reader().skippingUndecodable()) {
            arrives(taskStatus("j1").build());
            arrives(taskStatus("other").build());
            arrives("garbled", "{not json".getBytes(StandardCharsets.UTF_8));
            arrives(taskStatus("j1").version(2).build());
            assertThat(reader.awaitMatching("two of j1", SHORT, s -> s.jobId().equals("j1"), 2))
                    .extracting(TaskStatus::version)
                    .containsExactly(1L, 2L);
            assertThat(reader.awaitRecords(
                            "the record of other", SHORT, r -> r.key().equals("other"), 1))
                    .singleElement()
                    .satisfies(r -> assertThat(r.offset()).isEqualTo(1));

            assertThatThrownBy(() -> reader.awaitMatching(
                            "three of j1", SHORT, s -> s.jobId().equals("j1"), 3))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining(
                            "waiting for three of j1; last state: read 3 records of " + TOPIC + " (and 1 undecodable")
                    .hasMessageContaining("other=TaskStatus[");
        }
    }

    @Test
    void theProducerSendsWithTheCatalogsSerdesAndRawBytesAndTombstonesAsTheyAre() {
        MockProducer<byte[], byte[]> mock =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        try (TopicProducer<String, TaskStatus> producer = new TopicProducer<>(mock, Topics.TASK_STATUS, "mine")) {
            TaskStatus status = taskStatus("j1").build();
            producer.send("j1", status);
            producer.sendRaw("j2", "{not json".getBytes(StandardCharsets.UTF_8));
            producer.tombstone("j3");

            assertThat(mock.history()).extracting(r -> r.topic()).containsOnly("mine");
            assertThat(mock.history())
                    .extracting(r -> new String(r.key(), StandardCharsets.UTF_8))
                    .containsExactly("j1", "j2", "j3");
            assertThat(Topics.TASK_STATUS
                            .valueSerde()
                            .fromBytes(mock.history().get(0).value()))
                    .isEqualTo(status);
            assertThat(new String(mock.history().get(1).value(), StandardCharsets.UTF_8))
                    .isEqualTo("{not json");
            assertThat(mock.history().get(2).value()).isNull();
        }
    }

    @Test
    void deadLettersAreToldApartByTheirSourceTopicAndShowTheirPayload() {
        DeadLetter mine = DeadLetter.of(
                Meta.of("test", Instant.EPOCH),
                "my-topic",
                0,
                7,
                null,
                "{\"type\":\"Mystery\"}".getBytes(StandardCharsets.UTF_8),
                "cannot decode",
                null);
        DeadLetter theirs = DeadLetter.of(
                Meta.of("test", Instant.EPOCH), "their-topic", 0, 7, null, new byte[0], "cannot decode", null);
        assertThat(DeadLetters.from("my-topic")).accepts(mine).rejects(theirs);
        assertThat(DeadLetters.payloadText(mine)).isEqualTo("{\"type\":\"Mystery\"}");
    }
}
