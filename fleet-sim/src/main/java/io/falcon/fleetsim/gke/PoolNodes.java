package io.falcon.fleetsim.gke;

import java.util.Map;

/**
 * What Kubernetes nodes a RUNNING node pool brings: {@code hosts} nodes named {@code gke-<cluster>-<pool>-<i>}.
 *
 * @param accelerator value of {@code cloud.google.com/gke-tpu-accelerator}, empty for non-TPU pools
 * @param topology value of {@code cloud.google.com/gke-tpu-topology}, empty when the pool has no placement policy
 * @param labels the pool's Kubernetes labels (config.labels), copied onto the nodes as GKE does
 * @param chipsPerNode TPU chips of each node (its google.com/tpu capacity), 0 for non-TPU pools
 */
public record PoolNodes(
        String cluster,
        String pool,
        int hosts,
        String machineType,
        String accelerator,
        String topology,
        Map<String, String> labels,
        int chipsPerNode) {

    public String nodeName(int index) {
        return "gke-" + cluster + "-" + pool + "-" + index;
    }
}
