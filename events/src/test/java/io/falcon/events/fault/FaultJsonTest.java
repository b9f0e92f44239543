package io.falcon.events.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.IsoInstant;
import io.falcon.events.Json;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

/** The hand-written fault JSON against the mapper it stands in for: same bytes out, same records in. */
class FaultJsonTest {
    private static final String ALPHABET = "abcXYZ019-_/.:\"\\\n\t\u0001é中😀 ";

    @Test
    void instantsAreFormattedAsTheJdkDoesAndParsedBack() {
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            long seconds = random.nextLong(-62_167_219_200L, 253_402_300_800L);
            int nanos = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1000;
                default -> random.nextInt(1_000_000_000);
            };
            Instant instant = Instant.ofEpochSecond(seconds, nanos);
            assertThat(IsoInstant.format(instant)).isEqualTo(instant.toString());
            assertThat(IsoInstant.parse(instant.toString())).contains(instant);
        }
        assertThat(IsoInstant.format(Instant.ofEpochSecond(253_402_300_800L)))
                .isEqualTo(Instant.ofEpochSecond(253_402_300_800L).toString());
        assertThat(IsoInstant.parse("2026-02-11T12:08:05.5Z")).contains(Instant.parse("2026-02-11T12:08:05.5Z"));
        for (String other : List.of(
                "2026-02-11T12:08:05+01:00",
                "2026-02-30T12:08:05Z",
                "2026-02-11T24:08:05Z",
                "2026-02-11T12:08:60Z",
                "2026-02-11T12:08:05.Z",
                "2026-02-11T12:08:05.1234567890Z",
                "2026-02-11 12:08:05Z",
                "2026-0a-11T12:08:05Z")) {
            assertThat(IsoInstant.parse(other)).as(other).isEmpty();
        }
    }

    @Test
    void faultsAndVerdictsAreWrittenByteForByteAsTheMapperWritesThem() throws Exception {
        Random random = new Random(11);
        for (int i = 0; i < 5_000; i++) {
            DeviceFault fault = fault(random);
            assertThat(new String(FaultJson.DEVICE_FAULT.encode(fault), StandardCharsets.UTF_8))
                    .isEqualTo(new String(Json.mapper().writeValueAsBytes(fault), StandardCharsets.UTF_8));
            FaultVerdict verdict = verdict(random, fault);
            assertThat(new String(Topics.FAULT_VERDICTS.valueSerde().toBytes(verdict), StandardCharsets.UTF_8))
                    .isEqualTo(new String(Json.mapper().writeValueAsBytes(verdict), StandardCharsets.UTF_8));
        }
    }

    @Test
    void whatTheMapperWritesIsReadBackByTheFastPath() throws Exception {
        Random random = new Random(13);
        for (int i = 0; i < 5_000; i++) {
            DeviceFault fault = fault(random);
            byte[] bytes = Json.mapper().writeValueAsBytes(fault);
            assertThat(FaultJson.DEVICE_FAULT.decode(bytes)).contains(fault);
        }
    }

    @Test
    void everyOtherShapeReadsAsTheMapperReadsIt() throws Exception {
        var serde = Topics.DEVICE_FAULTS.valueSerde();
        List<String> shapes = List.of(
                // fields in another order, unknown fields (nested too), no meta (derived), no optionals
                "{\"receiveTimeMs\":5,\"faultCode\":\"F\",\"x\":{\"a\":[1,{\"b\":null}]},\"deviceName\":\"d\","
                        + "\"nodeName\":\"n\",\"clusterId\":\"c\",\"y\":[]}",
                // nulls for optionals and for meta
                "{\"meta\":null,\"clusterId\":\"c\",\"nodeName\":\"n\",\"deviceName\":\"d\",\"faultCode\":\"F\","
                        + "\"faultLevel\":null,\"jobId\":null,\"receiveTimeMs\":5}",
                // a blank job id (no job)
                "{\"clusterId\":\"c\",\"nodeName\":\"n\",\"deviceName\":\"d\",\"faultCode\":\"F\",\"jobId\":\" \","
                        + "\"receiveTimeMs\":5}",
                // an instant with an offset, and one as epoch seconds
                "{\"meta\":{\"eventId\":\"e\",\"occurredAt\":\"2026-02-11T12:08:05.650+01:00\",\"producer\":\"p\"},"
                        + "\"clusterId\":\"c\",\"nodeName\":\"n\",\"deviceName\":\"d\",\"faultCode\":\"F\","
                        + "\"receiveTimeMs\":5}",
                "{\"meta\":{\"eventId\":\"e\",\"occurredAt\":1770811685.65,\"producer\":\"p\"},"
                        + "\"clusterId\":\"c\",\"nodeName\":\"n\",\"deviceName\":\"d\",\"faultCode\":\"F\","
                        + "\"receiveTimeMs\":5}",
                // the receive time as a string
                "{\"clusterId\":\"c\",\"nodeName\":\"n\",\"deviceName\":\"d\",\"faultCode\":\"F\","
                        + "\"receiveTimeMs\":\"5\"}");
        for (String shape : shapes) {
            byte[] bytes = shape.getBytes(StandardCharsets.UTF_8);
            assertThat(serde.fromBytes(bytes)).as(shape).isEqualTo(Json.mapper().readValue(bytes, DeviceFault.class));
        }
        assertThat(FaultJson.DEVICE_FAULT.decode(shapes.get(0).getBytes(StandardCharsets.UTF_8)))
                .as("the common case takes the fast path")
                .isPresent();
        for (String bad : List.of(
                "{\"clusterId\":\"c\",\"nodeName\":\"n\",\"deviceName\":\"d\",\"faultCode\":\"F\"}",
                "{\"clusterId\":\"c\",\"nodeName\":\"n\",\"deviceName\":\"d\",\"faultCode\":\"F\",\"receiveTimeMs\":",
                "[1,2]",
                "not json")) {
            assertThat(FaultJson.DEVICE_FAULT.decode(bad.getBytes(StandardCharsets.UTF_8)))
                    .as(bad)
                    .isEmpty();
            assertThatThrownBy(() -> serde.fromBytes(bad.getBytes(StandardCharsets.UTF_8)))
                    .as(bad)
                    .isInstanceOf(SerializationException.class);
        }
    }

    @Test
    void aRepeatedFieldReadsAsTheMapperReadsIt() throws Exception {
        var serde = Topics.DEVICE_FAULTS.valueSerde();
        String meta = "\"meta\":{\"eventId\":\"e\",\"occurredAt\":\"2026-02-11T12:08:05.650Z\",\"producer\":\"p\"}";
        String all = meta + ",\"clusterId\":\"c\",\"nodeName\":\"n\",\"deviceName\":\"d\",\"faultCode\":\"F\","
                + "\"faultLevel\":\"L1\",\"jobId\":\"j\",\"receiveTimeMs\":5";
        List<String> repeated = List.of(
                // before every field of the record is there the mapper takes the last value; after, it fails
                "{\"clusterId\":\"x\"," + all + "}",
                "{" + all + ",\"clusterId\":\"x\"}",
                "{" + all + ",\"meta\":null}",
                "{" + all + ",\"receiveTimeMs\":6}",
                "{" + all.replace("\"producer\":\"p\"", "\"producer\":\"p\",\"eventId\":\"f\"") + "}",
                "{" + all.replace("\"eventId\":\"e\"", "\"eventId\":\"e\",\"eventId\":\"f\"") + "}");
        for (String json : repeated) {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            Optional<DeviceFault> mapper;
            try {
                mapper = Optional.of(Json.mapper().readValue(bytes, DeviceFault.class));
            } catch (Exception e) {
                mapper = Optional.empty();
            }
            if (mapper.isPresent()) {
                assertThat(serde.fromBytes(bytes)).as(json).isEqualTo(mapper.get());
            } else {
                assertThatThrownBy(() -> serde.fromBytes(bytes)).as(json).isInstanceOf(SerializationException.class);
            }
        }
    }

    private static DeviceFault fault(Random random) {
        long at = random.nextLong(0, 4_000_000_000_000L);
        Meta meta = random.nextInt(10) == 0
                ? null
                : new Meta(text(random), Instant.ofEpochMilli(at).plusNanos(random.nextInt(3) * 1000L), text(random));
        return new DeviceFault(
                meta,
                text(random),
                text(random),
                text(random),
                text(random),
                random.nextBoolean() ? Optional.of(text(random)) : Optional.empty(),
                random.nextBoolean() ? Optional.of(text(random)) : Optional.empty(),
                at);
    }

    private static FaultVerdict verdict(Random random, DeviceFault fault) {
        List<String> peers = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            peers.add(text(random));
            times.add(random.nextLong());
        }
        FaultVerdict.Outcome[] outcomes = FaultVerdict.Outcome.values();
        return new FaultVerdict(
                new Meta(text(random), Instant.ofEpochMilli(random.nextLong(0, 4_000_000_000_000L)), "fault-streams"),
                fault.clusterId(),
                fault.nodeName(),
                fault.deviceName(),
                fault.faultCode(),
                fault.jobId(),
                fault.receiveTimeMs(),
                outcomes[random.nextInt(outcomes.length)],
                new FaultVerdict.Evidence(random.nextLong(), peers, random.nextInt(100), times, text(random)));
    }

    private static String text(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = 1 + random.nextInt(12); i > 0; i--) {
            s.appendCodePoint(ALPHABET.codePointAt(
                    ALPHABET.offsetByCodePoints(0, random.nextInt(ALPHABET.codePointCount(0, ALPHABET.length())))));
        }
        return s.toString();
    }
}
