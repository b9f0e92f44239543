package io.falcon.faults.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.JsonSerde;
import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.faults.core.JobWindow;
import io.falcon.faults.core.NodeIsolationState;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class BinaryCodecTest {
    private static final DeviceFault FAULT = new DeviceFault(
            new Meta("id-1", Instant.ofEpochMilli(1234), "collector"),
            "c1",
            "节点-1",
            "Ascend910-0",
            "8C084E00",
            Optional.of("NotHandleFault"),
            Optional.of("job-42"),
            1770811685650L);

    @Test
    void aFaultRoundTripsAndIsSmallerThanItsJson() {
        byte[] bytes = BinaryCodec.encode(FAULT);
        assertThat(BinaryCodec.decodeFault(bytes)).isEqualTo(FAULT);
        DeviceFault jobless = DeviceFault.of("c1", "n1", "d0", "A", Optional.empty(), 5);
        assertThat(BinaryCodec.decodeFault(BinaryCodec.encode(jobless))).isEqualTo(jobless);
        assertThat(bytes.length).isLessThan(JsonSerde.of(DeviceFault.class).toBytes(FAULT).length);
    }

    @Test
    void valuesWrittenAsJsonByEarlierVersionsAreStillRead() {
        assertThat(BinaryCodec.decodeFault(JsonSerde.of(DeviceFault.class).toBytes(FAULT)))
                .isEqualTo(FAULT);
        byte[] times =
                JsonSerde.of(StoredValues.FaultTimes.class).toBytes(new StoredValues.FaultTimes(List.of(1L, 2L)));
        assertThat(BinaryCodec.decodeTimes(times)).containsExactly(1L, 2L);
    }

    @Test
    void faultTimesRoundTripAndGarbageIsASerializationError() {
        assertThat(BinaryCodec.decodeTimes(BinaryCodec.encode(List.of(3L, Long.MAX_VALUE))))
                .containsExactly(3L, Long.MAX_VALUE);
        assertThatThrownBy(() -> BinaryCodec.decodeFault(new byte[] {9, 1, 2}))
                .isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> BinaryCodec.decodeTimes(new byte[] {2, 1})).isInstanceOf(SerializationException.class);
    }

    private static final NodeIsolationState NODE = NodeIsolationState.empty("c1", "节点-1")
            .isolate("Ascend910-0", "8C084E00", 1_770_811_685_650L)
            .isolate("Ascend910-0", "80E01801", 1_770_811_700_000L)
            .isolate("Ascend910-3", "8C084E00", 1_770_811_690_000L)
            .faultSeen("Ascend910-3", 1_770_811_699_000L);

    @Test
    void aNodeIsolationStateRoundTripsAndIsSmallerThanItsJson() {
        byte[] bytes = BinaryCodec.encode(NODE);
        assertThat(BinaryCodec.decodeNode(bytes)).isEqualTo(NODE);
        NodeIsolationState empty = NodeIsolationState.empty("c1", "n1");
        assertThat(BinaryCodec.decodeNode(BinaryCodec.encode(empty))).isEqualTo(empty);
        assertThat(bytes.length)
                .isLessThan(JsonSerde.of(NodeIsolationState.class).toBytes(NODE).length);
    }

    @Test
    void nodeStatesWrittenAsJsonByEarlierVersionsAreStillRead() {
        byte[] json = JsonSerde.of(NodeIsolationState.class).toBytes(NODE);
        assertThat(BinaryCodec.decodeNode(json)).isEqualTo(NODE);
        assertThat(BinaryCodec.nodeStates().deserializer().deserialize("t", json))
                .isEqualTo(NODE);
    }

    @Test
    void aTruncatedOrUnknownNodeStateIsASerializationError() {
        byte[] bytes = BinaryCodec.encode(NODE);
        assertThatThrownBy(() -> BinaryCodec.decodeNode(java.util.Arrays.copyOf(bytes, bytes.length - 3)))
                .isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> BinaryCodec.decodeNode(java.util.Arrays.copyOf(bytes, bytes.length + 1)))
                .isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> BinaryCodec.decodeNode(new byte[] {9, 0})).isInstanceOf(SerializationException.class);
    }

    @Test
    void decidedRoundsRoundTripAndGarbageIsASerializationError() {
        List<JobWindow.Round> rounds = List.of(
                new JobWindow.Round("8C084E00", 1_770_811_685_650L, "节点-1/Ascend910-0", 1_770_811_685_700L, "n2/d3"),
                new JobWindow.Round("80E01801", 1_770_811_690_000L, "n1/d0", JobWindow.Round.NO_OTHER, ""));
        assertThat(BinaryCodec.decodeRounds(BinaryCodec.encodeRounds(rounds))).isEqualTo(rounds);
        assertThat(BinaryCodec.decodeRounds(BinaryCodec.encodeRounds(List.of())))
                .isEmpty();
        byte[] bytes = BinaryCodec.encodeRounds(rounds);
        assertThatThrownBy(() -> BinaryCodec.decodeRounds(java.util.Arrays.copyOf(bytes, bytes.length - 3)))
                .isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> BinaryCodec.decodeRounds(new byte[] {4, 0, 0, 0, 0}))
                .isInstanceOf(SerializationException.class);
    }
}
