package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.SimHarness;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A changed clusters row (same id, another GKE cluster) rebuilds the client and the informers. */
class ClusterChangeIT {

    @Test
    void clientsAreRebuiltWhenTheClusterRowChanges() {
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
            assertThat(h.reconciler.watchedTarget(before.clusterId())).contains(after);
        }
    }
}
