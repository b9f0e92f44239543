package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

class TopicProvisionerTest {
    @Test
    void theDecisionLedgerIsCompactedByJobAndTimeRetained() {
        var ledger = new TopicProvisioner.LedgerRetention(Duration.ofDays(30), Duration.ofDays(2));

        assertThat(TopicProvisioner.configs(Topics.DECISIONS, ledger))
                .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, "compact,delete")
                .containsEntry(
                        TopicConfig.RETENTION_MS_CONFIG,
                        Long.toString(Duration.ofDays(30).toMillis()))
                .containsEntry(
                        TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG,
                        Long.toString(Duration.ofDays(2).toMillis()));
        assertThat(TopicProvisioner.configs(Topics.ISOLATION, ledger))
                .containsOnly(java.util.Map.entry(TopicConfig.CLEANUP_POLICY_CONFIG, "compact"));
        assertThat(TopicProvisioner.configs(Topics.TASK_STATUS, ledger)).isEmpty();
    }

    @Test
    void ledgerRetentionOutsideItsBoundsIsRefusedNamingTheProblem() {
        assertThatThrownBy(() -> new TopicProvisioner.LedgerRetention(Duration.ofMinutes(5), Duration.ZERO))
                .hasMessageContaining("between 1h and 3650d");
        assertThatThrownBy(() -> new TopicProvisioner.LedgerRetention(Duration.ofDays(1), Duration.ofDays(2)))
                .hasMessageContaining("full history");
    }
}
