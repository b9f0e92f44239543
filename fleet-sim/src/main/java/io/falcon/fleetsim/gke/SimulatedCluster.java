package io.falcon.fleetsim.gke;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** One simulated GKE cluster: identity, where its Kubernetes API lives, and its node pools (guarded by GkeFleet). */
final class SimulatedCluster {

    final ClusterRef ref;
    final String tpuType;
    /** Where its Kubernetes API is now, and the CA it presents (both change when the control plane rotates). */
    String kubernetesUrl;

    String caCertificateBase64;
    /** GKE's unique id of this cluster: a cluster deleted and created again under the same name has a new one. */
    final String id = java.util.UUID.randomUUID().toString().replace("-", "");

    final NodePoolKnobs knobs;
    final Instant createdAt;
    final Map<String, SimulatedNodePool> pools = new LinkedHashMap<>();

    SimulatedCluster(
            ClusterRef ref,
            String tpuType,
            String kubernetesUrl,
            String caCertificateBase64,
            NodePoolKnobs knobs,
            Instant createdAt) {
        this.ref = ref;
        this.tpuType = tpuType;
        this.kubernetesUrl = kubernetesUrl;
        this.caCertificateBase64 = caCertificateBase64;
        this.knobs = knobs;
        this.createdAt = createdAt;
    }
}
