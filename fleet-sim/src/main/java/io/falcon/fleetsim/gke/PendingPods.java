package io.falcon.fleetsim.gke;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the cluster autoscaler watches: the cluster's pods that are Pending and Unschedulable, and the nodes pods
 * are on. The Kubernetes side (the Job simulator, which acts as scheduler) reports them; the GKE side
 * ({@link GkeFleet}) decides which autoscaled node pools to scale up for them, and which to scale down. Lives here, beside {@link NodeRegistrar}, so that the kube package
 * depends on gke and not the other way round.
 */
public interface PendingPods {

    /**
     * The pods of this cluster that are Pending and Unschedulable right now, all of them each time, also none (a pod
     * reported once and not again is no longer pending). Called from the scheduler's thread; must be quick.
     */
    void unschedulable(List<PendingPod> pods);

    /**
     * The nodes that hold a pod which has not finished (running, or bound and pulling its image), all of them each
     * time, for the autoscaler's scale-down: a pool none of whose nodes is in it is unneeded. Called from the
     * scheduler's thread after {@link #unschedulable}; must be quick.
     */
    default void occupied(Set<String> nodeNames) {}

    /** One pending pod: its name, the node labels it selects, and whether it needs a TPU node of its own. */
    record PendingPod(String name, Map<String, String> nodeSelector, boolean needsTpu) {
        public PendingPod {
            nodeSelector = Map.copyOf(nodeSelector);
        }
    }

    PendingPods NONE = pods -> {};
}
