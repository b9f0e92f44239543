package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.falcon.executor.core.EdgeApi;
import java.util.List;
import org.junit.jupiter.api.Test;

public class KubernetesEdgeApiTest {

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

    /** The classification the executor's decisions get (for tests of other packages). */
    public static io.falcon.executor.core.ApiException classify(RuntimeException e) {
        return KubernetesEdgeApi.classify(e);
    }

    @Test
    void aRequestThatGotNoAnswerOrWhoseCredentialsWereRefusedIsWorthAskingGkeWhereTheClusterIsNow() {
        var noAnswer = new io.fabric8.kubernetes.client.KubernetesClientException(
                "Operation: [delete] for kind: [Job] failed.", new java.io.IOException("ClosedChannelException"));
        assertThat(KubernetesEdgeApi.unreachable(noAnswer)).isTrue();
        assertThat(KubernetesEdgeApi.unreachable(new IllegalStateException(new java.net.ConnectException())))
                .isTrue();
        assertThat(KubernetesEdgeApi.unreachable(
                        new io.fabric8.kubernetes.client.KubernetesClientException("Unauthorized", 401, null)))
                .isTrue();
        assertThat(KubernetesEdgeApi.unreachable(
                        new io.fabric8.kubernetes.client.KubernetesClientException("Forbidden", 403, null)))
                .isFalse();
        assertThat(KubernetesEdgeApi.unreachable(
                        new io.fabric8.kubernetes.client.KubernetesClientException("busy", 503, null)))
                .isFalse();
    }

    @Test
    void registeredAndReadyAreCountedApart() {
        assertThat(KubernetesEdgeApi.count(List.of())).isEqualTo(new EdgeApi.NodeCount(0, 0));
        assertThat(KubernetesEdgeApi.count(
                        List.of(node("a", "True"), node("b", "False"), node("c", "Unknown"), node("d", null))))
                .isEqualTo(new EdgeApi.NodeCount(4, 1));
    }
}
