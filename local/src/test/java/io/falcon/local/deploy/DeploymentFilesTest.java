package io.falcon.local.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.falcon.cdc.CdcConfig;
import io.falcon.console.ConsoleConfig;
import io.falcon.embedded.containers.Mysql8Containers;
import io.falcon.executor.ExecutorConfig;
import io.falcon.faults.FaultStreamsConfig;
import io.falcon.ops.GracefulShutdown;
import io.falcon.ops.OpsServer;
import io.falcon.scheduler.SchedulerConfig;
import io.falcon.statussink.StatusSinkConfig;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The deployment files cannot run here (no Docker daemon, no cluster), so their structure is checked: the k8s
 * manifests load as typed fabric8 objects, docker-compose.yml has what it must, every environment variable is a
 * setting the component really reads, and deploy/entrypoint.sh starts classes that exist.
 */
class DeploymentFilesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path K8S = ROOT.resolve("k8s");
    private static final List<String> COMPONENTS =
            List.of("cdc-ingest", "scheduler", "executor", "status-sink", "fault-streams", "console");
    /** Read by deploy/entrypoint.sh or the JVM, not by a config class. */
    private static final Set<String> LAUNCHER_ENV =
            Set.of("FALCON_LOG_FORMAT", "FALCON_LOG_LEVEL", "FALCON_JAVA_OPTS", "JAVA_TOOL_OPTIONS");

    private static final Map<String, Function<Map<String, String>, Object>> CONFIGS = Map.of(
            "cdc-ingest", env -> CdcConfig.fromEnvironment(env, new Properties()),
            "scheduler", env -> SchedulerConfig.from(env),
            "executor", env -> ExecutorConfig.from(env),
            "status-sink", env -> StatusSinkConfig.from(env),
            "fault-streams", env -> FaultStreamsConfig.from(env),
            "console", env -> ConsoleConfig.from(env));

    private static KubernetesClient kubernetes;
    private static List<HasMetadata> manifests;

    @BeforeAll
    static void loadManifests() throws IOException {
        kubernetes = new KubernetesClientBuilder().build();
        manifests = new ArrayList<>();
        for (String file : kustomizationResources()) {
            try (InputStream in = Files.newInputStream(K8S.resolve(file))) {
                List<HasMetadata> items = kubernetes.load(in).items();
                assertThat(items).as("objects in k8s/" + file).isNotEmpty();
                manifests.addAll(items);
            }
        }
    }

    @AfterAll
    static void close() {
        kubernetes.close();
    }

    @SuppressWarnings("unchecked")
    private static List<String> kustomizationResources() throws IOException {
        Map<String, Object> kustomization = new Yaml().load(Files.readString(K8S.resolve("kustomization.yaml")));
        return (List<String>) kustomization.get("resources");
    }

    private static <T extends HasMetadata> List<T> all(Class<T> type) {
        return manifests.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static <T extends HasMetadata> T named(Class<T> type, String name) {
        return all(type).stream()
                .filter(o -> o.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name + " in k8s/"));
    }

    @Test
    void kustomizationListsEveryManifestAndOnlyExistingOnes() throws IOException {
        List<String> listed = kustomizationResources();
        Set<String> files = new TreeSet<>();
        try (Stream<Path> entries = Files.list(K8S)) {
            entries.filter(p -> p.toString().endsWith(".yaml") && !p.endsWith("kustomization.yaml"))
                    .forEach(p -> files.add(p.getFileName().toString()));
        }
        assertThat(new TreeSet<>(listed)).isEqualTo(files);
        Map<String, Object> kustomization = new Yaml().load(Files.readString(K8S.resolve("kustomization.yaml")));
        assertThat(kustomization).containsEntry("namespace", "falcon");
    }

    @Test
    void namespaceAndTheWorkloadIdentityServiceAccount() {
        assertThat(named(Namespace.class, "falcon")).isNotNull();
        ServiceAccount account = named(ServiceAccount.class, "falcon-controller");
        assertThat(account.getMetadata().getNamespace()).isEqualTo("falcon");
        assertThat(account.getMetadata().getAnnotations())
                .hasEntrySatisfying(
                        "iam.gke.io/gcp-service-account",
                        gsa -> assertThat(gsa)
                                .matches("falcon-controller@[A-Za-z0-9_-]+\\.iam\\.gserviceaccount\\.com"));
        assertThat(named(ServiceAccount.class, "falcon-runtime").getMetadata().getAnnotations())
                .as("falcon-runtime has no Workload Identity")
                .doesNotContainKey("iam.gke.io/gcp-service-account");
        manifests.stream()
                .filter(o -> !(o instanceof Namespace))
                .forEach(o -> assertThat(o.getMetadata().getNamespace())
                        .as(o.getKind() + " " + o.getMetadata().getName())
                        .isEqualTo("falcon"));
    }

    @Test
    void oneDeploymentPerComponentWithProbesResourcesAndGracefulShutdownTime() {
        assertThat(all(Deployment.class)).hasSize(COMPONENTS.size());
        for (String component : COMPONENTS) {
            Deployment deployment = named(Deployment.class, "falcon-" + component);
            var pod = deployment.getSpec().getTemplate().getSpec();
            // Only the executor holds the Google identity that reaches edge clusters (docs/security.md).
            assertThat(pod.getServiceAccountName())
                    .as(component)
                    .isEqualTo(component.equals("executor") ? "falcon-controller" : "falcon-runtime");
            assertThat(pod.getTerminationGracePeriodSeconds())
                    .as(component)
                    .isGreaterThan(GracefulShutdown.DEFAULT_DEADLINE.toSeconds());
            assertThat(deployment.getSpec().getSelector().getMatchLabels())
                    .isEqualTo(Map.of("app.kubernetes.io/name", "falcon-" + component));
            assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
                    .containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());
            assertThat(pod.getContainers()).hasSize(1);
            Container container = pod.getContainers().get(0);
            assertThat(container.getArgs()).as(component).containsExactly(component);
            assertThat(container.getPorts()).anySatisfy(p -> {
                assertThat(p.getName()).isEqualTo("ops");
                assertThat(p.getContainerPort()).isEqualTo(OpsServer.DEFAULT_PORT);
            });
            assertProbe(component, container.getLivenessProbe(), "/healthz");
            assertProbe(component, container.getReadinessProbe(), "/readyz");
            assertThat(container.getResources().getRequests()).as(component).containsKeys("cpu", "memory");
            assertThat(container.getResources().getLimits()).as(component).containsKeys("cpu", "memory");
            for (EnvFromSource from : container.getEnvFrom()) {
                assertThat(named(ConfigMap.class, from.getConfigMapRef().getName()))
                        .isNotNull();
            }
        }
        assertThat(named(Deployment.class, "falcon-cdc-ingest").getSpec().getReplicas())
                .isEqualTo(1);
        assertThat(named(Deployment.class, "falcon-cdc-ingest")
                        .getSpec()
                        .getStrategy()
                        .getType())
                .isEqualTo("Recreate");
    }

    private static void assertProbe(String component, Probe probe, String path) {
        assertThat(probe).as(component + " probe " + path).isNotNull();
        assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
        assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("ops");
    }

    @Test
    void everyComponentHasADisruptionBudgetSelectingItsPods() {
        for (String component : COMPONENTS) {
            PodDisruptionBudget pdb = named(PodDisruptionBudget.class, "falcon-" + component);
            Deployment deployment = named(Deployment.class, "falcon-" + component);
            assertThat(pdb.getSpec().getSelector().getMatchLabels())
                    .isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
            boolean single = deployment.getSpec().getReplicas() == 1;
            if (single) {
                assertThat(pdb.getSpec().getMaxUnavailable().getIntVal())
                        .as(component)
                        .isEqualTo(1);
            } else {
                assertThat(pdb.getSpec().getMinAvailable().getIntVal())
                        .as(component)
                        .isEqualTo(1);
            }
        }
    }

    @Test
    void theDefaultDeploymentRunsEachActorsJobsUnderTheActorsOwnIdentity() {
        assertThat(named(ConfigMap.class, "falcon-executor").getData())
                .containsEntry("FALCON_EXECUTOR_JOB_IDENTITY", "actor");
    }

    @Test
    void theConfigMapsHoldOnlySettingsTheComponentsRead() {
        Map<String, String> common = named(ConfigMap.class, "falcon-common").getData();
        Set<String> commonUsed = new TreeSet<>();
        for (String component : COMPONENTS) {
            Container container = named(Deployment.class, "falcon-" + component)
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .get(0);
            Map<String, String> own =
                    new HashMap<>(named(ConfigMap.class, "falcon-" + component).getData());
            for (EnvVar secret : container.getEnv() == null ? List.<EnvVar>of() : container.getEnv()) {
                own.put(secret.getName(), "secret-value");
            }
            Map<String, String> env = new HashMap<>(common);
            env.putAll(own);
            own.keySet().forEach(key -> assertRead(component, env, key));
            for (String key : common.keySet()) {
                if (isRead(component, env, key)) {
                    commonUsed.add(key);
                }
            }
            assertThat(OpsServer.portFrom(env)).isEqualTo(OpsServer.DEFAULT_PORT);
        }
        commonUsed.add(OpsServer.PORT_KEY.toUpperCase().replace('.', '_'));
        commonUsed.addAll(LAUNCHER_ENV);
        assertThat(commonUsed).as("falcon-common keys read by some component").containsAll(common.keySet());
    }

    /** A key is read if changing its value changes the component's config (or makes it invalid). */
    private static boolean isRead(String component, Map<String, String> env, String key) {
        Object base = CONFIGS.get(component).apply(env);
        Map<String, String> changed = new HashMap<>(env);
        changed.put(key, env.get(key) + "x");
        try {
            return !CONFIGS.get(component).apply(changed).equals(base);
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    private static void assertRead(String component, Map<String, String> env, String key) {
        if (LAUNCHER_ENV.contains(key) || key.equals("FALCON_OPS_PORT")) {
            return;
        }
        if (!isRead(component, env, key)) {
            fail(component + " does not read " + key + " (not a setting of its config class)");
        }
    }

    // ---- docker-compose.yml ----

    private static JsonNode compose() throws IOException {
        // SnakeYAML resolves the << merge keys; Jackson gives the tree.
        Object yaml = new Yaml().load(Files.readString(ROOT.resolve("docker-compose.yml")));
        return new ObjectMapper().valueToTree(yaml);
    }

    private static Map<String, String> env(JsonNode service) {
        Map<String, String> env = new LinkedHashMap<>();
        service.path("environment")
                .fields()
                .forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        return env;
    }

    @Test
    void composeBuildsEveryComponentFromTheDockerfile() throws IOException {
        JsonNode services = compose().get("services");
        for (String component : List.of(
                "cdc-ingest", "scheduler", "executor", "status-sink", "fault-streams", "console", "fleet-sim")) {
            JsonNode service = services.get(component);
            assertThat(service).as("service " + component).isNotNull();
            assertThat(service.at("/build/context").asText()).isEqualTo(".");
            assertThat(service.at("/build/dockerfile").asText()).isEqualTo("Dockerfile");
            assertThat(service.at("/command/0").asText()).isEqualTo(component);
            assertThat(service.path("stop_grace_period").asText()).isEqualTo("40s");
        }
        assertThat(Files.exists(ROOT.resolve("Dockerfile"))).isTrue();
        assertThat(Files.readString(ROOT.resolve("Dockerfile")))
                .contains("FROM maven:")
                .contains("FROM eclipse-temurin:17-jre")
                .contains("ENTRYPOINT [\"/falcon/entrypoint.sh\"]");
    }

    @Test
    void mysqlRunsWithRowBinlogAndTheJobsTable() throws IOException {
        JsonNode mysql = compose().at("/services/mysql");
        assertThat(mysql.get("image").asText()).startsWith("mysql:8");
        List<String> command = new ArrayList<>();
        mysql.get("command").forEach(c -> command.add(c.asText()));
        assertThat(command)
                .contains(
                        "--binlog-format=ROW",
                        "--binlog-row-image=FULL",
                        "--server-id=1",
                        "--gtid-mode=ON",
                        "--enforce-gtid-consistency=ON")
                .anyMatch(c -> c.startsWith("--log-bin"));
        List<String> volumes = new ArrayList<>();
        mysql.get("volumes").forEach(v -> volumes.add(v.asText()));
        assertThat(volumes).anyMatch(v -> v.startsWith("./docs/schema/jobs.sql:/docker-entrypoint-initdb.d/"));
        // the least-privileged users after the jobs table (10-jobs.sql), which their grants name
        assertThat(volumes)
                .contains("./deploy/mysql/20-falcon-users.sql:/docker-entrypoint-initdb.d/20-falcon-users.sql:ro")
                // the status guard of the upper components' user, after the jobs table it triggers on
                .contains(
                        "./deploy/mysql/25-falcon-jobs-guard.sql:/docker-entrypoint-initdb.d/25-falcon-jobs-guard.sql:ro");
        JsonNode services = compose().get("services");
        assertThat(env(services.get("status-sink"))).containsEntry("FALCON_DB_USER", "falcon_sink");
        assertThat(env(services.get("cdc-ingest"))).containsEntry("FALCON_CDC_DATABASE_USER", "falcon_cdc");
        assertThat(env(services.get("cli"))).containsEntry("FALCON_DB_USER", "falcon_cli");
        assertThat(services.at("/db-grants/depends_on/status-sink/condition").asText())
                .isEqualTo("service_healthy");
        for (String volume : volumes) {
            if (volume.startsWith("./")) {
                assertThat(ROOT.resolve(volume.substring(2, volume.indexOf(':'))))
                        .exists();
            }
        }
    }

    @Test
    void kafkaRunsInKraftMode() throws IOException {
        JsonNode kafka = compose().at("/services/kafka");
        Map<String, String> env = env(kafka);
        assertThat(kafka.get("image").asText()).startsWith("apache/kafka:");
        assertThat(env.get("KAFKA_PROCESS_ROLES")).isEqualTo("broker,controller");
        assertThat(env)
                .containsKeys("KAFKA_NODE_ID", "KAFKA_CONTROLLER_QUORUM_VOTERS", "KAFKA_CONTROLLER_LISTENER_NAMES");
        assertThat(env).doesNotContainKey("KAFKA_ZOOKEEPER_CONNECT");
        JsonNode topics = compose().at("/services/topics-init/command");
        assertThat(topics.get(0).asText() + " " + topics.get(1).asText() + " "
                        + topics.get(2).asText())
                .isEqualTo("cli topics create");
    }

    /** The broker compose runs is the release the clients are built from, so a fixed release reaches both. */
    @Test
    void composeRunsTheBrokerAtTheKafkaVersionOfThePom() throws Exception {
        String kafkaVersion = pomProperty("kafka.version");
        assertThat(kafkaVersion).matches("\\d+\\.\\d+\\.\\d+");
        assertThat(compose().at("/services/kafka/image").asText()).isEqualTo("apache/kafka:" + kafkaVersion);
        assertThat(AppInfoParser.getVersion())
                .as("the kafka-clients on the class path")
                .isEqualTo(kafkaVersion);
        assertThat(Mysql8Containers.KAFKA_IMAGE)
                .as("the mysql8 profile's broker")
                .isEqualTo("apache/kafka:" + kafkaVersion);
    }

    private static String pomProperty(String name) throws Exception {
        var factory = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        var pom = factory.newDocumentBuilder().parse(ROOT.resolve("pom.xml").toFile());
        var properties = pom.getDocumentElement().getElementsByTagName("properties");
        assertThat(properties.getLength()).as("<properties> in pom.xml").isPositive();
        var values = ((org.w3c.dom.Element) properties.item(0)).getElementsByTagName(name);
        assertThat(values.getLength()).as("<" + name + "> in pom.xml").isEqualTo(1);
        return values.item(0).getTextContent().strip();
    }

    @Test
    void theExecutorDrivesFleetSim() throws IOException {
        JsonNode services = compose().get("services");
        JsonNode executor = services.get("executor");
        JsonNode fleet = services.get("fleet-sim");
        assertThat(executor.get("network_mode").asText()).isEqualTo("service:fleet-sim");
        String gkePort = fleet.at("/command/1").asText();
        String computePort = fleet.at("/command/2").asText();
        Map<String, String> env = env(executor);
        assertThat(env)
                .containsEntry("FALCON_EXECUTOR_CREDENTIALS", "none")
                .containsEntry("FALCON_EXECUTOR_GKE_ENDPOINT", "127.0.0.1:" + gkePort)
                .containsEntry("FALCON_EXECUTOR_COMPUTE_ENDPOINT", "http://127.0.0.1:" + computePort);
        // sharing fleet-sim's network, the executor's ops port is published by fleet-sim
        String opsPort = env.get("FALCON_OPS_PORT");
        List<String> published = new ArrayList<>();
        fleet.get("ports").forEach(p -> published.add(p.asText()));
        assertThat(published).anyMatch(p -> p.endsWith(":" + opsPort));
    }

    @Test
    void composeEnvironmentHoldsOnlySettingsTheComponentsRead() throws IOException {
        JsonNode services = compose().get("services");
        for (String component : COMPONENTS) {
            JsonNode service = services.get(component);
            Map<String, String> env = env(service);
            assertThat(CONFIGS.get(component).apply(env))
                    .as(component + " config from compose")
                    .isNotNull();
            env.keySet().forEach(key -> assertRead(component, env, key));
            int opsPort = OpsServer.portFrom(env);
            assertThat(service.at("/healthcheck/test").toString())
                    .as(component + " healthcheck")
                    .contains("http://localhost:" + opsPort + "/readyz");
        }
        assertThat(env(services.get("cli"))).containsKeys("FALCON_DB_URL", "FALCON_KAFKA_BOOTSTRAP_SERVERS");
    }

    // ---- deploy/entrypoint.sh ----

    private static Map<String, String> entrypointMainClasses() throws IOException {
        Map<String, String> mains = new LinkedHashMap<>();
        entrypointComponents().forEach((component, moduleAndMain) -> mains.put(component, moduleAndMain[1]));
        return mains;
    }

    /** component -> {Maven module whose runtime class path it runs with, main class}. */
    private static Map<String, String[]> entrypointComponents() throws IOException {
        Matcher m = Pattern.compile("(?m)^\\s*([a-z-]+)\\)\\s+module=([a-z-]+);\\s+main=([A-Za-z0-9_.]+)\\s*;;")
                .matcher(Files.readString(ROOT.resolve("deploy/entrypoint.sh")));
        Map<String, String[]> components = new LinkedHashMap<>();
        while (m.find()) {
            components.put(m.group(1), new String[] {m.group(2), m.group(3)});
        }
        return components;
    }

    @Test
    void eachComponentRunsWithTheClassPathOfTheModuleThatHoldsItsMainAndTheImageBuildsThemAll() throws IOException {
        Matcher list =
                Pattern.compile("ARG COMPONENTS=\"([a-z -]+)\"").matcher(Files.readString(ROOT.resolve("Dockerfile")));
        assertThat(list.find()).as("the Dockerfile's COMPONENTS list").isTrue();
        List<String> built = List.of(list.group(1).split(" "));
        Map<String, String[]> components = entrypointComponents();
        assertThat(components).hasSize(8);
        components.forEach((component, moduleAndMain) -> {
            Path source = ROOT.resolve(moduleAndMain[0])
                    .resolve("src/main/java")
                    .resolve(moduleAndMain[1].replace('.', '/') + ".java");
            assertThat(source)
                    .as(component + "'s main in module " + moduleAndMain[0])
                    .exists();
            assertThat(built)
                    .as("the image builds the class path of " + component)
                    .contains(moduleAndMain[0]);
        });
    }

    @Test
    void theEntrypointMapsEveryComponentToAMainClassThatExists() throws Exception {
        Map<String, String> mains = entrypointMainClasses();
        assertThat(mains)
                .containsKeys(
                        "cdc-ingest", "scheduler", "executor", "status-sink", "fault-streams", "fleet-sim", "cli");
        for (Map.Entry<String, String> entry : mains.entrySet()) {
            Class<?> type;
            try {
                type = Class.forName(entry.getValue(), false, getClass().getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError(
                        "entrypoint.sh maps " + entry.getKey() + " to " + entry.getValue()
                                + ", which is not on the class path",
                        e);
            }
            Method main = type.getMethod("main", String[].class);
            assertThat(Modifier.isStatic(main.getModifiers()))
                    .as(entry.getValue() + ".main is static")
                    .isTrue();
        }
        for (Deployment deployment : all(Deployment.class)) {
            assertThat(mains)
                    .containsKey(deployment
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                            .getContainers()
                            .get(0)
                            .getArgs()
                            .get(0));
        }
    }

    // ---- k8s/iam ----

    @Test
    @SuppressWarnings("unchecked")
    void theEdgeRoleIsLeastPrivilegeAndJustified() throws IOException {
        String text = Files.readString(K8S.resolve("iam/edge-executor-role.yaml"));
        Map<String, Object> role = new YAMLMapper().readValue(text, Map.class);
        List<String> permissions = (List<String>) role.get("includedPermissions");
        assertThat(role).containsKeys("title", "description", "stage");
        // That the list is exactly what the executor's calls need is EdgeIamRoleIT's job (executor module); here: the
        // file's shape, and nothing that would let the executor delete clusters, read Secrets or exec into pods.
        // container.clusters.update is there because GKE authorizes node-pool create/delete as a cluster update.
        assertThat(permissions).doesNotHaveDuplicates().isNotEmpty();
        assertThat(permissions)
                .noneMatch(p -> p.contains("*")
                        || p.startsWith("container.clusters.delete")
                        || p.startsWith("container.clusters.create")
                        || p.startsWith("container.secrets.")
                        || p.startsWith("container.pods.exec")
                        || p.startsWith("iam.serviceAccounts.")
                        || p.startsWith("resourcemanager."));
        // every group of permissions is preceded by the comment that justifies it
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().startsWith("- ") && lines.get(i).contains(".")) {
                int j = i - 1;
                while (lines.get(j).trim().startsWith("- ")) {
                    j--;
                }
                assertThat(lines.get(j).trim())
                        .as("justification above " + lines.get(i).trim())
                        .startsWith("#");
            }
        }
    }
}
