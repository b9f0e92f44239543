package io.falcon.events.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Json;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.apache.kafka.common.errors.SerializationException;

/**
 * The byte-level tier of the fault JSON against the mapper: for any fault and verdict (hostile strings, extreme
 * numbers, optionals present or not) the codecs write the mapper's bytes; for any rendering of a fault (fields
 * shuffled, whitespace, escapes, unknown and repeated fields, nulls, odd numbers, trailing bytes) the serde reads
 * what the mapper reads or both refuse it, and whatever the byte tier accepts is exactly the mapper's record. The
 * coverage checks make sure the byte tier is really taken, and really left, in a fair share of the cases.
 */
class FaultJsonPropertyTest {
    private static final String HOSTILE = "\"\\/\n\r\t\u0000\u0001\u001f\u007f\u0080é中\u2028 ";

    @Property(tries = 2000)
    void faultsAreWrittenAsTheMapperWritesThem(@ForAll("faults") DeviceFault fault) throws Exception {
        byte[] expected = Json.mapper().writeValueAsBytes(fault);
        assertThat(utf8(FaultJson.DEVICE_FAULT.encode(fault))).isEqualTo(utf8(expected));
        assertThat(utf8(Topics.DEVICE_FAULTS.valueSerde().toBytes(fault))).isEqualTo(utf8(expected));
        boolean fast = FaultBytes.writeFault(fault).isPresent();
        Statistics.label("byte tier").collect(fast);
        Statistics.label("byte tier").coverage(c -> {
            c.check(true).percentage(p -> p > 20);
            c.check(false).percentage(p -> p > 20);
        });
    }

    @Property(tries = 2000)
    void verdictsAreWrittenAsTheMapperWritesThem(@ForAll("verdicts") FaultVerdict verdict) throws Exception {
        byte[] expected = Json.mapper().writeValueAsBytes(verdict);
        assertThat(utf8(FaultJson.VERDICT.encode(verdict))).isEqualTo(utf8(expected));
        assertThat(utf8(Topics.FAULT_VERDICTS.valueSerde().toBytes(verdict))).isEqualTo(utf8(expected));
        Statistics.label("byte tier").collect(FaultBytes.writeVerdict(verdict).isPresent());
        Statistics.label("byte tier").coverage(c -> {
            c.check(true).percentage(p -> p > 10);
            c.check(false).percentage(p -> p > 10);
        });
    }

    @Property(tries = 5000)
    void anyRenderingOfAFaultReadsAsTheMapperReadsIt(@ForAll("faults") DeviceFault fault, @ForAll long seed) {
        byte[] json = render(fault, new Random(seed));
        String text = utf8(json);
        Optional<DeviceFault> mapper = mapperRead(json);
        Optional<DeviceFault> serde;
        try {
            serde = Optional.of(Topics.DEVICE_FAULTS.valueSerde().fromBytes(json));
        } catch (SerializationException e) {
            serde = Optional.empty();
        }
        assertThat(serde).as(text).isEqualTo(mapper);
        Optional<DeviceFault> fast = FaultBytes.readFault(json);
        if (fast.isPresent()) {
            assertThat(mapper).as(text).contains(fast.get());
        }
        // the streaming tier alone must never read anything else than the mapper either
        Optional<DeviceFault> streaming = FaultJson.STREAMING_DEVICE_FAULT.decode(json);
        if (streaming.isPresent()) {
            assertThat(mapper).as(text).contains(streaming.get());
        }
        Statistics.label("tier").collect(fast.isPresent() ? "bytes" : streaming.isPresent() ? "streaming" : "mapper");
        Statistics.label("tier").coverage(c -> {
            c.check("bytes").percentage(p -> p > 15);
            c.check("streaming").percentage(p -> p > 5);
            c.check("mapper").percentage(p -> p > 5);
        });
    }

    // ---- what is generated ----

    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> plain = Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(24);
        Arbitrary<String> names = Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars('-', '.', '_', '0', '9')
                .ofMinLength(1)
                .ofMaxLength(16);
        Arbitrary<String> hostile = Arbitraries.strings()
                .withCharRange(' ', '~')
                .withChars(HOSTILE.toCharArray())
                .ofMaxLength(12);
        Arbitrary<String> emoji = names.map(s -> s + "\uD83D\uDE00");
        return Arbitraries.frequencyOf(
                Tuple.of(6, names),
                Tuple.of(2, plain),
                Tuple.of(1, hostile),
                Tuple.of(1, emoji),
                Tuple.of(1, Arbitraries.of("", " ", "\t")));
    }

    @Provide
    Arbitrary<Instant> instants() {
        Arbitrary<Long> seconds = Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.longs().between(1_600_000_000L, 1_900_000_000L)),
                // years 0000-9999, and beyond, which the mapper writes with a sign
                Tuple.of(2, Arbitraries.longs().between(-62_167_219_200L, 253_402_300_799L)),
                Tuple.of(1, Arbitraries.longs().between(-100_000_000_000_000L, 100_000_000_000_000L)));
        Arbitrary<Integer> nanos = Arbitraries.oneOf(
                Arbitraries.just(0),
                Arbitraries.integers().between(0, 999).map(ms -> ms * 1_000_000),
                Arbitraries.integers().between(0, 999_999).map(us -> us * 1000),
                Arbitraries.integers().between(0, 999_999_999));
        return Combinators.combine(seconds, nanos).as(Instant::ofEpochSecond);
    }

    @Provide
    Arbitrary<Meta> metas() {
        return Combinators.combine(texts(), instants(), texts()).as(Meta::new);
    }

    @Provide
    Arbitrary<Long> longs() {
        return Arbitraries.oneOf(
                Arbitraries.longs(),
                Arbitraries.longs().between(0, 4_000_000_000_000L),
                Arbitraries.of(
                        Long.MIN_VALUE,
                        Long.MAX_VALUE,
                        0L,
                        -1L,
                        9L,
                        10L,
                        -10L,
                        99L,
                        100L,
                        (long) Integer.MAX_VALUE,
                        Integer.MAX_VALUE + 1L,
                        -Integer.MAX_VALUE - 2L,
                        999_999_999_999_999_999L,
                        1_000_000_000_000_000_000L));
    }

    @Provide
    Arbitrary<DeviceFault> faults() {
        Arbitrary<Optional<Meta>> meta = metas().optional(0.85);
        Arbitrary<Optional<String>> optional = texts().optional(0.5);
        return Combinators.combine(meta, texts(), texts(), texts(), texts(), optional, optional, longs())
                .as((m, cluster, node, device, code, level, job, at) ->
                        new DeviceFault(m.orElse(null), cluster, node, device, code, level, job, at));
    }

    @Provide
    Arbitrary<FaultVerdict> verdicts() {
        Arbitrary<FaultVerdict.Evidence> evidence = Combinators.combine(
                        longs(),
                        texts().list().ofMaxSize(4),
                        Arbitraries.integers(),
                        longs().list().ofMaxSize(4),
                        texts())
                .as(FaultVerdict.Evidence::new);
        return Combinators.combine(faults(), metas(), Arbitraries.of(FaultVerdict.Outcome.class), evidence)
                .as((f, meta, outcome, e) -> new FaultVerdict(
                        meta,
                        f.clusterId(),
                        f.nodeName(),
                        f.deviceName(),
                        f.faultCode(),
                        f.jobId(),
                        f.receiveTimeMs(),
                        outcome,
                        e));
    }

    // ---- renderings of a fault ----

    /** The fault as a producer might have written it, plain most of the time, odd in one way or more otherwise. */
    private static byte[] render(DeviceFault fault, Random random) {
        List<String> members = new ArrayList<>();
        boolean odd = random.nextInt(3) == 0;
        switch (odd ? random.nextInt(4) : 0) {
            case 1 -> members.add(member("meta", "null", random, odd));
            case 2 -> {
                /* no meta: derived */
            }
            default -> members.add(member("meta", meta(fault.meta(), random, odd), random, odd));
        }
        members.add(member("clusterId", string(fault.clusterId(), random, odd), random, odd));
        members.add(member("nodeName", string(fault.nodeName(), random, odd), random, odd));
        members.add(member("deviceName", string(fault.deviceName(), random, odd), random, odd));
        members.add(member("faultCode", string(fault.faultCode(), random, odd), random, odd));
        optional("faultLevel", fault.faultLevel(), random, odd).ifPresent(members::add);
        optional("jobId", fault.jobId(), random, odd).ifPresent(members::add);
        members.add(member("receiveTimeMs", number(fault.receiveTimeMs(), random, odd), random, odd));
        if (odd) {
            for (int i = random.nextInt(3); i > 0; i--) {
                members.add(oddMember(members, random));
            }
        }
        if (odd && random.nextInt(10) == 0) {
            members.remove(random.nextInt(members.size()));
        }
        if (odd && random.nextInt(3) > 0) {
            Collections.shuffle(members, random);
        }
        StringBuilder json = new StringBuilder();
        if (odd && random.nextInt(30) == 0) {
            json.append('\uFEFF');
        }
        json.append(space(random, odd)).append('{');
        for (int i = 0; i < members.size(); i++) {
            json.append(i > 0 ? "," : "").append(members.get(i));
        }
        json.append(space(random, odd)).append('}').append(space(random, odd));
        if (odd && random.nextInt(8) == 0) {
            json.append(List.of("x", "{}", ",", "]", "null").get(random.nextInt(5)));
        }
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String member(String name, String value, Random random, boolean odd) {
        return space(random, odd) + name(name, random, odd) + space(random, odd) + ":" + space(random, odd) + value
                + space(random, odd);
    }

    private static String name(String name, Random random, boolean odd) {
        if (odd && random.nextInt(20) == 0) {
            // the same name with one character escaped
            int at = random.nextInt(name.length());
            return "\"" + name.substring(0, at) + String.format("\\u%04x", (int) name.charAt(at))
                    + name.substring(at + 1) + "\"";
        }
        return "\"" + name + "\"";
    }

    private static Optional<String> optional(String name, Optional<String> value, Random random, boolean odd) {
        if (value.isPresent()) {
            return Optional.of(member(name, string(value.get(), random, odd), random, odd));
        }
        return random.nextInt(4) == 0 ? Optional.of(member(name, "null", random, odd)) : Optional.empty();
    }

    private static String meta(Meta meta, Random random, boolean odd) {
        List<String> members = new ArrayList<>();
        members.add(member("eventId", string(meta.eventId(), random, odd), random, odd));
        String at = meta.occurredAt().toString();
        String instant = switch (odd ? random.nextInt(8) : 0) {
            case 1 -> "\"" + at.replace("Z", "+00:00") + "\"";
            case 2 ->
                meta.occurredAt().getEpochSecond() + "."
                        + String.format("%09d", meta.occurredAt().getNano());
            case 3 -> "null";
            default -> "\"" + at + "\"";
        };
        members.add(member("occurredAt", instant, random, odd));
        members.add(member("producer", string(meta.producer(), random, odd), random, odd));
        if (odd) {
            switch (random.nextInt(6)) {
                case 0 -> members.remove(random.nextInt(members.size()));
                case 1 -> members.add(member("extra", "[1,{\"a\":null}]", random, odd));
                case 2 -> members.add(members.get(random.nextInt(members.size())));
                default -> {}
            }
            Collections.shuffle(members, random);
        }
        return "{" + String.join(",", members) + "}";
    }

    /** A JSON string of s: escaped where JSON requires it, and sometimes where it does not. */
    private static String string(String s, Random random, boolean odd) {
        StringBuilder json = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean gratuitous = odd && random.nextInt(10) == 0;
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c == '\n' && !gratuitous) {
                json.append("\\n");
            } else if (c < 0x20 || gratuitous) {
                json.append(String.format("\\u%04X", (int) c));
            } else if (c == '/' && odd && random.nextBoolean()) {
                json.append("\\/");
            } else {
                json.append(c);
            }
        }
        return json.append('"').toString();
    }

    private static String number(long value, Random random, boolean odd) {
        String digits = Long.toString(value);
        return switch (odd ? random.nextInt(12) : 0) {
            case 1 -> digits + ".0";
            case 2 -> digits + "e0";
            case 3 -> value < 0 ? "-0" + digits.substring(1) : "0" + digits;
            case 4 -> value == 0 ? "-0" : digits;
            case 5 -> "\"" + digits + "\"";
            case 6 -> "null";
            case 7 -> digits + "0";
            case 8 -> "+" + digits;
            case 9 -> digits + "1.5E3";
            default -> digits;
        };
    }

    private static String space(Random random, boolean odd) {
        int r = random.nextInt(odd ? 4 : 12);
        return r == 0 ? " " : r == 1 ? "\n  " : r == 2 ? "\t\r\n" : "";
    }

    /** An unknown field, a repeated field, or a required field set to null. */
    private static String oddMember(List<String> members, Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> member("unknown", "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}", random, true);
            case 1 -> member("x", "\"y\"", random, true);
            case 2 -> member("z", "12", random, true);
            case 3 -> members.get(random.nextInt(members.size()));
            case 4 ->
                member(List.of("clusterId", "nodeName", "jobId").get(random.nextInt(3)), "\"other\"", random, true);
            default ->
                member(List.of("clusterId", "faultCode", "faultLevel").get(random.nextInt(3)), "null", random, true);
        };
    }

    private static Optional<DeviceFault> mapperRead(byte[] json) {
        try {
            return Optional.of(Json.mapper().readValue(json, DeviceFault.class));
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
