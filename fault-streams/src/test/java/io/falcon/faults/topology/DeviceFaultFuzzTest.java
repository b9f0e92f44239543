package io.falcon.faults.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.DeadLetter;
import io.falcon.events.Json;
import io.falcon.events.Topics;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.faults.core.StateBounds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import org.apache.kafka.streams.KeyValue;

/**
 * Device faults as another team's collector may send them (issue 20), through the real topology: random and hostile
 * names (slashes, NULs, spaces, unicode, overlong), event ids up to 100,000 characters, wrong JSON types, missing
 * fields, bytes that are not JSON. Every
 * record is either counted (a verdict) or dead-lettered with the reason; none stays held in the job window; and no
 * verdict or isolation ever names a node that could not be a key of the edge cluster's isolation ConfigMap or that
 * would split into another cluster/node pair.
 */
class DeviceFaultFuzzTest {
    private static final Pattern CONFIG_MAP_KEY = Pattern.compile("[-._a-zA-Z0-9]+");
    private static FaultDriver driver;

    @BeforeContainer
    static void start() throws Exception {
        driver = new FaultDriver(FaultTopologyOptions.defaults().withInMemoryStores(true));
        // threshold 1: every counted hardware fault isolates its device, so the isolation output is exercised
        driver.publish(FaultDriver.policy(1, 24, 1, 24));
    }

    @AfterContainer
    static void stop() {
        driver.close();
    }

    @Property(tries = 300)
    void everyFaultIsCountedOrDeadLetteredAndNothingNamesAnImpossibleNode(@ForAll("batches") List<byte[]> batch) {
        for (byte[] value : batch) {
            driver.rawFaults.pipeInput("key", value);
        }
        // past the 30 s job window and its grace: every held fault is decided
        driver.advance(Duration.ofMinutes(2));
        assertThat(driver.entries(FaultTopology.PENDING_STORE))
                .as("faults still held")
                .isZero();

        List<FaultVerdict> verdicts = driver.verdicts.readValuesToList();
        List<DeadLetter> dead = driver.deadLetters.readValuesToList();
        List<KeyValue<String, NodeIsolation>> isolations = driver.isolations();
        Statistics.label("dead letters per batch").collect(dead.size());
        for (DeadLetter letter : dead) {
            assertThat(letter.reason()).isNotBlank();
            // a dead letter is a record too, and must fit the dead-letter topic
            assertThat(Topics.DEAD_LETTER.valueSerde().toBytes(letter).length).isLessThan(StateBounds.MAX_VALUE_BYTES);
        }
        for (FaultVerdict verdict : verdicts) {
            assertThat(verdict.nodeName()).matches(CONFIG_MAP_KEY);
            assertThat(verdict.clusterId()).doesNotContain("/");
        }
        for (KeyValue<String, NodeIsolation> isolation : isolations) {
            String[] clusterAndNode = NodeIsolation.splitKey(isolation.key);
            assertThat(clusterAndNode[1]).matches(CONFIG_MAP_KEY);
            assertThat(clusterAndNode[0]).doesNotContain("/").doesNotContain("\u0000");
        }
        // each record got an answer: a verdict about it or a dead letter (a verdict may speak for several faults of
        // one window, so this is a lower bound on the answers, not an equality)
        assertThat(verdicts.size() + dead.size())
                .as("answers to " + batch.size() + " records")
                .isPositive();
    }

    // ---- generators ----

    private static Arbitrary<String> names() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of("n1", "n2", "gke-tpu-abc-0", "node-1.zone")),
                Tuple.of(
                        2,
                        Arbitraries.of(
                                "",
                                " ",
                                "a/b",
                                "c1/n1",
                                "../n1",
                                ".",
                                "..",
                                "n\u0000x",
                                "n x",
                                "节点-1",
                                "🚀",
                                "N_1",
                                "x".repeat(300),
                                "-",
                                "\n")),
                Tuple.of(1, Arbitraries.strings().all().ofMaxLength(20)));
    }

    private static Arbitrary<Object> anyJson() {
        return Arbitraries.oneOf(
                names().map(v -> (Object) v),
                Arbitraries.of((Object) 1, -1L, Long.MAX_VALUE, 1.5, true, List.of("a"), Map.of("k", "v")),
                Arbitraries.just(null));
    }

    /** One fault as JSON: mostly well-typed with hostile names, sometimes with a field of the wrong type or none. */
    private static Arbitrary<byte[]> faults() {
        Arbitrary<Object> receive = Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.longs().between(0, 60_000).map(o ->
                        (Object) (FaultDriver.START.toEpochMilli() + o))),
                Tuple.of(1, Arbitraries.of((Object) 0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, "soon", 1.5)));
        Arbitrary<Object> job = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.of((Object) "job-1", "job-2")),
                Tuple.of(1, Arbitraries.just(null)),
                Tuple.of(1, names().map(v -> (Object) v)));
        Arbitrary<Object> cluster = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just((Object) FaultDriver.CLUSTER)),
                Tuple.of(1, names().map(v -> (Object) v)),
                Tuple.of(1, anyJson()));
        Arbitrary<Object> node =
                Arbitraries.frequencyOf(Tuple.of(6, names().map(v -> (Object) v)), Tuple.of(1, anyJson()));
        Arbitrary<Object> device = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of((Object) "Ascend910-0", "Ascend910-1", "tpu-3")),
                Tuple.of(1, names().map(v -> (Object) v)),
                Tuple.of(1, anyJson()));
        Arbitrary<Object> code = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of((Object) "8C084E00", "0x80E18402")), Tuple.of(1, anyJson()));
        // mostly omitted (derived); else with hostile ids, overlong ones among them, or of the wrong type
        Arbitrary<Optional<Object>> meta = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just(Optional.empty())),
                Tuple.of(
                        2,
                        Combinators.combine(
                                        Arbitraries.frequencyOf(
                                                Tuple.of(3, names().map(v -> (Object) v)),
                                                Tuple.of(1, Arbitraries.just((Object) "e".repeat(100_000))),
                                                Tuple.of(1, anyJson())),
                                        Arbitraries.frequencyOf(
                                                Tuple.of(3, Arbitraries.just((Object) "collector")),
                                                Tuple.of(1, names().map(v -> (Object) v))))
                                .as((id, producer) -> {
                                    Map<String, Object> m = new LinkedHashMap<>();
                                    m.put("eventId", id);
                                    m.put("occurredAt", "2026-12-02T10:00:00Z");
                                    m.put("producer", producer);
                                    return Optional.of((Object) m);
                                })),
                Tuple.of(1, anyJson().map(Optional::ofNullable)));
        Arbitrary<byte[]> json = Combinators.combine(meta, cluster, node, device, code, job, receive)
                .as((m, c, n, d, k, j, r) -> {
                    Map<String, Object> fault = new LinkedHashMap<>();
                    m.ifPresent(value -> fault.put("meta", value));
                    fault.put("clusterId", c);
                    fault.put("nodeName", n);
                    fault.put("deviceName", d);
                    fault.put("faultCode", k);
                    fault.put("jobId", j);
                    fault.put("receiveTimeMs", r);
                    try {
                        return Json.mapper().writeValueAsBytes(fault);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
        Arbitrary<byte[]> garbage = Arbitraries.oneOf(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(40),
                Arbitraries.of("{}", "[]", "{\"clusterId\":", "\"text\"", "{\"nodeName\":{\"a\":[[[[1]]]]}}")
                        .map(String::getBytes));
        return Arbitraries.frequencyOf(Tuple.of(9, json), Tuple.of(1, garbage));
    }

    @Provide
    Arbitrary<List<byte[]>> batches() {
        return faults().list().ofMinSize(1).ofMaxSize(6).map(ArrayList::new);
    }
}
