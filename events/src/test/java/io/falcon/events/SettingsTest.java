package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsTest {
    @Test
    void readsDottedAndEnvironmentStyleKeys() {
        Settings settings = new Settings(Map.of("falcon.a.b", "x", "FALCON_BATCH_SIZE", "12", "falcon.t", "30s"));
        assertThat(settings.required("falcon.a.b")).isEqualTo("x");
        assertThat(settings.intBetween("falcon.batch-size", 1, 1, 100)).isEqualTo(12);
        assertThat(settings.duration("falcon.t", Duration.ZERO)).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.string("falcon.missing", "d")).isEqualTo("d");
    }

    @Test
    void badValuesNameTheSetting() {
        Settings settings = new Settings(Map.of("falcon.n", "abc", "falcon.m", "500", "falcon.d", "soon"));
        assertThatThrownBy(() -> settings.intBetween("falcon.n", 1, 1, 10)).hasMessageContaining("falcon.n")
                .hasMessageContaining("whole number");
        assertThatThrownBy(() -> settings.intBetween("falcon.m", 1, 1, 10)).hasMessageContaining("between 1 and 10");
        assertThatThrownBy(() -> settings.duration("falcon.d", Duration.ZERO)).hasMessageContaining("falcon.d");
        assertThatThrownBy(() -> settings.required("falcon.x")).hasMessage("invalid configuration: falcon.x is required");
    }
}
