package io.falcon.faults.core;

import static io.falcon.testkit.builders.DeviceFaultBuilder.deviceFault;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Json;
import io.falcon.testkit.builders.DeviceFaultBuilder;
import java.util.Optional;
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
