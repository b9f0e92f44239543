package io.falcon.faults.topology;

import io.falcon.events.JsonSerde;
import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.faults.core.JobWindow;
import io.falcon.faults.core.NodeIsolationState;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Compact binary encodings of what fault-streams keeps for itself (the held faults, in {@link HeldPage}s, the
 * fault times and the nodes' isolation state; earlier versions also wrote the internal falcon.fault-counting topic with it): a JSON encode and decode per hop was most of the cost per fault. Every value
 * starts with a format byte; values written as JSON by earlier versions (they start with '{') are still read, so
 * changelogs and in-flight records survive an upgrade.
 */
final class BinaryCodec {
    static final byte FAULT_V1 = 1;
    static final byte TIMES_V1 = 2;
    static final byte NODE_V1 = 4;
    static final byte ROUNDS_V1 = 5;
    private static final byte JSON_OBJECT = '{';
    private static final JsonSerde<NodeIsolationState> NODE_JSON = JsonSerde.of(NodeIsolationState.class);
    private static final JsonSerde<DeviceFault> FAULT_JSON = JsonSerde.of(DeviceFault.class);
    private static final JsonSerde<StoredValues.FaultTimes> TIMES_JSON = JsonSerde.of(StoredValues.FaultTimes.class);

    private BinaryCodec() {}

    static Serde<StoredValues.FaultTimes> faultTimes() {
        return Serdes.serdeFrom(
                (Serializer<StoredValues.FaultTimes>) (topic, times) -> times == null ? null : encode(times.times()),
                (Deserializer<StoredValues.FaultTimes>)
                        (topic, bytes) -> bytes == null ? null : new StoredValues.FaultTimes(decodeTimes(bytes)));
    }

    /**
     * A node's isolation state: written on every fault of an isolated device (its last fault time), so its JSON
     * encode was a tenth of the stream thread once most devices of a busy fleet were isolated.
     */
    static Serde<NodeIsolationState> nodeStates() {
        return Serdes.serdeFrom(
                (Serializer<NodeIsolationState>) (topic, node) -> node == null ? null : encode(node),
                (Deserializer<NodeIsolationState>) (topic, bytes) -> bytes == null ? null : decodeNode(bytes));
    }

    static byte[] encode(NodeIsolationState node) {
        ByteArrayOutputStream bytes =
                new ByteArrayOutputStream(64 + 48 * node.devices().size());
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeByte(NODE_V1);
            out.writeUTF(node.clusterId());
            out.writeUTF(node.nodeName());
            out.writeInt(node.devices().size());
            for (Map.Entry<String, NodeIsolationState.IsolatedDevice> device :
                    node.devices().entrySet()) {
                out.writeUTF(device.getKey());
                out.writeLong(device.getValue().lastFaultMs());
                out.writeInt(device.getValue().codes().size());
                for (NodeIsolation.DeviceIsolation code : device.getValue().codes()) {
                    out.writeUTF(code.faultCode());
                    out.writeUTF(code.faultLevel());
                    out.writeLong(code.lastSeparateTime());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
        }
        return bytes.toByteArray();
    }

    static NodeIsolationState decodeNode(byte[] bytes) {
        if (bytes.length > 0 && bytes[0] == JSON_OBJECT) {
            return NODE_JSON.fromBytes(bytes);
        }
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readByte() != NODE_V1) {
                throw new SerializationException("unknown node isolation encoding " + bytes[0]);
            }
            String cluster = in.readUTF();
            String nodeName = in.readUTF();
            int devices = in.readInt();
            Map<String, NodeIsolationState.IsolatedDevice> isolated = new TreeMap<>();
            for (int d = 0; d < devices; d++) {
                String device = in.readUTF();
                long lastFaultMs = in.readLong();
                int codes = in.readInt();
                List<NodeIsolation.DeviceIsolation> list = new ArrayList<>(codes);
                for (int c = 0; c < codes; c++) {
                    list.add(new NodeIsolation.DeviceIsolation(in.readUTF(), in.readUTF(), in.readLong()));
                }
                isolated.put(device, new NodeIsolationState.IsolatedDevice(list, lastFaultMs));
            }
            if (in.available() != 0) {
                throw new SerializationException(in.available() + " bytes after the node isolation state");
            }
            return new NodeIsolationState(cluster, nodeName, isolated);
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("undecodable node isolation state: " + e.getMessage(), e);
        }
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

    /** The decided rounds the job window keeps for one (cluster, job). */
    static byte[] encodeRounds(List<JobWindow.Round> rounds) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + 64 * rounds.size());
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeByte(ROUNDS_V1);
            out.writeInt(rounds.size());
            for (JobWindow.Round round : rounds) {
                out.writeUTF(round.code());
                out.writeLong(round.firstMs());
                out.writeUTF(round.firstDevice());
                out.writeLong(round.otherMs());
                out.writeUTF(round.otherDevice());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
        }
        return bytes.toByteArray();
    }

    static List<JobWindow.Round> decodeRounds(byte[] bytes) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readByte() != ROUNDS_V1) {
                throw new SerializationException("unknown decided rounds encoding " + bytes[0]);
            }
            int count = in.readInt();
            List<JobWindow.Round> rounds = new ArrayList<>(Math.min(count, 1024));
            for (int i = 0; i < count; i++) {
                rounds.add(new JobWindow.Round(in.readUTF(), in.readLong(), in.readUTF(), in.readLong(), in.readUTF()));
            }
            if (in.available() != 0) {
                throw new SerializationException(in.available() + " bytes after the decided rounds");
            }
            return rounds;
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("undecodable decided rounds: " + e.getMessage(), e);
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
