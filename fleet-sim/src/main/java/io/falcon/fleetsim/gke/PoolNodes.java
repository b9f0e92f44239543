package io.falcon.fleetsim.gke;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Kubernetes nodes a node pool brings, at once: {@code hosts} nodes named {@code gke-<cluster>-<pool>-<i>} for i from
 * {@code firstIndex} (0 when the pool comes up; the pool's node count so far for a scale-up).
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
        int chipsPerNode,
        int firstIndex) {

    public static final String NODE_POOL_LABEL = "cloud.google.com/gke-nodepool";
    public static final String TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator";
    public static final String TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology";

    public PoolNodes {
        labels = Map.copyOf(labels);
    }

    /** The same nodes, {@code count} of them from {@code from} (a scale-up). */
    public PoolNodes range(int from, int count) {
        return new PoolNodes(cluster, pool, count, machineType, accelerator, topology, labels, chipsPerNode, from);
    }

    public String nodeName(int index) {
        return "gke-" + cluster + "-" + pool + "-" + index;
    }

    /**
     * The labels every node of the pool carries (each node adds its own {@code kubernetes.io/hostname}): the pool's
     * config labels, the pool's name, OS, machine type, and for TPU pools the accelerator and topology. The cluster
     * autoscaler matches pending pods' node selectors against these.
     */
    public Map<String, String> nodeLabels() {
        Map<String, String> all = new LinkedHashMap<>(labels);
        all.put(NODE_POOL_LABEL, pool);
        all.put("kubernetes.io/os", "linux");
        if (!machineType.isEmpty()) {
            all.put("node.kubernetes.io/instance-type", machineType);
        }
        if (!accelerator.isEmpty()) {
            all.put(TPU_ACCELERATOR_LABEL, accelerator);
        }
        if (!topology.isEmpty()) {
            all.put(TPU_TOPOLOGY_LABEL, topology);
        }
        return all;
    }

    /** Whether a pod with this node selector fits the pool's nodes (every key it selects, with that value). */
    public boolean selectedBy(Map<String, String> nodeSelector) {
        Map<String, String> carried = nodeLabels();
        return nodeSelector.entrySet().stream().allMatch(e -> e.getValue().equals(carried.get(e.getKey())));
    }
}
