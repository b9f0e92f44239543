package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.SimHarness;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A changed clusters row (same id, another GKE cluster) gets a client and informers of its own, and the old cluster
 * keeps its own while commands still name it.
 */
class ClusterChangeIT {

    @Test
    void aMovedRowHasAClientAndInformersPerGkeCluster() {
        try (SimHarness h = new SimHarness(Map.of(), true)) {
            ClusterTarget before = SimHarness.cluster();
            h.dispatcher.watchCluster(before);
            String firstUrl = h.edges.client(before).getConfiguration().getMasterUrl();
            assertThat(firstUrl)
                    .startsWith(h.sim.kubernetesUrl(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER));

            h.dispatcher.watchCluster(before); // same row again: nothing rebuilt
            assertThat(h.edges.client(before).getConfiguration().getMasterUrl()).isEqualTo(firstUrl);

            ClusterTarget after = new ClusterTarget(
                    before.clusterId(),
                    SimHarness.OTHER_CLUSTER,
                    before.project(),
                    before.location(),
                    before.tpuType(),
                    before.gcsBucket());
            h.dispatcher.watchCluster(after);

            assertThat(h.edges.client(after).getConfiguration().getMasterUrl())
                    .startsWith(h.sim.kubernetesUrl(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.OTHER_CLUSTER));
            // a moved row: commands still name the old cluster (the cleanup of what was made there) and the new one;
            // each keeps its client and its informers, whichever a command named last
            h.dispatcher.watchCluster(before);
            assertThat(h.edges.client(before).getConfiguration().getMasterUrl()).isEqualTo(firstUrl);
            assertThat(h.edges.client(after).getConfiguration().getMasterUrl())
                    .startsWith(h.sim.kubernetesUrl(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.OTHER_CLUSTER));
            assertThat(h.reconciler.watchedTargets()).containsExactlyInAnyOrder(before, after);
            assertThat(h.reconciler.isWatching(before)).isTrue();
            assertThat(h.reconciler.isWatching(after)).isTrue();
        }
    }
}
