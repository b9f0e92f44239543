package io.falcon.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class FalconMetricsTest {
    @Test
    void aCollectorNamingEverMoreClustersCannotGrowTheFaultMetricsLabelSet() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        FalconMetrics metrics = new FalconMetrics(registry);
        int clusters = FalconMetrics.MAX_FAULT_CLUSTER_LABELS + 1_000;
        for (int i = 0; i < clusters; i++) {
            metrics.faultVerdict("ISOLATED", "cluster-" + i);
            metrics.isolatedDevices("cluster-" + i, 1);
        }
        var verdictClusters = registry.find(FalconMetrics.FAULT_VERDICTS).counters().stream()
                .map(c -> c.getId().getTag(FalconMetrics.TAG_CLUSTER))
                .distinct()
                .toList();
        assertThat(verdictClusters)
                .hasSize(FalconMetrics.MAX_FAULT_CLUSTER_LABELS + 1)
                .contains("cluster-0", FalconMetrics.OTHER_CLUSTERS)
                .doesNotContain("cluster-" + (clusters - 1));
        // every verdict is still counted
        double counted = registry.find(FalconMetrics.FAULT_VERDICTS).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
        assertThat(counted).isEqualTo(clusters);
        assertThat(registry.find(FalconMetrics.ISOLATED_DEVICES).gauges())
                .hasSize(FalconMetrics.MAX_FAULT_CLUSTER_LABELS);
    }
}
