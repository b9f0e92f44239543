package io.falcon.faults.core;

import static io.falcon.testkit.builders.DeviceFaultBuilder.deviceFault;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Json;
import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.testkit.builders.DeviceFaultBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class FaultIntakeTest {
    private static final long NOW = DeviceFaultBuilder.RECEIVED_AT;

    @Test
    void anUnpairedSurrogateInANameIsRefusedWithTheFieldBecauseNoJsonReaderTakesItBack() throws Exception {
        String lone = "chip-\uD800-0";
        // why it must be refused at intake: written into a store value, it cannot be read back
        byte[] written = Json.mapper().writeValueAsBytes(java.util.Map.of("devices", java.util.Map.of(lone, 1)));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Json.mapper().readTree(written))
                .isInstanceOf(com.fasterxml.jackson.core.JsonProcessingException.class);

        assertThat(FaultIntake.problem(deviceFault("c-1", "node-1", lone).build(), NOW))
                .hasValueSatisfying(p -> assertThat(p)
                        .startsWith("deviceName must be well-formed Unicode")
                        .contains("\\ud800"));
        assertThat(FaultIntake.problem(
                        deviceFault("c-1", "node-1", "chip-\uD83D\uDE00-0").build(), NOW))
                .as("a paired surrogate (an emoji) is well-formed")
                .isEmpty();
    }

    @Test
    void anEventIdOfTenMegabytesIsRefusedNamingTheFieldAndTheLimitAsIsAnOverlongProducer() {
        DeviceFault fault = deviceFault("c-1", "node-1", "npu-0").job("job-1").build();
        DeviceFault huge = withMeta(
                fault, new Meta("e".repeat(10 * 1024 * 1024), fault.meta().occurredAt(), "test"));

        assertThat(FaultIntake.problem(huge, NOW)).hasValue("meta.eventId is longer than 256 characters");
        assertThat(FaultIntake.problem(
                        withMeta(fault, new Meta("id-1", fault.meta().occurredAt(), "p".repeat(257))), NOW))
                .hasValue("meta.producer is longer than 256 characters");
        assertThat(FaultIntake.problem(
                        withMeta(fault, new Meta("id-\uD800", fault.meta().occurredAt(), "test")), NOW))
                .hasValueSatisfying(p -> assertThat(p).startsWith("meta.eventId must be well-formed Unicode"));
        assertThat(FaultIntake.problem(
                        withMeta(fault, new Meta("e".repeat(256), fault.meta().occurredAt(), "test")), NOW))
                .isEmpty();
    }

    @Test
    void isolationCommandsAreHeldToTheNamesAndListsTheStoresKeep() {
        Meta meta = Meta.of("executor", Instant.ofEpochMilli(NOW));
        assertThat(FaultIntake.commandProblem(
                        new IsolationCommand.Release(meta, "c-1", "node-1", "npu-0", "operator removed it")))
                .isEmpty();
        assertThat(FaultIntake.commandProblem(
                        new IsolationCommand.Release(meta, "c-1", "node-1", "n".repeat(257), "operator")))
                .hasValue("deviceName is longer than 256 characters");
        assertThat(FaultIntake.commandProblem(
                        new IsolationCommand.Release(meta, "c-1", "node-1", "npu-0", "r".repeat(1025))))
                .hasValue("reason is longer than 1024 characters");
        assertThat(FaultIntake.commandProblem(new IsolationCommand.Release(meta, "c/1", "node-1", "npu-0", "op")))
                .hasValueSatisfying(p -> assertThat(p).startsWith("clusterId must not contain '/'"));

        Map<String, List<String>> listed = new TreeMap<>();
        for (int n = 0; n < 64; n++) {
            listed.put("node-" + n, List.of("npu-0", "npu-1", "npu-2", "npu-3"));
        }
        assertThat(FaultIntake.commandProblem(new IsolationCommand.ListedByOthers(meta, "c-1", listed)))
                .isEmpty();
        listed.put("node-64", List.of("npu-0"));
        assertThat(FaultIntake.commandProblem(new IsolationCommand.ListedByOthers(meta, "c-1", listed)))
                .hasValue("devices lists more than 256 devices of the cluster");
        assertThat(FaultIntake.commandProblem(
                        new IsolationCommand.ListedByOthers(meta, "c-1", Map.of("a/b", List.of("npu-0")))))
                .hasValueSatisfying(p -> assertThat(p).startsWith("devices node must be a Kubernetes node name"));

        List<NodeIsolation.DeviceIsolation> nine = new ArrayList<>();
        for (int c = 0; c < 9; c++) {
            nine.add(new NodeIsolation.DeviceIsolation("CODE-" + c, NodeIsolation.MANUALLY_SEPARATE_NPU, NOW));
        }
        assertThat(FaultIntake.commandProblem(new IsolationCommand.ListedByFalcon(
                        meta, "c-1", "node-1", new NodeIsolation(List.of("npu-0"), Map.of("npu-0", nine)))))
                .hasValue("devices lists more than 8 fault codes of device 'npu-0'");
        assertThat(FaultIntake.commandProblem(new IsolationCommand.ListedByFalcon(
                        meta,
                        "c-1",
                        "node-1",
                        new NodeIsolation(
                                List.of("npu-0"),
                                Map.of(
                                        "npu-0",
                                        List.of(new NodeIsolation.DeviceIsolation("CODE", "L".repeat(300), NOW)))))))
                .hasValue("devices FaultLevel is longer than 256 characters");
    }

    private static DeviceFault withMeta(DeviceFault fault, Meta meta) {
        return new DeviceFault(
                meta,
                fault.clusterId(),
                fault.nodeName(),
                fault.deviceName(),
                fault.faultCode(),
                fault.faultLevel(),
                fault.jobId(),
                fault.receiveTimeMs());
    }

    /**
     * The intake's char loops (written for the stream thread) refuse exactly what the plain definitions refuse: the
     * ConfigMap key pattern, and control characters or unpaired surrogates as code points, in that order.
     */
    @Property(tries = 2000)
    void theCharChecksAgreeWithTheRegexAndCodePointDefinitions(@ForAll("names") String name) {
        boolean keyByRegex = Pattern.compile("[-._a-zA-Z0-9]+").matcher(name).matches();
        assertThat(FaultIntake.isConfigMapKey(name)).isEqualTo(keyByRegex);

        Optional<String> expected;
        if (name.isBlank()) {
            expected = Optional.of("deviceName is required");
        } else if (name.codePoints().anyMatch(Character::isISOControl)) {
            expected = Optional.of("deviceName must not contain control characters");
        } else if (name.codePoints().anyMatch(c -> c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE)) {
            expected = Optional.of("deviceName must be well-formed Unicode");
        } else {
            expected = Optional.empty();
        }
        Optional<String> problem =
                FaultIntake.problem(deviceFault("c-1", "node-1", name).build(), NOW);
        if (expected.isEmpty()) {
            assertThat(problem).isEmpty();
        } else {
            assertThat(problem).hasValueSatisfying(p -> assertThat(p).startsWith(expected.get()));
        }
    }

    @Provide
    Arbitrary<String> names() {
        // key characters, blanks, controls, both halves of surrogate pairs and a paired emoji, mixed
        return Arbitraries.strings()
                .withChars("aZ09-._ \t\u0000\u007f\u0085\uD83D\uDE00/é")
                .ofMinLength(0)
                .ofMaxLength(8);
    }
}
