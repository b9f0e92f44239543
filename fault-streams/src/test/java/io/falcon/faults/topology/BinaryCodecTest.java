package io.falcon.faults.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.JsonSerde;
import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
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
}
