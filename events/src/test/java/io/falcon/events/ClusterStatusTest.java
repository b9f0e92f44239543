package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.cdc.ClusterRow;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ClusterStatusTest {
    private static final JsonSerde<ClusterRow> ROWS = JsonSerde.of(ClusterRow.class);

    @Test
    void theSeedsValuesAreTheWireStrings() {
        assertThat(ClusterStatus.settable())
                .extracting(ClusterStatus::wireName)
                .containsExactly("active", "maintenance", "offline");
        for (ClusterStatus status : ClusterStatus.settable()) {
            assertThat(ClusterStatus.fromWire(status.wireName())).isEqualTo(status);
        }
        assertThat(ClusterStatus.settable())
                .filteredOn(ClusterStatus::schedulable)
                .containsExactly(ClusterStatus.ACTIVE);
    }

    @Test
    void anyOtherValueIsUnknownAndNotSchedulable() {
        assertThat(ClusterStatus.fromWire("draining")).isEqualTo(ClusterStatus.UNKNOWN);
        assertThat(ClusterStatus.fromWire("")).isEqualTo(ClusterStatus.UNKNOWN);
        assertThat(ClusterStatus.fromWire("Active")).isEqualTo(ClusterStatus.UNKNOWN);
        assertThat(ClusterStatus.fromWire("unknown")).isEqualTo(ClusterStatus.UNKNOWN);
        assertThat(ClusterStatus.UNKNOWN.schedulable()).isFalse();
    }

    @Test
    void aClusterRowKeepsItsStoredFormAndReadsAnUnknownStatus() {
        // events cannot use the testkit (it depends on events): the row is written out here
        ClusterRow row = new ClusterRow(
                "c1",
                "edge-c1",
                "proj-c1",
                "us-central1",
                "v6e",
                "bucket-c1",
                java.util.Optional.empty(),
                ClusterStatus.MAINTENANCE,
                java.util.Optional.empty());
        String json = new String(ROWS.toBytes(row), StandardCharsets.UTF_8);
        assertThat(json).contains("\"status\":\"maintenance\"");
        assertThat(ROWS.fromBytes(json.getBytes(StandardCharsets.UTF_8))).isEqualTo(row);

        ClusterRow draining =
                ROWS.fromBytes(json.replace("\"maintenance\"", "\"draining\"").getBytes(StandardCharsets.UTF_8));
        assertThat(draining.status()).isEqualTo(ClusterStatus.UNKNOWN);
        assertThat(draining.isActive()).isFalse();
    }
}
