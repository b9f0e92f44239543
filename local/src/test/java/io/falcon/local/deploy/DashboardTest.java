package io.falcon.local.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.falcon.ops.FalconMetrics;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard queries only what the components export: every metric name and every label its PromQL
 * uses is in a Prometheus scrape of a component's registry with every {@link FalconMetrics} meter recorded once;
 * and Prometheus in docker-compose scrapes every component at its ops port.
 */
class DashboardTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path DASHBOARD = ROOT.resolve("deploy/grafana/dashboards/falcon.json");
    private static final Pattern METRIC = Pattern.compile("\\b((?:falcon|jvm|process)_[a-z0-9_]+)\\b");
    private static final Pattern BY = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");
    private static final Pattern MATCHER = Pattern.compile("([a-z_]+)\\s*(?:=~|!=|!~|=)\\s*\"");

    /** Metric name -> label names, as a component's /metrics shows them. */
    private static Map<String, Set<String>> exported() throws Exception {
        PrometheusMeterRegistry registry = FalconMetrics.newRegistry("test");
        FalconMetrics metrics = new FalconMetrics(registry);
        for (Method method : FalconMetrics.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(method.getModifiers())
                    || Modifier.isStatic(method.getModifiers())
                    || method.getName().equals("registry")
                    || method.getName().equals("forgetCluster")) {
                continue;
            }
            Object[] args = new Object[method.getParameterCount()];
            Class<?>[] types = method.getParameterTypes();
            for (int i = 0; i < args.length; i++) {
                args[i] = types[i] == long.class ? (Object) 1L : types[i] == int.class ? (Object) 1 : "x";
            }
            Object meter = method.invoke(metrics, args);
            if (meter instanceof Timer timer) {
                timer.record(Duration.ofSeconds(2));
            } else if (meter instanceof DistributionSummary summary) {
                summary.record(3);
            }
        }
        Map<String, Set<String>> labels = new HashMap<>();
        Pattern line = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})?\\s");
        Pattern label = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");
        for (String l : registry.scrape().split("\n")) {
            Matcher m = line.matcher(l);
            if (l.startsWith("#") || !m.find()) {
                continue;
            }
            Set<String> names = labels.computeIfAbsent(m.group(1), k -> new TreeSet<>());
            if (m.group(3) != null) {
                Matcher lm = label.matcher(m.group(3));
                while (lm.find()) {
                    names.add(lm.group(1));
                }
            }
        }
        return labels;
    }

    private static List<String> expressions() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
        List<String> exprs = new ArrayList<>();
        dashboard
                .get("panels")
                .forEach(p ->
                        p.get("targets").forEach(t -> exprs.add(t.get("expr").asText())));
        return exprs;
    }

    @Test
    void everyMetricAndLabelTheDashboardQueriesIsExported() throws Exception {
        Map<String, Set<String>> exported = exported();
        List<String> exprs = expressions();
        assertThat(exprs).hasSizeGreaterThanOrEqualTo(15);
        Set<String> queried = new TreeSet<>();
        for (String expr : exprs) {
            Matcher metric = METRIC.matcher(expr);
            Set<String> available = new TreeSet<>();
            boolean any = false;
            while (metric.find()) {
                any = true;
                String name = metric.group(1);
                queried.add(name);
                assertThat(exported).as("metric %s in %s", name, expr).containsKey(name);
                available.addAll(exported.get(name));
            }
            assertThat(any).as("a Falcon or JVM metric in " + expr).isTrue();
            List<String> used = new ArrayList<>();
            Matcher by = BY.matcher(expr);
            while (by.find()) {
                for (String l : by.group(1).split(",")) {
                    used.add(l.trim());
                }
            }
            Matcher matcher = MATCHER.matcher(expr);
            while (matcher.find()) {
                used.add(matcher.group(1));
            }
            for (String l : used) {
                assertThat(available).as("label %s in %s", l, expr).contains(l);
            }
        }
        // the panels the issue asks for
        assertThat(queried)
                .contains(
                        "falcon_queue_depth",
                        "falcon_queue_wait_seconds_bucket",
                        "falcon_dispatch_latency_seconds_bucket",
                        "falcon_job_duration_seconds_bucket",
                        "falcon_job_failures_total",
                        "falcon_reservation_remaining",
                        "falcon_node_pools_active",
                        "falcon_isolated_devices",
                        "falcon_dead_letters_total",
                        "falcon_node_pool_reuse_total");
    }

    @Test
    void theCheckCatchesAMetricNobodyExports() throws Exception {
        Map<String, Set<String>> exported = exported();
        assertThat(exported).doesNotContainKey("falcon_queue_depth_total");
        assertThat(exported.get("falcon_queue_depth")).contains("cluster", "topology", "component");
        assertThat(exported.get("falcon_job_duration_seconds_bucket"))
                .contains("tpu_type", "topology", "outcome", "le");
    }

    @Test
    void composeRunsPrometheusScrapingEveryComponentAndGrafanaWithTheDashboard() throws IOException {
        JsonNode compose =
                new YAMLMapper().readTree(ROOT.resolve("docker-compose.yml").toFile());
        JsonNode services = compose.get("services");
        JsonNode prometheusConfig = new YAMLMapper()
                .readTree(ROOT.resolve("deploy/prometheus/prometheus.yml").toFile());
        Set<String> targets = new TreeSet<>();
        prometheusConfig
                .at("/scrape_configs/0/static_configs")
                .forEach(c -> c.get("targets").forEach(t -> targets.add(t.asText())));
        assertThat(prometheusConfig.at("/scrape_configs/0/metrics_path").asText())
                .isEqualTo("/metrics");
        for (String component : List.of("cdc-ingest", "scheduler", "executor", "status-sink", "fault-streams")) {
            JsonNode service = services.get(component);
            String port = service.at("/environment/FALCON_OPS_PORT").asText();
            // a component in another service's network namespace is reached at that service's name
            String host = service.path("network_mode").asText("").startsWith("service:")
                    ? service.get("network_mode").asText().substring("service:".length())
                    : component;
            assertThat(targets).as("Prometheus target of " + component).contains(host + ":" + port);
        }
        assertThat(services.at("/prometheus/volumes/0").asText()).startsWith("./deploy/prometheus/prometheus.yml:");
        List<String> grafanaVolumes = new ArrayList<>();
        services.at("/grafana/volumes").forEach(v -> grafanaVolumes.add(v.asText()));
        assertThat(grafanaVolumes)
                .anyMatch(v -> v.startsWith("./deploy/grafana/dashboards:"))
                .anyMatch(v -> v.startsWith("./deploy/grafana/provisioning:"));
        for (String v : grafanaVolumes) {
            assertThat(ROOT.resolve(v.substring(2, v.indexOf(':')))).exists();
        }
        JsonNode datasource = new YAMLMapper()
                .readTree(ROOT.resolve("deploy/grafana/provisioning/datasources/prometheus.yml")
                        .toFile());
        String uid = datasource.at("/datasources/0/uid").asText();
        new ObjectMapper()
                .readTree(Files.readString(DASHBOARD))
                .get("panels")
                .forEach(p -> assertThat(p.at("/datasource/uid").asText()).isEqualTo(uid));
    }
}
