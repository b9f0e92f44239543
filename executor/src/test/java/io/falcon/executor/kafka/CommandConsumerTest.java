package io.falcon.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.executor.Fixtures;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class CommandConsumerTest {
    private static final String TOPIC = Topics.EXECUTOR_COMMANDS.name();

    @Test
    void badRecordsGoToDeadLetterAndTheLoopGoesOnAndCommits() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        List<ExecutorCommand> handled = new ArrayList<>();
        ExecutorCommand good =
                Fixtures.ensurePool("job-1", "2x2x1", io.falcon.events.executor.SupplyMode.ON_DEMAND, null);
        ExecutorCommand poison =
                Fixtures.ensurePool("job-boom", "2x2x1", io.falcon.events.executor.SupplyMode.ON_DEMAND, null);
        CommandConsumer loop = new CommandConsumer(
                consumer,
                producer,
                new KafkaEventSink(producer),
                c -> {
                    if (c.jobId().equals("job-boom")) {
                        throw new IllegalStateException("boom");
                    }
                    handled.add(c);
                },
                Clock.systemUTC(),
                "executor-test");

        TopicPartition tp = new TopicPartition(TOPIC, 0);
        byte[] key = "c-1".getBytes(StandardCharsets.UTF_8);
        AtomicLong committed = new AtomicLong(-1);
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(tp));
            consumer.updateBeginningOffsets(Map.of(tp, 0L));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 0, key, "not json".getBytes(StandardCharsets.UTF_8)));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 1, key, bytes(good)));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 2, key, bytes(poison)));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 3, key, bytes(good)));
        });
        consumer.schedulePollTask(() -> {
            committed.set(consumer.committed(Set.of(tp)).get(tp).offset());
            loop.stop();
        });

        loop.run();

        assertThat(handled).containsExactly(good, good);
        assertThat(committed.get()).isEqualTo(4);
        List<DeadLetter> letters = producer.history().stream()
                .filter(r -> r.topic().equals(Topics.DEAD_LETTER.name()))
                .map(r -> Topics.DEAD_LETTER.valueSerde().deserializer().deserialize(r.topic(), r.value()))
                .toList();
        assertThat(letters).hasSize(2);
        assertThat(letters.get(0).reason()).startsWith("cannot decode executor command");
        assertThat(letters.get(0).offset()).isZero();
        assertThat(letters.get(0).key()).contains("c-1");
        assertThat(letters.get(1).reason()).contains("boom");
        assertThat(letters.get(1).offset()).isEqualTo(2);
    }

    @Test
    void aBatchIsCarriedOutWithoutTheCreationsItsOwnDeletionsUndoAndCommittedWithOneFlushAtTheEnd() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        List<ExecutorCommand> handled = new ArrayList<>();
        List<Long> committedWhenHandled = new ArrayList<>();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        CommandConsumer loop = new CommandConsumer(
                consumer,
                producer,
                new KafkaEventSink(producer),
                c -> {
                    handled.add(c);
                    var offset = consumer.committed(Set.of(tp)).get(tp);
                    committedWhenHandled.add(offset == null ? -1 : offset.offset());
                },
                Clock.systemUTC(),
                "executor-test");
        ExecutorCommand jobA = Fixtures.ensureJob("a", "2x2x1", Fixtures.spec());
        ExecutorCommand jobB = Fixtures.ensureJob("b", "2x2x1", Fixtures.spec());
        ExecutorCommand jobADeleted = Fixtures.deleteJob("a");
        ExecutorCommand jobC = Fixtures.ensureJob("c", "2x2x1", Fixtures.spec());
        byte[] key = "c-1".getBytes(StandardCharsets.UTF_8);
        AtomicLong committed = new AtomicLong(-1);
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(tp));
            consumer.updateBeginningOffsets(Map.of(tp, 0L));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 0, key, bytes(jobA)));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 1, key, bytes(jobB)));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 2, key, bytes(jobADeleted)));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 3, key, bytes(jobC)));
        });
        consumer.schedulePollTask(() -> {
            committed.set(consumer.committed(Set.of(tp)).get(tp).offset());
            loop.stop();
        });

        loop.run();

        assertThat(handled).containsExactly(jobB, jobADeleted, jobC);
        // the deletion ran only once all before it was committed; jobC ran in the same uncommitted stretch
        assertThat(committedWhenHandled).containsExactly(-1L, 2L, 2L);
        assertThat(committed.get()).isEqualTo(4);
    }

    @Test
    void withLanesCommandsOfDifferentResourcesRunAtOnceOneResourcesInOrderAndTheBatchIsCommittedAfterAll()
            throws Exception {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        // the creations of pools x and y each wait for the other to have started: only lanes at once get past it
        java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
        List<ExecutorCommand> handled = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean apart = new java.util.concurrent.atomic.AtomicBoolean();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        CommandConsumer loop = new CommandConsumer(
                        consumer,
                        producer,
                        new KafkaEventSink(producer),
                        c -> {
                            if (c instanceof ExecutorCommand.EnsureNodePool
                                    && !c.jobId().equals("a")) {
                                try {
                                    together.await(5, java.util.concurrent.TimeUnit.SECONDS);
                                } catch (Exception e) {
                                    apart.set(true);
                                }
                            }
                            handled.add(c);
                        },
                        Clock.systemUTC(),
                        "executor-test")
                .lanes(4);
        ExecutorCommand poolA = Fixtures.ensurePool("a", "2x2x1", io.falcon.events.executor.SupplyMode.ON_DEMAND, null);
        ExecutorCommand jobA = Fixtures.ensureJob("a", "2x2x1", Fixtures.spec());
        ExecutorCommand poolX = Fixtures.ensurePool("x", "2x2x1", io.falcon.events.executor.SupplyMode.ON_DEMAND, null);
        ExecutorCommand poolY = Fixtures.ensurePool("y", "2x2x1", io.falcon.events.executor.SupplyMode.ON_DEMAND, null);
        byte[] key = "c-1".getBytes(StandardCharsets.UTF_8);
        AtomicLong committed = new AtomicLong(-1);
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(tp));
            consumer.updateBeginningOffsets(Map.of(tp, 0L));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 0, key, bytes(poolA)));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 1, key, bytes(poolX)));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 2, key, bytes(jobA)));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 3, key, bytes(poolY)));
        });
        consumer.schedulePollTask(() -> {
            committed.set(consumer.committed(Set.of(tp)).get(tp).offset());
            loop.stop();
        });

        loop.run();

        assertThat(apart).as("pools x and y were created at once").isFalse();
        assertThat(handled).containsExactlyInAnyOrder(poolA, poolX, jobA, poolY);
        // job a's commands (its pool, then its Job on that pool) kept their order
        assertThat(handled.stream().filter(c -> c.jobId().equals("a")).toList()).containsExactly(poolA, jobA);
        assertThat(committed.get()).isEqualTo(4);
    }

    /**
     * Two executors share the command partitions (k8s/ deploys two): when one of them is revoked, the work in memory
     * that its commands started (a node pool's creation being stepped, with its retries) must stop, or it goes on
     * beside the new owner and re-creates what the new owner deleted.
     */
    @Test
    void aRevokedPartitionStopsTheWorkOfTheClustersWhoseCommandsCameFromIt() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        List<Set<String>> stopped = new ArrayList<>();
        CommandConsumer loop = new CommandConsumer(
                        consumer, producer, new KafkaEventSink(producer), c -> {}, Clock.systemUTC(), "executor-test")
                .onRevoked(stopped::add);
        TopicPartition tp0 = new TopicPartition(TOPIC, 0);
        TopicPartition tp1 = new TopicPartition(TOPIC, 1);
        ExecutorCommand poolOfC1 =
                Fixtures.ensurePool("job-1", "2x2x1", io.falcon.events.executor.SupplyMode.ON_DEMAND, null);
        var c2 = new io.falcon.events.executor.ClusterTarget(
                "c-2", "edge-2", "poc-tpu-partner", "us-central1", "v7x", "bucket-b");
        ExecutorCommand poolOfC2 = new ExecutorCommand.EnsureNodePool(
                Fixtures.meta(),
                "job-2",
                c2,
                "falcon-job-2",
                "v7x",
                "2x2x1",
                io.falcon.events.executor.SupplyMode.ON_DEMAND,
                java.util.Optional.empty());
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(tp0, tp1));
            consumer.updateBeginningOffsets(Map.of(tp0, 0L, tp1, 0L));
            consumer.addRecord(
                    new ConsumerRecord<>(TOPIC, 0, 0, "c-1".getBytes(StandardCharsets.UTF_8), bytes(poolOfC1)));
            consumer.addRecord(
                    new ConsumerRecord<>(TOPIC, 1, 0, "c-2".getBytes(StandardCharsets.UTF_8), bytes(poolOfC2)));
        });
        // the group gives partition 0 to the other executor
        consumer.schedulePollTask(() -> loop.assignment().onPartitionsRevoked(List.of(tp0)));
        consumer.schedulePollTask(loop::stop);

        loop.run();

        assertThat(stopped).containsExactly(Set.of("c-1"));
    }

    private static byte[] bytes(ExecutorCommand c) {
        return Topics.EXECUTOR_COMMANDS.valueSerde().serializer().serialize(TOPIC, c);
    }
}
