package io.falcon.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.Settings;
import io.falcon.scheduler.core.SchedulerSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerConfigTest {
    private static final String BOOTSTRAP = "falcon.kafka.bootstrap-servers";

    @Test
    void schedulingTimersDefaultToTheDocumentedValuesAndCanBeSet() {
        SchedulerConfig defaults = SchedulerConfig.from(new Settings(Map.of(BOOTSTRAP, "k:9092")));
        assertThat(defaults.scheduling()).isEqualTo(SchedulerSettings.defaults());

        SchedulerConfig tuned = SchedulerConfig.from(new Settings(Map.of(BOOTSTRAP, "k:9092",
                "falcon.scheduler.provisioning-backstop", "30m", "FALCON_SCHEDULER_ORPHAN_GRACE", "2m")));
        assertThat(tuned.scheduling().provisioningBackstop()).isEqualTo(Duration.ofMinutes(30));
        assertThat(tuned.scheduling().orphanGrace()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void aBadSettingIsNamedAtStart() {
        assertThatThrownBy(() -> SchedulerConfig.from(new Settings(Map.of())))
                .hasMessageContaining(BOOTSTRAP);
        assertThatThrownBy(() -> SchedulerConfig.from(new Settings(Map.of(BOOTSTRAP, "k:9092",
                "falcon.scheduler.position-updates", "0"))))
                .hasMessageContaining("falcon.scheduler.position-updates");
    }
}
