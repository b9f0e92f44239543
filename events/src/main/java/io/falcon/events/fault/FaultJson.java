package io.falcon.events.fault;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import io.falcon.events.IsoInstant;
import io.falcon.events.Json;
import io.falcon.events.JsonSerde;
import io.falcon.events.Meta;
import java.io.IOException;
import java.time.Instant;
import java.util.Optional;

/**
 * Hand-written JSON for the records fault-streams reads or writes once per fault ({@link DeviceFault} in,
 * {@link FaultVerdict} out). Databinding and {@code DateTimeFormatter} were a fifth of the stream thread's time at
 * 16,000 faults/s; Jackson's streaming parser and generator, which replaced them, were still 11 % and 7 % of it in
 * a profile of {@code bench/faults mixed} near 50,000 faults/s. So there are tiers, each handing what it does not cover to the next: {@link FaultBytes} reads and
 * writes the plain common case straight over the bytes; Jackson's streaming API ({@link #STREAMING_DEVICE_FAULT},
 * {@link #STREAMING_VERDICT}) writes every other record and reads the well-formed rest; {@link JsonSerde} hands what
 * neither reads (a null, a number where a string belongs, a missing field, an instant with a zone offset) to the
 * mapper, so errors and lenient cases are the mapper's. Every tier writes byte for byte what the mapper writes (field
 * order of the records, absent optionals left out) and reads what the mapper would.
 */
public final class FaultJson {
    private static final JsonFactory FACTORY = Json.mapper().getFactory();

    private FaultJson() {}

    /** {@link DeviceFault} on Jackson's streaming API alone: the second tier (public for the benchmark). */
    public static final JsonSerde.FastJson<DeviceFault> STREAMING_DEVICE_FAULT = new JsonSerde.FastJson<>() {
        @Override
        public byte[] encode(DeviceFault fault) throws IOException {
            return write(g -> {
                g.writeStartObject();
                writeMeta(g, fault.meta());
                g.writeStringField("clusterId", fault.clusterId());
                g.writeStringField("nodeName", fault.nodeName());
                g.writeStringField("deviceName", fault.deviceName());
                g.writeStringField("faultCode", fault.faultCode());
                if (fault.faultLevel().isPresent()) {
                    g.writeStringField("faultLevel", fault.faultLevel().get());
                }
                if (fault.jobId().isPresent()) {
                    g.writeStringField("jobId", fault.jobId().get());
                }
                g.writeNumberField("receiveTimeMs", fault.receiveTimeMs());
                g.writeEndObject();
            });
        }

        @Override
        public Optional<DeviceFault> decode(byte[] bytes) {
            try (JsonParser p = FACTORY.createParser(bytes)) {
                return readFault(p);
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }
    };

    /** {@link FaultVerdict} on Jackson's streaming API alone: the second tier (public for the benchmark). */
    public static final JsonSerde.FastJson<FaultVerdict> STREAMING_VERDICT = new JsonSerde.FastJson<>() {
        @Override
        public byte[] encode(FaultVerdict v) throws IOException {
            return write(g -> {
                g.writeStartObject();
                writeMeta(g, v.meta());
                g.writeStringField("clusterId", v.clusterId());
                g.writeStringField("nodeName", v.nodeName());
                g.writeStringField("deviceName", v.deviceName());
                g.writeStringField("faultCode", v.faultCode());
                if (v.jobId().isPresent()) {
                    g.writeStringField("jobId", v.jobId().get());
                }
                g.writeNumberField("receiveTimeMs", v.receiveTimeMs());
                g.writeStringField("outcome", v.outcome().name());
                FaultVerdict.Evidence e = v.evidence();
                g.writeObjectFieldStart("evidence");
                g.writeNumberField("policyVersion", e.policyVersion());
                g.writeArrayFieldStart("peerDevices");
                for (String peer : e.peerDevices()) {
                    g.writeString(peer);
                }
                g.writeEndArray();
                g.writeNumberField("peerDeviceCount", e.peerDeviceCount());
                g.writeArrayFieldStart("recentFaultTimesMs");
                for (long t : e.recentFaultTimesMs()) {
                    g.writeNumber(t);
                }
                g.writeEndArray();
                g.writeStringField("explanation", e.explanation());
                g.writeEndObject();
                g.writeEndObject();
            });
        }

        @Override
        public Optional<FaultVerdict> decode(byte[] bytes) {
            return Optional.empty();
        }
    };

    /** {@link DeviceFault}: read and written over the bytes where it can, on the streaming API where not. */
    public static final JsonSerde.FastJson<DeviceFault> DEVICE_FAULT = new JsonSerde.FastJson<>() {
        @Override
        public byte[] encode(DeviceFault fault) throws IOException {
            Optional<byte[]> bytes = FaultBytes.writeFault(fault);
            return bytes.isPresent() ? bytes.get() : STREAMING_DEVICE_FAULT.encode(fault);
        }

        @Override
        public Optional<DeviceFault> decode(byte[] bytes) {
            Optional<DeviceFault> fault = FaultBytes.readFault(bytes);
            return fault.isPresent() ? fault : STREAMING_DEVICE_FAULT.decode(bytes);
        }
    };

    /** {@link FaultVerdict}: written over the bytes where it can; read by the mapper (fault-streams only writes them). */
    public static final JsonSerde.FastJson<FaultVerdict> VERDICT = new JsonSerde.FastJson<>() {
        @Override
        public byte[] encode(FaultVerdict verdict) throws IOException {
            Optional<byte[]> bytes = FaultBytes.writeVerdict(verdict);
            return bytes.isPresent() ? bytes.get() : STREAMING_VERDICT.encode(verdict);
        }

        @Override
        public Optional<FaultVerdict> decode(byte[] bytes) {
            return Optional.empty();
        }
    };

    private interface Writer {
        void write(JsonGenerator g) throws IOException;
    }

    /**
     * One growing buffer per thread (the stream thread encodes a verdict per fault): a fresh builder per record was
     * the largest allocation of the stream thread, and the result is copied out of it anyway.
     */
    private static final ThreadLocal<ByteArrayBuilder> BUFFER =
            ThreadLocal.withInitial(() -> new ByteArrayBuilder(1024));

    private static byte[] write(Writer writer) throws IOException {
        ByteArrayBuilder out = BUFFER.get();
        out.reset();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            writer.write(g);
            g.flush();
            return out.toByteArray();
        } finally {
            out.reset();
        }
    }

    private static void writeMeta(JsonGenerator g, Meta meta) throws IOException {
        g.writeObjectFieldStart("meta");
        g.writeStringField("eventId", meta.eventId());
        g.writeStringField("occurredAt", IsoInstant.format(meta.occurredAt()));
        g.writeStringField("producer", meta.producer());
        g.writeEndObject();
    }

    private static Optional<DeviceFault> readFault(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            return Optional.empty();
        }
        Optional<Meta> meta = Optional.empty();
        String cluster = null;
        String node = null;
        String device = null;
        String code = null;
        Optional<String> level = Optional.empty();
        Optional<String> job = Optional.empty();
        boolean hasReceiveTime = false;
        long receiveTimeMs = 0;
        int seen = 0;
        JsonToken token;
        while ((token = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            int bit = switch (name) {
                case "meta" -> 1;
                case "clusterId" -> 1 << 1;
                case "nodeName" -> 1 << 2;
                case "deviceName" -> 1 << 3;
                case "faultCode" -> 1 << 4;
                case "faultLevel" -> 1 << 5;
                case "jobId" -> 1 << 6;
                case "receiveTimeMs" -> 1 << 7;
                default -> 0;
            };
            if ((seen & bit) != 0) {
                // a repeated field: the mapper takes the last one, or fails once the record's constructor has run
                return Optional.empty();
            }
            seen |= bit;
            switch (name) {
                case "meta" -> {
                    meta = value == JsonToken.START_OBJECT ? readMeta(p) : Optional.empty();
                    if (meta.isEmpty()) {
                        return Optional.empty();
                    }
                }
                case "clusterId", "nodeName", "deviceName", "faultCode", "faultLevel", "jobId" -> {
                    if (value != JsonToken.VALUE_STRING) {
                        return Optional.empty();
                    }
                    String text = p.getText();
                    switch (name) {
                        case "clusterId" -> cluster = text;
                        case "nodeName" -> node = text;
                        case "deviceName" -> device = text;
                        case "faultCode" -> code = text;
                        case "faultLevel" -> level = Optional.of(text);
                        default -> job = Optional.of(text);
                    }
                }
                case "receiveTimeMs" -> {
                    if (value != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                        return Optional.empty();
                    }
                    receiveTimeMs = p.getLongValue();
                    hasReceiveTime = true;
                }
                default -> p.skipChildren();
            }
        }
        if (token != JsonToken.END_OBJECT
                || cluster == null
                || node == null
                || device == null
                || code == null
                || !hasReceiveTime) {
            return Optional.empty();
        }
        // no meta: the record derives its deterministic one, as it does for the mapper
        return Optional.of(new DeviceFault(meta.orElse(null), cluster, node, device, code, level, job, receiveTimeMs));
    }

    private static Optional<Meta> readMeta(JsonParser p) throws IOException {
        String eventId = null;
        Optional<Instant> occurredAt = Optional.empty();
        String producer = null;
        int seen = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            int bit = switch (name) {
                case "eventId" -> 1;
                case "occurredAt" -> 1 << 1;
                case "producer" -> 1 << 2;
                default -> 0;
            };
            if ((seen & bit) != 0) {
                // as for the fault: which of the two counts, or whether it fails, is the mapper's to say
                return Optional.empty();
            }
            seen |= bit;
            switch (name) {
                case "eventId", "occurredAt", "producer" -> {
                    if (value != JsonToken.VALUE_STRING) {
                        return Optional.empty();
                    }
                    switch (name) {
                        case "eventId" -> eventId = p.getText();
                        case "producer" -> producer = p.getText();
                        default -> {
                            occurredAt = IsoInstant.parse(p.getText());
                            if (occurredAt.isEmpty()) {
                                return Optional.empty();
                            }
                        }
                    }
                }
                default -> p.skipChildren();
            }
        }
        if (eventId == null || occurredAt.isEmpty() || producer == null) {
            return Optional.empty();
        }
        return Optional.of(new Meta(eventId, occurredAt.get(), producer));
    }
}
