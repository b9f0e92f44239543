package io.falcon.fleetsim.kube;

import java.time.Instant;

/** The simulator's view of one pod it created (owned by the simulator thread). */
final class SimulatedPod {

    enum Phase {
        UNSCHEDULABLE,
        IMAGE_PULL_FAILING,
        /** On its node with its image, but the kubelet cannot make its container: a Secret it references is missing. */
        CONFIG_FAILING,
        RUNNING,
        SUCCEEDED,
        FAILED
    }

    final String name;
    final int index;
    final boolean needsTpu;
    Phase phase = Phase.UNSCHEDULABLE;
    String nodeName;
    String hostIp;
    String podIp;
    Instant scheduledAt;
    Instant startedAt;
    Instant finishAt;
    Instant finishedAt;
    /** ImagePullBackOff follows the first ErrImagePull. */
    boolean backingOff;
    /** When a transient pull error is over and the image is pulled (null: the pull never succeeds). */
    Instant pulledAt;
    /** Why the kubelet cannot make the container (CONFIG_FAILING), as the kubelet says it. */
    String configError;
    /**
     * The reason of the DisruptionTarget condition Kubernetes set before deleting the pod for the fleet's sake (null:
     * none): DeletionByPodGC when its node is gone.
     */
    String disruption;

    SimulatedPod(String name, int index, boolean needsTpu) {
        this.name = name;
        this.index = index;
        this.needsTpu = needsTpu;
    }

    boolean terminal() {
        return phase == Phase.SUCCEEDED || phase == Phase.FAILED;
    }
}
