package io.falcon.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OpsServerTest {
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();
    private PrometheusMeterRegistry registry;
    private OpsServer ops;

    @BeforeEach
    void start() {
        registry = FalconMetrics.newRegistry("test-component");
        ops = OpsServer.start("test-component", 0, registry);
    }

    @AfterEach
    void stop() {
        ops.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ops.port() + path))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthzAnswers200WhileAlive() throws Exception {
        HttpResponse<String> response = get("/healthz");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json.readTree(response.body()).get("status").asText()).isEqualTo("UP");
    }

    @Test
    void healthzAnswers503WhenALivenessCheckFails() throws Exception {
        ops.addLivenessCheck(ReadinessCheck.of("stream-threads", () -> ReadinessCheck.Result.fail("state ERROR")));
        HttpResponse<String> response = get("/healthz");
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).contains("stream-threads").contains("state ERROR");
    }

    @Test
    void readyzNamesTheFailingCheckUntilItPasses() throws Exception {
        AtomicBoolean joined = new AtomicBoolean(false);
        ops.addReadinessCheck(Checks.flag("consumer:falcon.task-status", joined::get, "not in its group yet"));
        ops.addReadinessCheck(ReadinessCheck.of("database", () -> ReadinessCheck.Result.ok("database answers")));

        HttpResponse<String> notReady = get("/readyz");
        assertThat(notReady.statusCode()).isEqualTo(503);
        JsonNode body = json.readTree(notReady.body());
        assertThat(body.get("status").asText()).isEqualTo("DOWN");
        assertThat(body.get("component").asText()).isEqualTo("test-component");
        JsonNode failing = body.get("checks").get(0);
        assertThat(failing.get("name").asText()).isEqualTo("consumer:falcon.task-status");
        assertThat(failing.get("ok").asBoolean()).isFalse();
        assertThat(failing.get("detail").asText()).isEqualTo("not in its group yet");
        assertThat(body.get("checks").get(1).get("ok").asBoolean()).isTrue();

        joined.set(true);
        HttpResponse<String> ready = get("/readyz");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(json.readTree(ready.body()).get("status").asText()).isEqualTo("UP");
    }

    @Test
    void readyzFailsAfterShutdownStarts() throws Exception {
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
        ops.markShuttingDown();
        HttpResponse<String> response = get("/readyz");
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).contains("shutting down");
    }

    @Test
    void aCheckThatThrowsFailsInsteadOfBreakingTheProbe() throws Exception {
        ops.addReadinessCheck(ReadinessCheck.of("broken", () -> {
            throw new IllegalStateException("boom");
        }));
        HttpResponse<String> response = get("/readyz");
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).contains("broken").contains("boom");
    }

    @Test
    void consumerAssignmentCheckNeedsPartitions() throws Exception {
        java.util.concurrent.atomic.AtomicReference<Set<TopicPartition>> assigned =
                new java.util.concurrent.atomic.AtomicReference<>(Set.of());
        ops.addReadinessCheck(Checks.consumerAssignment("executor-commands", assigned::get));
        assertThat(get("/readyz").body()).contains("no partitions assigned yet");
        assigned.set(Set.of(new TopicPartition("falcon.executor.commands", 0)));
        HttpResponse<String> ready = get("/readyz");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).contains("1 partitions assigned");
    }

    @Test
    void assignmentTrackerPublishesTheRebalanceCallbacks() {
        Checks.AssignmentTracker tracker = new Checks.AssignmentTracker();
        ReadinessCheck check = Checks.consumerJoined("sink", tracker);
        assertThat(check.check().ok()).isFalse();
        TopicPartition p0 = new TopicPartition("t", 0);
        TopicPartition p1 = new TopicPartition("t", 1);
        tracker.onPartitionsAssigned(Set.of(p0, p1));
        assertThat(check.check().ok()).isTrue();
        tracker.onPartitionsRevoked(Set.of(p0));
        assertThat(tracker.assignment()).containsExactly(p1);
        tracker.onPartitionsLost(Set.of(p1));
        assertThat(check.check().ok()).isFalse();
    }

    @Test
    void metricsServesPrometheusTextWithFalconMeters() throws Exception {
        FalconMetrics metrics = new FalconMetrics(registry);
        metrics.queueDepth("cluster-a", "2x4", 3);
        metrics.reservationRemaining("cluster-a", "res-1", 12);
        metrics.activePools("cluster-a", 2);
        metrics.runningJobs("cluster-a", 1);
        metrics.isolatedDevices("cluster-a", 1);
        metrics.failure("NodePoolTimeout");
        metrics.faultVerdict("hardware", "cluster-a");
        metrics.dispatchLatency("v6e", "cluster-a").record(Duration.ofSeconds(42));
        metrics.sinkWriteLatency().record(Duration.ofMillis(5));
        metrics.sinkBatchSize().record(17);
        metrics.sinkLag().record(Duration.ofMillis(250));

        HttpResponse<String> response = get("/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
        String text = response.body();
        assertThat(text)
                .contains("falcon_queue_depth{cluster=\"cluster-a\",component=\"test-component\",topology=\"2x4\"} 3.0")
                .contains("falcon_reservation_remaining{cluster=\"cluster-a\",component=\"test-component\","
                        + "reservation=\"res-1\"} 12.0")
                .contains("falcon_node_pools_active{cluster=\"cluster-a\",component=\"test-component\"} 2.0")
                .contains("falcon_jobs_running{")
                .contains("falcon_isolated_devices{")
                .contains("falcon_job_failures_total{component=\"test-component\",reason=\"NodePoolTimeout\"} 1.0")
                .contains("falcon_fault_verdicts_total{")
                .contains("falcon_dispatch_latency_seconds_count{cluster=\"cluster-a\",component=\"test-component\","
                        + "tpu_type=\"v6e\"} 1")
                .contains("falcon_sink_write_latency_seconds_bucket")
                .contains("falcon_sink_batch_size_count")
                .contains("falcon_sink_lag_seconds_sum")
                .contains("jvm_memory_used_bytes");

        metrics.queueDepth("cluster-a", "2x4", 0);
        assertThat(get("/metrics").body())
                .contains(
                        "falcon_queue_depth{cluster=\"cluster-a\",component=\"test-component\",topology=\"2x4\"} 0.0");
        metrics.forgetCluster("cluster-a");
        assertThat(get("/metrics").body()).doesNotContain("falcon_queue_depth{cluster=\"cluster-a\"");
    }

    @Test
    void jdbcCheckFailsWithTheReasonAndWithoutThePassword() {
        ReadinessCheck check = Checks.jdbc("database", "jdbc:falcon-nowhere://db:3306/falcon", "falcon", "s3cret");
        ReadinessCheck.Result result = check.check();
        assertThat(result.ok()).isFalse();
        assertThat(result.detail()).startsWith("database unreachable: ").doesNotContain("s3cret");
    }

    @Test
    void onlyGetIsAllowed() throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ops.port() + "/readyz"))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(405);
    }

    @Test
    void portComesFromTheSettingOrTheEnvironmentName() {
        assertThat(OpsServer.portFrom(java.util.Map.of())).isEqualTo(OpsServer.DEFAULT_PORT);
        assertThat(OpsServer.portFrom(java.util.Map.of("FALCON_OPS_PORT", "9100")))
                .isEqualTo(9100);
        assertThat(OpsServer.portFrom(java.util.Map.of("falcon.ops.port", "9200")))
                .isEqualTo(9200);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> OpsServer.portFrom(java.util.Map.of("FALCON_OPS_PORT", "http")))
                .hasMessageContaining("falcon.ops.port")
                .hasMessageContaining("'http'");
    }
}
