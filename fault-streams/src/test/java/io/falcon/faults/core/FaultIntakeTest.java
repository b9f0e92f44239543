package io.falcon.faults.core;

import static io.falcon.testkit.builders.DeviceFaultBuilder.deviceFault;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Json;
import io.falcon.testkit.builders.DeviceFaultBuilder;
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
}
