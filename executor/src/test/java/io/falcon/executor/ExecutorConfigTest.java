package io.falcon.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.config.DurationText;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.config.SharedKeys;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutorConfigTest {

    @Test
    void defaults() {
        ExecutorConfig c = ExecutorConfig.from(Map.of(SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), "k:9092"));
        assertThat(c.credentials()).isEqualTo(ExecutorConfig.Credentials.GOOGLE_ADC);
        assertThat(c.gkeEndpoint()).isEqualTo("container.googleapis.com:443");
        assertThat(c.gkePlaintext()).isFalse();
        assertThat(c.computeEndpoint()).isEqualTo("https://compute.googleapis.com");
        assertThat(c.namespace()).isEqualTo("default");
        assertThat(c.nodePoolCreateTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.groupId()).isEqualTo("falcon-executor");
        assertThat(c.visibilityGrace()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.inventoryInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.maxBackoff()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.scaleDown().reservation()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.scaleDown().onDemand()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.scaleDown().flexStart()).isEqualTo(Duration.ofHours(6));
        assertThat(c.jobIdentity())
                .as("the clusters row's account, as before: per-actor accounts must be provisioned first")
                .isEqualTo(io.falcon.executor.k8s.JobRenderer.Identity.CLUSTER);
    }

    @Test
    void perActorIdentityIsOneSettingAwayAndAnUnknownWordIsRefused() {
        ExecutorConfig c = ExecutorConfig.from(
                Map.of("FALCON_KAFKA_BOOTSTRAP_SERVERS", "k:1", "FALCON_EXECUTOR_JOB_IDENTITY", "actor"));
        assertThat(c.jobIdentity()).isEqualTo(io.falcon.executor.k8s.JobRenderer.Identity.ACTOR);
        var command = io.falcon.executor.Fixtures.ensureJob("job-1", "2x2x1", io.falcon.executor.Fixtures.spec())
                .withActor("team-a");
        assertThat(c.jobRenderer()
                        .render(command)
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getServiceAccountName())
                .isEqualTo(io.falcon.events.ResourceNames.actorKey("team-a"));
        assertThatThrownBy(() -> ExecutorConfig.from(
                        Map.of("FALCON_KAFKA_BOOTSTRAP_SERVERS", "k:1", "FALCON_EXECUTOR_JOB_IDENTITY", "tenant")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ExecutorKeys.JOB_IDENTITY.key());
    }

    @Test
    void simulatorSettings() {
        ExecutorConfig c =
                ExecutorConfig.from(ExecutorConfig.simulatorDefaults("k:1", "127.0.0.1:4000", "http://127.0.0.1:4001"));
        assertThat(c.credentials()).isEqualTo(ExecutorConfig.Credentials.NONE);
        assertThat(c.gkePlaintext()).isTrue();
        assertThat(c.pollInterval()).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void fromEnv() {
        ExecutorConfig c = ExecutorConfig.from(Map.of(
                "FALCON_KAFKA_BOOTSTRAP_SERVERS",
                "k:1",
                "FALCON_EXECUTOR_NODE_POOL_CREATE_TIMEOUT",
                "PT15M",
                "FALCON_EXECUTOR_NAMESPACE",
                "jobs"));
        assertThat(c.nodePoolCreateTimeout()).isEqualTo(Duration.ofMinutes(15));
        assertThat(c.namespace()).isEqualTo("jobs");
    }

    @Test
    void badSettingsAreNamed() {
        assertThatThrownBy(() -> ExecutorConfig.from(Map.of(
                        ExecutorKeys.CREDENTIALS.key(),
                        "kubeconfig",
                        ExecutorKeys.NODE_POOL_CREATE_TIMEOUT.key(),
                        "soon",
                        ExecutorKeys.GKE_ENDPOINT.key(),
                        "http://x:1",
                        "falcon.executor.typo",
                        "1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key())
                .hasMessageContaining(ExecutorKeys.CREDENTIALS.key())
                .hasMessageContaining(ExecutorKeys.NODE_POOL_CREATE_TIMEOUT.key())
                .hasMessageContaining(ExecutorKeys.GKE_ENDPOINT.key())
                .hasMessageContaining("falcon.executor.typo");
    }

    @Test
    void durations() {
        assertThat(DurationText.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationText.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(DurationText.format(Duration.ofMinutes(10))).isEqualTo("10m");
        assertThat(DurationText.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
    }

    @Test
    void nodePoolTimers() {
        ExecutorConfig c = ExecutorConfig.from(Map.of(
                SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(),
                "k:9092",
                "falcon.executor.node-pool.visibility-grace",
                "45s",
                "falcon.executor.node-pool.inventory-interval",
                "5m",
                "falcon.executor.max-backoff",
                "30s",
                "falcon.executor.node-pool.scale-down.reservation",
                "5m",
                "falcon.executor.node-pool.scale-down.on-demand",
                "15m",
                "falcon.executor.node-pool.scale-down.flex-start",
                "8h"));
        assertThat(c.visibilityGrace()).isEqualTo(Duration.ofSeconds(45));
        assertThat(c.inventoryInterval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.maxBackoff()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.scaleDown())
                .isEqualTo(new io.falcon.executor.gke.NodePoolSpec.ScaleDown(
                        Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofHours(8)));
        assertThatThrownBy(() -> ExecutorConfig.from(Map.of(
                        SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(),
                        "k:9092",
                        "falcon.executor.node-pool.scale-down.flex-start",
                        "forever")))
                .hasMessageContaining("falcon.executor.node-pool.scale-down.flex-start");
    }
}
