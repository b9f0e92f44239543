package io.falcon.faults.topology;

import io.falcon.events.JsonSerde;
import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Compact binary encodings of what fault-streams keeps for itself (the held faults, in {@link HeldPage}s, and the
 * fault times; earlier versions also wrote the internal falcon.fault-counting topic with it): a JSON encode and decode per hop was most of the cost per fault. Every value
 * starts with a format byte; values written as JSON by earlier versions (they start with '{') are still read, so
 * changelogs and in-flight records survive an upgrade.
 */
final class BinaryCodec {
    static final byte FAULT_V1 = 1;
    static final byte TIMES_V1 = 2;
    private static final byte JSON_OBJECT = '{';
    private static final JsonSerde<DeviceFault> FAULT_JSON = JsonSerde.of(DeviceFault.class);
    private static final JsonSerde<StoredValues.FaultTimes> TIMES_JSON = JsonSerde.of(StoredValues.FaultTimes.class);

    private BinaryCodec() {}

    static Serde<StoredValues.FaultTimes> faultTimes() {
        return Serdes.serdeFrom(
                (Serializer<StoredValues.FaultTimes>) (topic, times) -> times == null ? null : encode(times.times()),
                (Deserializer<StoredValues.FaultTimes>)
                        (topic, bytes) -> bytes == null ? null : new StoredValues.FaultTimes(decodeTimes(bytes)));
    }

    static byte[] encode(DeviceFault fault) {
        byte[][] strings = {
            utf8(fault.meta().eventId()), utf8(fault.meta().producer()), utf8(fault.clusterId()),
            utf8(fault.nodeName()), utf8(fault.deviceName()), utf8(fault.faultCode()),
            utf8(fault.faultLevel().orElse("")), utf8(fault.jobId().orElse(""))
        };
        int size = 1 + 8 + 8;
        for (byte[] s : strings) {
            size += 4 + s.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(FAULT_V1);
        out.putLong(fault.meta().occurredAt().toEpochMilli());
        out.putLong(fault.receiveTimeMs());
        for (byte[] s : strings) {
            out.putInt(s.length);
            out.put(s);
        }
        return out.array();
    }

    static DeviceFault decodeFault(byte[] bytes) {
        if (bytes.length > 0 && bytes[0] == JSON_OBJECT) {
            return FAULT_JSON.fromBytes(bytes);
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            if (in.get() != FAULT_V1) {
                throw new SerializationException("unknown fault encoding " + bytes[0]);
            }
            long occurredAt = in.getLong();
            long receiveTimeMs = in.getLong();
            String eventId = string(in);
            String producer = string(in);
            String cluster = string(in);
            String node = string(in);
            String device = string(in);
            String code = string(in);
            String level = string(in);
            String job = string(in);
            return new DeviceFault(
                    new Meta(eventId, Instant.ofEpochMilli(occurredAt), producer),
                    cluster,
                    node,
                    device,
                    code,
                    Optional.of(level).filter(s -> !s.isEmpty()),
                    Optional.of(job).filter(s -> !s.isEmpty()),
                    receiveTimeMs);
        } catch (RuntimeException e) {
            throw new SerializationException("undecodable fault: " + e.getMessage(), e);
        }
    }

    static byte[] encode(List<Long> times) {
        ByteBuffer out = ByteBuffer.allocate(1 + 8 * times.size());
        out.put(TIMES_V1);
        times.forEach(out::putLong);
        return out.array();
    }

    static List<Long> decodeTimes(byte[] bytes) {
        if (bytes.length > 0 && bytes[0] == JSON_OBJECT) {
            return TIMES_JSON.fromBytes(bytes).times();
        }
        if (bytes.length == 0 || bytes[0] != TIMES_V1 || (bytes.length - 1) % 8 != 0) {
            throw new SerializationException("undecodable fault times of " + bytes.length + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, 1, bytes.length - 1);
        List<Long> times = new ArrayList<>((bytes.length - 1) / 8);
        while (in.hasRemaining()) {
            times.add(in.getLong());
        }
        return times;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(ByteBuffer in) {
        int length = in.getInt();
        String s = new String(in.array(), in.arrayOffset() + in.position(), length, StandardCharsets.UTF_8);
        in.position(in.position() + length);
        return s;
    }
}
