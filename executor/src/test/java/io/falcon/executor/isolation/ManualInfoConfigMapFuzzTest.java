package io.falcon.executor.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.falcon.events.Json;
import io.falcon.events.fault.NodeIsolation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * clusterd-manual-info-cm as operators and other tools may leave it (issue 20; format in the isolation RFC): node
 * values and Falcon's annotations that are the RFC's JSON, JSON of the wrong shape (nulls, wrong types, nested),
 * or not JSON at all. Reading it never throws (an unreadable node releases nothing, an unreadable annotation counts
 * as empty), and Falcon's write of a node always leaves that node's value readable and listing Falcon's devices,
 * while every other node's value is left exactly as it was.
 */
class ManualInfoConfigMapFuzzTest {
    private static final String NODE = "n1";
    private static final NodeIsolation FALCONS = new NodeIsolation(
            List.of("Ascend910-0"),
            Map.of(
                    "Ascend910-0",
                    List.of(new NodeIsolation.DeviceIsolation(
                            "8C084E00", NodeIsolation.MANUALLY_SEPARATE_NPU, 1770811685650L))));

    @Property(tries = 1000)
    void anyContentIsReadWithoutErrorAndFalconsWriteStaysReadable(@ForAll("configMaps") ConfigMap cm) {
        Map<String, String> before = cm.getData() == null ? Map.of() : Map.copyOf(cm.getData());
        ManualInfoConfigMap.written(cm);
        ManualInfoConfigMap.preexisting(cm);
        ManualInfoConfigMap.removedByOperator(cm);
        ManualInfoConfigMap.listed(cm, NODE);

        ManualInfoConfigMap.put(cm, NODE, Optional.of(FALCONS));
        assertThat(ManualInfoConfigMap.listed(cm, NODE))
                .hasValueSatisfying(devices -> assertThat(devices).contains("Ascend910-0"));
        assertThat(ManualInfoConfigMap.written(cm)).containsKey(NODE);
        before.forEach((node, value) -> {
            if (!node.equals(NODE)) {
                assertThat(cm.getData()).containsEntry(node, value);
            }
        });

        ManualInfoConfigMap.put(cm, NODE, Optional.empty());
        assertThat(ManualInfoConfigMap.listed(cm, NODE)).isPresent();
        ManualInfoConfigMap.removedByOperator(cm);
    }

    // ---- generators ----

    /** A JSON text of any shape, the RFC's among them. */
    private static Arbitrary<String> values() {
        return Arbitraries.frequencyOf(
                Tuple.of(
                        3,
                        Arbitraries.of(
                                "{\"Total\":[\"Ascend910-0\",\"Ascend910-2\"],\"Detail\":{\"Ascend910-0\":[{\"FaultCode\":"
                                        + "\"8C084E00\",\"FaultLevel\":\"ManuallySeparateNPU\",\"LastSeparateTime\":"
                                        + "1770811685650}]}}",
                                "{\"Total\":[],\"Detail\":{}}",
                                "{\"Total\":[\"Ascend910-0\"]}")),
                Tuple.of(
                        3,
                        Arbitraries.of(
                                "",
                                " ",
                                "null",
                                "[]",
                                "{}",
                                "not json",
                                "{\"Total\":null}",
                                "{\"Total\":[null]}",
                                "{\"Total\":\"Ascend910-0\"}",
                                "{\"Total\":[1,true,{}]}",
                                "{\"Detail\":{\"Ascend910-0\":null}}",
                                "{\"Detail\":{\"Ascend910-0\":[null]}}",
                                "{\"Detail\":{\"Ascend910-0\":[{\"LastSeparateTime\":\"yesterday\"}]}}",
                                "{\"Detail\":[]}",
                                "{\"Total\":[\"a\"],\"Total\":[\"b\"]}",
                                "{\"n1\":null}",
                                "{\"n1\":[null]}",
                                "{\"n1\":\"Ascend910-0\"}",
                                "{\"n1\":[\"Ascend910-0\"],\"n2\":{}}",
                                "[".repeat(2000) + "]".repeat(2000))),
                Tuple.of(1, Arbitraries.strings().all().ofMaxLength(30)));
    }

    @Provide
    Arbitrary<ConfigMap> configMaps() {
        Arbitrary<Map<String, String>> data = Arbitraries.maps(Arbitraries.of(NODE, "n2", "n3"), values())
                .ofMaxSize(3)
                .injectNull(0.1);
        Arbitrary<String> annotation = Arbitraries.oneOf(
                values(),
                Arbitraries.of("{\"n1\":[\"Ascend910-0\"]}", "{\"n2\":[\"Ascend910-9\"]}"),
                Arbitraries.just(null));
        return Combinators.combine(data, annotation, annotation).as((d, written, preexisting) -> {
            Map<String, String> annotations = new LinkedHashMap<>();
            if (written != null) {
                annotations.put(ManualInfoConfigMap.WRITTEN_ANNOTATION, written);
            }
            if (preexisting != null) {
                annotations.put(ManualInfoConfigMap.PREEXISTING_ANNOTATION, preexisting);
            }
            return new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(ManualInfoConfigMap.NAME)
                    .withNamespace(ManualInfoConfigMap.NAMESPACE)
                    .withAnnotations(annotations)
                    .endMetadata()
                    .withData(d == null ? null : new LinkedHashMap<>(d))
                    .build();
        });
    }

    @Example
    void theRfcExampleIsReadAsTheRfcSaysSoTheGeneratorsStartFromRealContent() throws Exception {
        NodeIsolation read = Json.mapper()
                .readValue(
                        "{\"Total\":[\"Ascend910-0\",\"Ascend910-2\"],\"Detail\":{\"Ascend910-0\":[{\"FaultCode\":"
                                + "\"8C084E00\",\"FaultLevel\":\"ManuallySeparateNPU\",\"LastSeparateTime\":"
                                + "1770811685650}]}}",
                        NodeIsolation.class);
        assertThat(read.total()).containsExactly("Ascend910-0", "Ascend910-2");
    }
}
