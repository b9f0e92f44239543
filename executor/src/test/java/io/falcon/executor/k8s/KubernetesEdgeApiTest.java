package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.falcon.executor.core.EdgeApi;
import java.util.List;
import org.junit.jupiter.api.Test;

class KubernetesEdgeApiTest {

    private static Node node(String name, String ready) {
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
        if (ready != null) {
            b.withNewStatus()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus(ready)
                    .endCondition()
                    .endStatus();
        }
        return b.build();
    }

    @Test
    void registeredAndReadyAreCountedApart() {
        assertThat(KubernetesEdgeApi.count(List.of())).isEqualTo(new EdgeApi.NodeCount(0, 0));
        assertThat(KubernetesEdgeApi.count(
                        List.of(node("a", "True"), node("b", "False"), node("c", "Unknown"), node("d", null))))
                .isEqualTo(new EdgeApi.NodeCount(4, 1));
    }
}
