package io.falcon.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.executor.SupplyMode;
import io.falcon.scheduler.core.SchedulerSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerConfigTest {
    private static final String BOOTSTRAP = "falcon.kafka.bootstrap-servers";

    @Test
    void schedulingTimersDefaultToTheDocumentedValuesAndCanBeSet() {
        SchedulerConfig defaults = SchedulerConfig.from(Map.of(BOOTSTRAP, "k:9092"));
        assertThat(defaults.scheduling()).isEqualTo(SchedulerSettings.defaults());

        SchedulerConfig tuned = SchedulerConfig.from(Map.of(
                BOOTSTRAP,
                "k:9092",
                "falcon.scheduler.provisioning-backstop",
                "30m",
                "FALCON_SCHEDULER_ORPHAN_GRACE",
                "2m"));
        assertThat(tuned.scheduling().provisioningBackstop()).isEqualTo(Duration.ofMinutes(30));
        assertThat(tuned.scheduling().orphanGrace()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void aBadSettingIsNamedAtStart() {
        assertThatThrownBy(() -> SchedulerConfig.from(Map.of())).hasMessageContaining(BOOTSTRAP);
        assertThatThrownBy(() ->
                        SchedulerConfig.from(Map.of(BOOTSTRAP, "k:9092", "falcon.scheduler.position-updates", "0")))
                .hasMessageContaining("falcon.scheduler.position-updates");
    }

    @Test
    void idleLingerIsASettingPerSupplyModeAndZeroMeansDeletedAtOnce() {
        Map<String, String> raw = new java.util.HashMap<>(Map.of(BOOTSTRAP, "k:9092"));
        for (SupplyMode mode : SupplyMode.values()) {
            raw.put("falcon.scheduler.idle-linger." + mode.wireName(), "0s");
        }
        raw.put("FALCON_SCHEDULER_IDLE_LINGER_FLEX_START", "5m");
        raw.remove("falcon.scheduler.idle-linger.flex-start");
        SchedulerConfig config = SchedulerConfig.from(raw);
        assertThat(config.scheduling().idleLinger())
                .containsExactly(java.util.Map.entry(SupplyMode.FLEX_START, Duration.ofMinutes(5)));
    }

    @Test
    void severalProblemsAndAnUnknownKeyAreReportedTogether() {
        assertThatThrownBy(() -> SchedulerConfig.from(
                        Map.of("falcon.scheduler.tick-interval", "1", "FALCON_SCHEDULER_TICK", "1s")))
                .hasMessageContaining(BOOTSTRAP)
                .hasMessageContaining("FALCON_KAFKA_BOOTSTRAP_SERVERS")
                .hasMessageContaining("falcon.scheduler.tick-interval")
                .hasMessageContaining("FALCON_SCHEDULER_TICK");
    }
}
