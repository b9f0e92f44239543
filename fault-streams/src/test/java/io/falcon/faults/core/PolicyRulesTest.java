package io.falcon.faults.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.faults.PolicyYaml;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PolicyRulesTest {
    private static final Meta META = Meta.of("test", Instant.EPOCH);

    @Test
    void theRfcExampleParses() {
        String yaml = """
                manuallySeparatePolicy:
                  enabled: true
                  separate:
                    fault_window_hours: 24
                    fault_threshold: 3
                  release:
                    fault_free_hours: -1
                """;
        var result = PolicyYaml.parse(yaml, 5, META);
        assertThat(result).isInstanceOfSatisfying(PolicyRules.Valid.class, valid -> {
            assertThat(valid.policy().enabled()).isTrue();
            assertThat(valid.policy().faultWindowHours()).isEqualTo(24);
            assertThat(valid.policy().faultThreshold()).isEqualTo(3);
            assertThat(valid.policy().autoRelease()).isFalse();
            assertThat(valid.policy().dryRun()).isFalse();
            assertThat(valid.policy().hasBudget()).isFalse();
            assertThat(valid.policy().version()).isEqualTo(5);
        });
    }

    @Test
    void safeguardsAreRead() {
        String yaml = """
                manuallySeparatePolicy:
                  enabled: true
                  separate: {fault_window_hours: 1, fault_threshold: 1}
                  release: {fault_free_hours: 240}
                  safeguards: {dry_run: true, max_isolated_devices_per_cluster: 8}
                """;
        assertThat(PolicyYaml.parse(yaml, 1, META)).isInstanceOfSatisfying(PolicyRules.Valid.class, v -> {
            assertThat(v.policy().dryRun()).isTrue();
            assertThat(v.policy().maxIsolatedDevicesPerCluster()).isEqualTo(8);
        });
    }

    @Test
    void errorsNameTheField() {
        String yaml = """
                manuallySeparatePolicy:
                  enabled: yes please
                  separate: {fault_window_hours: 721, fault_threshold: "three"}
                """;
        assertThat(PolicyYaml.parse(yaml, 1, META))
                .isInstanceOfSatisfying(
                        PolicyRules.Invalid.class,
                        invalid -> assertThat(invalid.errors())
                                .containsExactly(
                                        "manuallySeparatePolicy.enabled must be true or false, got 'yes please'",
                                        "manuallySeparatePolicy.separate.fault_threshold must be a whole number, got 'three'",
                                        "manuallySeparatePolicy.release.fault_free_hours is required"));
        assertThat(PolicyYaml.parse(
                        "manuallySeparatePolicy:\n  enabled: true\n  separate: "
                                + "{fault_window_hours: 721, fault_threshold: 3}\n  release: {fault_free_hours: -1}\n",
                        1,
                        META))
                .isInstanceOfSatisfying(
                        PolicyRules.Invalid.class,
                        invalid -> assertThat(invalid.message())
                                .contains(
                                        "manuallySeparatePolicy.separate.fault_window_hours must be between 1 and 720, got 721"));
    }

    @Test
    void aFileWithoutThePolicyBlockIsRejected() {
        assertThat(PolicyYaml.parse("other: 1\n", 1, META))
                .isInstanceOfSatisfying(
                        PolicyRules.Invalid.class,
                        invalid -> assertThat(invalid.message()).contains("manuallySeparatePolicy is required"));
        assertThat(PolicyYaml.parse("a: [", 1, META)).isInstanceOf(PolicyRules.Invalid.class);
    }
}
