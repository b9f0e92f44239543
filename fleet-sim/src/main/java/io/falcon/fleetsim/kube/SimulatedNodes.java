package io.falcon.fleetsim.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.falcon.fleetsim.gke.NodeRegistrar;
import io.falcon.fleetsim.gke.PoolNodes;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates and deletes the Kubernetes Node objects of simulated GKE node pools in one edge cluster. */
public final class SimulatedNodes implements NodeRegistrar {

    private static final Logger log = LoggerFactory.getLogger(SimulatedNodes.class);
    public static final String NODE_POOL_LABEL = PoolNodes.NODE_POOL_LABEL;

    private static final AtomicInteger ADDRESSES = new AtomicInteger();

    private final KubernetesClient client;
    private final Clock clock;

    public SimulatedNodes(KubernetesClient client, Clock clock) {
        this.client = client;
        this.clock = clock;
    }

    @Override
    public void addNodes(PoolNodes pool) {
        for (int i = pool.firstIndex(); i < pool.firstIndex() + pool.hosts(); i++) {
            Node node = node(pool, i);
            try {
                client.nodes().resource(node).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
        }
        log.info(
                "nodes registered cluster={} pool={} count={} from={}",
                pool.cluster(),
                pool.pool(),
                pool.hosts(),
                pool.firstIndex());
    }

    @Override
    public void removeNodes(String cluster, String pool) {
        for (Node node : client.nodes().withLabel(NODE_POOL_LABEL, pool).list().getItems()) {
            try {
                client.nodes().withName(node.getMetadata().getName()).delete();
            } catch (KubernetesClientException e) {
                log.debug("node {} already gone: {}", node.getMetadata().getName(), e.getCode());
            }
        }
        log.info("nodes removed cluster={} pool={}", cluster, pool);
    }

    private Node node(PoolNodes pool, int index) {
        String name = pool.nodeName(index);
        Map<String, String> labels = new LinkedHashMap<>(pool.nodeLabels());
        labels.put("kubernetes.io/hostname", name);
        boolean tpu = !pool.accelerator().isEmpty();
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        capacity.put("cpu", new Quantity("8"));
        capacity.put("memory", new Quantity("32Gi"));
        capacity.put("pods", new Quantity("110"));
        if (tpu) {
            // the machine type's chips, advertised as the google.com/tpu extended resource
            capacity.put("google.com/tpu", new Quantity(Integer.toString(pool.chipsPerNode())));
        }
        String now = DateTimeFormatter.ISO_INSTANT.format(
                clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        int address = ADDRESSES.incrementAndGet();
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withProviderID("gce://fleet-sim/" + pool.cluster() + "/" + name)
                .endSpec()
                .withNewStatus()
                .withCapacity(capacity)
                .withAllocatable(capacity)
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .withReason("KubeletReady")
                .withMessage("kubelet is posting ready status")
                .withLastHeartbeatTime(now)
                .withLastTransitionTime(now)
                .endCondition()
                .addNewAddress()
                .withType("InternalIP")
                .withAddress("10.128." + (address / 250) + "." + (address % 250 + 2))
                .endAddress()
                .addNewAddress()
                .withType("Hostname")
                .withAddress(name)
                .endAddress()
                .endStatus()
                .build();
    }
}
