package io.falcon.events.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.ClusterStatus;
import io.falcon.events.Json;
import io.falcon.events.executor.ClusterTarget;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClusterRowTest {
    private final ClusterRow row = new ClusterRow(
            "c-1",
            "edge-1",
            "proj",
            "us-central1",
            "v6e",
            "bucket-1",
            Optional.of("res-a"),
            ClusterStatus.ACTIVE,
            Optional.empty(),
            Optional.of("falcon-jobs"));

    @Test
    void aStatusChangeAndTheExecutorsTargetKeepEveryColumnIncludingTheServiceAccount() {
        ClusterRow maintenance = row.withStatus(ClusterStatus.MAINTENANCE);
        assertThat(maintenance.status()).isEqualTo(ClusterStatus.MAINTENANCE);
        assertThat(maintenance.withStatus(ClusterStatus.ACTIVE)).isEqualTo(row);
        assertThat(row.target())
                .isEqualTo(new ClusterTarget(
                        "c-1", "edge-1", "proj", "us-central1", "v6e", "bucket-1", Optional.of("falcon-jobs")));
    }

    @Test
    void aTargetWrittenBeforeTheServiceAccountExistedReadsAsWithoutOne() throws Exception {
        String old = "{\"clusterId\":\"c-1\",\"name\":\"edge-1\",\"project\":\"proj\",\"location\":\"us-central1\","
                + "\"tpuType\":\"v6e\",\"gcsBucket\":\"bucket-1\"}";
        ClusterTarget read = Json.mapper().readValue(old, ClusterTarget.class);
        assertThat(read.k8sServiceAccount()).isEmpty();
        assertThat(Json.mapper().readValue(Json.mapper().writeValueAsString(row.target()), ClusterTarget.class))
                .isEqualTo(row.target());
    }
}
