package io.falcon.local.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.falcon.cdc.CdcConfig;
import io.falcon.console.ConsoleConfig;
import io.falcon.events.config.ConsoleKeys;
import io.falcon.faults.FaultStreamsConfig;
import io.falcon.ops.OpsServer;
import io.falcon.scheduler.SchedulerConfig;
import io.falcon.statussink.StatusSinkConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The pod policy of Falcon's own Deployments (issue 20): non-root, read-only root file system with writable volumes
 * exactly where each component writes, no privilege escalation, every capability dropped, resource limits, and a
 * NetworkPolicy that lets each component reach only what its configuration names (docs/security.md).
 */
class PodSecurityManifestTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path K8S = ROOT.resolve("k8s");
    private static final List<String> COMPONENTS =
            List.of("cdc-ingest", "scheduler", "executor", "status-sink", "fault-streams", "console");

    private static KubernetesClient kubernetes;
    private static List<HasMetadata> manifests;

    /** One destination: a namespace (from a Service host name) or an address, and a TCP port. */
    private record Endpoint(Optional<String> namespace, Optional<String> address, int port) {
        static Endpoint service(String host, int port) {
            // falcon-kafka-bootstrap.kafka.svc -> namespace kafka
            String[] parts = host.split("\\.");
            assertThat(parts.length).as("service host " + host).isGreaterThanOrEqualTo(2);
            return inNamespace(parts[1], port);
        }

        static Endpoint inNamespace(String namespace, int port) {
            return new Endpoint(Optional.of(namespace), Optional.empty(), port);
        }
    }

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void load() throws IOException {
        kubernetes = new KubernetesClientBuilder().build();
        manifests = new ArrayList<>();
        Map<String, Object> kustomization = new Yaml().load(Files.readString(K8S.resolve("kustomization.yaml")));
        for (String file : (List<String>) kustomization.get("resources")) {
            try (InputStream in = Files.newInputStream(K8S.resolve(file))) {
                manifests.addAll(kubernetes.load(in).items());
            }
        }
    }

    @AfterAll
    static void close() {
        kubernetes.close();
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

    private static Deployment deployment(String component) {
        return named(Deployment.class, "falcon-" + component);
    }

    /** The environment a component's container gets from its ConfigMaps (secrets as placeholders). */
    private static Map<String, String> environment(String component) {
        Container container = deployment(component)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0);
        Map<String, String> env = new HashMap<>();
        for (EnvFromSource from : container.getEnvFrom()) {
            env.putAll(named(ConfigMap.class, from.getConfigMapRef().getName()).getData());
        }
        if (container.getEnv() != null) {
            container.getEnv().forEach(v -> env.put(v.getName(), v.getValue() == null ? "secret" : v.getValue()));
        }
        return env;
    }

    @Test
    void everyPodRunsAsNonRootWithoutPrivilegesOnAReadOnlyRootFileSystem() throws IOException {
        int imageUser = imageUser();
        for (String component : COMPONENTS) {
            PodSpec pod = deployment(component).getSpec().getTemplate().getSpec();
            PodSecurityContext podContext = pod.getSecurityContext();
            assertThat(podContext).as(component + " pod securityContext").isNotNull();
            assertThat(podContext.getRunAsNonRoot()).as(component).isTrue();
            assertThat(podContext.getRunAsUser()).as(component + " runAsUser").isEqualTo(imageUser);
            assertThat(podContext.getSeccompProfile().getType()).as(component).isEqualTo("RuntimeDefault");
            assertThat(pod.getHostNetwork()).as(component).isNotEqualTo(Boolean.TRUE);
            assertThat(pod.getHostPID()).as(component).isNotEqualTo(Boolean.TRUE);
            assertThat(pod.getHostIPC()).as(component).isNotEqualTo(Boolean.TRUE);
            assertThat(pod.getAutomountServiceAccountToken())
                    .as(component + " mounts no Kubernetes token")
                    .isFalse();
            assertThat(pod.getInitContainers()).as(component).isNullOrEmpty();
            for (Container container : pod.getContainers()) {
                SecurityContext sc = container.getSecurityContext();
                assertThat(sc).as(component + " container securityContext").isNotNull();
                assertThat(sc.getPrivileged()).as(component).isNotEqualTo(Boolean.TRUE);
                assertThat(sc.getAllowPrivilegeEscalation()).as(component).isFalse();
                assertThat(sc.getReadOnlyRootFilesystem()).as(component).isTrue();
                assertThat(sc.getCapabilities().getDrop()).as(component).containsExactly("ALL");
                assertThat(sc.getCapabilities().getAdd()).as(component).isNullOrEmpty();
                assertThat(sc.getRunAsUser())
                        .as(component + " does not override the user")
                        .isNull();
                assertThat(container.getResources().getLimits()).as(component).containsKeys("cpu", "memory");
            }
            for (Volume volume : pod.getVolumes()) {
                assertThat(volume.getHostPath())
                        .as(component + " volume " + volume.getName())
                        .isNull();
                // writable scratch space, or the Kafka credentials Secret (issue 20 part A), mounted read-only
                boolean readOnlySecret = volume.getSecret() != null
                        && pod.getContainers().stream()
                                .flatMap(c -> c.getVolumeMounts().stream())
                                .filter(m -> m.getName().equals(volume.getName()))
                                .allMatch(m -> Boolean.TRUE.equals(m.getReadOnly()));
                assertThat(volume.getEmptyDir() != null || readOnlySecret)
                        .as(component + " volume " + volume.getName() + " is an emptyDir or a read-only Secret")
                        .isTrue();
            }
        }
    }

    /** The image's USER (numeric, so that runAsNonRoot can be checked against it) is the user its useradd made. */
    private static int imageUser() throws IOException {
        String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
        Matcher useradd = Pattern.compile("useradd [^\\n]*--uid (\\d+)").matcher(dockerfile);
        Matcher user = Pattern.compile("(?m)^USER (\\d+):(\\d+)\\s*$").matcher(dockerfile);
        assertThat(useradd.find()).as("the Dockerfile creates its user").isTrue();
        assertThat(user.find()).as("the Dockerfile's USER is numeric").isTrue();
        int uid = Integer.parseInt(user.group(1));
        assertThat(uid).isEqualTo(Integer.parseInt(useradd.group(1))).isNotZero();
        assertThat(dockerfile.substring(user.end())).doesNotContain("\nUSER ");
        return uid;
    }

    @Test
    void theWritableVolumesAreWhereEachComponentWrites() {
        for (String component : COMPONENTS) {
            PodSpec pod = deployment(component).getSpec().getTemplate().getSpec();
            List<String> mounts = pod.getContainers().get(0).getVolumeMounts().stream()
                    .filter(m -> !Boolean.TRUE.equals(m.getReadOnly()))
                    .map(VolumeMount::getMountPath)
                    .toList();
            // the JVM and RocksDB's native library both need java.io.tmpdir
            assertThat(mounts).as(component).contains("/tmp");
            Optional<String> stateDir = stateDir(component, environment(component));
            stateDir.ifPresent(dir -> assertThat(mounts)
                    .as(component + " state dir " + dir + " is on a mounted volume")
                    .anyMatch(m -> dir.equals(m) || dir.startsWith(m + "/")));
            // and no writable volume where nothing is written: each mount is /tmp or holds the state dir
            for (String mount : mounts) {
                assertThat(mount.equals("/tmp")
                                || stateDir.filter(dir -> dir.startsWith(mount + "/") || dir.equals(mount))
                                        .isPresent())
                        .as(component + " writes to its mount " + mount)
                        .isTrue();
            }
        }
    }

    private static Optional<String> stateDir(String component, Map<String, String> env) {
        return switch (component) {
            case "scheduler" -> Optional.of(SchedulerConfig.from(env).stateDir());
            case "fault-streams" -> Optional.of(FaultStreamsConfig.from(env).stateDir());
            default -> Optional.empty();
        };
    }

    @Test
    void onlyTheExecutorHasAGoogleIdentity() {
        for (String component : COMPONENTS) {
            String account =
                    deployment(component).getSpec().getTemplate().getSpec().getServiceAccountName();
            boolean workloadIdentity = Optional.ofNullable(
                            named(ServiceAccount.class, account).getMetadata().getAnnotations())
                    .map(a -> a.containsKey("iam.gke.io/gcp-service-account"))
                    .orElse(false);
            assertThat(workloadIdentity).as(component + " (" + account + ")").isEqualTo(component.equals("executor"));
        }
    }

    // ---- NetworkPolicy ----

    @Test
    void aDefaultDenyCoversEveryPodBothWays() {
        assertThat(all(NetworkPolicy.class)).anySatisfy(policy -> {
            assertThat(isEmpty(policy.getSpec().getPodSelector())).isTrue();
            assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
            assertThat(policy.getSpec().getIngress()).isNullOrEmpty();
            assertThat(policy.getSpec().getEgress()).isNullOrEmpty();
        });
    }

    @Test
    void eachComponentReachesExactlyWhatItsConfigurationNames() {
        Map<String, List<Endpoint>> needs = new HashMap<>();
        for (String component : COMPONENTS) {
            Map<String, String> env = environment(component);
            List<Endpoint> endpoints = new ArrayList<>(kafka(component, env));
            mysql(component, env).ifPresent(endpoints::add);
            needs.put(component, endpoints);
        }
        for (String component : COMPONENTS) {
            Map<String, String> labels =
                    deployment(component).getSpec().getTemplate().getMetadata().getLabels();
            List<NetworkPolicyEgressRule> egress = egressOf(labels);
            for (Endpoint endpoint : needs.get(component)) {
                assertThat(egress.stream().anyMatch(rule -> allows(rule, endpoint)))
                        .as(component + " may reach " + endpoint)
                        .isTrue();
            }
            assertThat(egress.stream().anyMatch(rule -> allows(rule, Endpoint.inNamespace("kube-system", 53))))
                    .as(component + " resolves names")
                    .isTrue();
            // Only the database users reach the database; only the executor leaves the cluster.
            boolean usesDatabase = mysql(component, environment(component)).isPresent();
            Endpoint anyDatabase = Endpoint.service("falcon-mysql.db.svc", mysqlPort());
            assertThat(egress.stream().anyMatch(rule -> allows(rule, anyDatabase)))
                    .as(component + " reaches MySQL")
                    .isEqualTo(usesDatabase);
            Endpoint googleApis = new Endpoint(Optional.empty(), Optional.of("142.250.0.1"), 443);
            assertThat(egress.stream().anyMatch(rule -> allows(rule, googleApis)))
                    .as(component + " reaches Google APIs and edge clusters")
                    .isEqualTo(component.equals("executor"));
            for (NetworkPolicyEgressRule rule : egress) {
                assertThat(rule.getPorts())
                        .as(component + " egress rule names its ports")
                        .isNotEmpty();
            }
            List<NetworkPolicyIngressRule> ingress = ingressOf(labels);
            assertThat(ingress).as(component + " scrape ingress").isNotEmpty();
            for (NetworkPolicyIngressRule rule : ingress) {
                assertThat(rule.getFrom())
                        .as(component + " ingress names its sources")
                        .isNotEmpty();
                // the console also serves its pages, and only to Google's load balancers (the IAP-guarded Ingress)
                assertThat(rule.getPorts())
                        .as(component + " ingress only to the ops port (and the console's pages)")
                        .extracting(p -> p.getPort().getIntVal())
                        .isSubsetOf(
                                component.equals("console")
                                        ? List.of(
                                                OpsServer.DEFAULT_PORT,
                                                ConsoleKeys.PORT.defaultValue().intValue())
                                        : List.of(OpsServer.DEFAULT_PORT));
            }
        }
    }

    private static List<Endpoint> kafka(String component, Map<String, String> env) {
        String servers = switch (component) {
            case "cdc-ingest" ->
                CdcConfig.fromEnvironment(env, new Properties()).kafka().bootstrapServers();
            case "scheduler" -> SchedulerConfig.from(env).kafka().bootstrapServers();
            case "executor" ->
                io.falcon.executor.ExecutorConfig.from(env).kafka().bootstrapServers();
            case "status-sink" -> StatusSinkConfig.from(env).kafka().bootstrapServers();
            case "fault-streams" -> FaultStreamsConfig.from(env).kafka().bootstrapServers();
            case "console" -> ConsoleConfig.from(env).kafka().bootstrapServers();
            default -> throw new AssertionError(component);
        };
        List<Endpoint> endpoints = new ArrayList<>();
        for (String server : servers.split(",")) {
            int colon = server.lastIndexOf(':');
            endpoints.add(
                    Endpoint.service(server.substring(0, colon).trim(), Integer.parseInt(server.substring(colon + 1))));
        }
        return endpoints;
    }

    private static Optional<Endpoint> mysql(String component, Map<String, String> env) {
        return switch (component) {
            case "cdc-ingest" -> {
                CdcConfig config = CdcConfig.fromEnvironment(env, new Properties());
                yield Optional.of(Endpoint.service(config.dbHost(), config.dbPort()));
            }
            case "status-sink" -> {
                URI url = URI.create(StatusSinkConfig.from(env).jdbcUrl().substring("jdbc:".length()));
                yield Optional.of(Endpoint.service(url.getHost(), url.getPort()));
            }
            case "console" -> {
                URI url = URI.create(ConsoleConfig.from(env).jdbcUrl().substring("jdbc:".length()));
                yield Optional.of(Endpoint.service(url.getHost(), url.getPort()));
            }
            default -> Optional.empty();
        };
    }

    private static int mysqlPort() {
        return mysql("cdc-ingest", environment("cdc-ingest")).orElseThrow().port();
    }

    private static List<NetworkPolicyEgressRule> egressOf(Map<String, String> podLabels) {
        List<NetworkPolicyEgressRule> rules = new ArrayList<>();
        for (NetworkPolicy policy : all(NetworkPolicy.class)) {
            if (selects(policy.getSpec().getPodSelector(), podLabels)
                    && policy.getSpec().getPolicyTypes().contains("Egress")
                    && policy.getSpec().getEgress() != null) {
                rules.addAll(policy.getSpec().getEgress());
            }
        }
        return rules;
    }

    private static List<NetworkPolicyIngressRule> ingressOf(Map<String, String> podLabels) {
        List<NetworkPolicyIngressRule> rules = new ArrayList<>();
        for (NetworkPolicy policy : all(NetworkPolicy.class)) {
            if (selects(policy.getSpec().getPodSelector(), podLabels)
                    && policy.getSpec().getPolicyTypes().contains("Ingress")
                    && policy.getSpec().getIngress() != null) {
                rules.addAll(policy.getSpec().getIngress());
            }
        }
        return rules;
    }

    private static boolean allows(NetworkPolicyEgressRule rule, Endpoint endpoint) {
        boolean port = rule.getPorts().stream().anyMatch(p -> matchesPort(p, endpoint.port()));
        boolean peer = rule.getTo() == null
                || rule.getTo().isEmpty()
                || rule.getTo().stream().anyMatch(to -> reaches(to, endpoint));
        return port && peer;
    }

    private static boolean matchesPort(NetworkPolicyPort port, int number) {
        return port.getPort() != null
                && port.getPort().getIntVal() != null
                && port.getPort().getIntVal() == number;
    }

    private static boolean reaches(NetworkPolicyPeer peer, Endpoint endpoint) {
        if (peer.getIpBlock() != null) {
            return endpoint.address().isPresent()
                    && inBlock(endpoint.address().get(), peer.getIpBlock().getCidr())
                    && (peer.getIpBlock().getExcept() == null
                            || peer.getIpBlock().getExcept().stream()
                                    .noneMatch(
                                            except -> inBlock(endpoint.address().get(), except)));
        }
        if (endpoint.namespace().isEmpty() || peer.getNamespaceSelector() == null) {
            // a podSelector alone means this namespace: Falcon talks to nothing in its own namespace
            return false;
        }
        return selects(
                peer.getNamespaceSelector(),
                Map.of("kubernetes.io/metadata.name", endpoint.namespace().get()));
    }

    private static boolean inBlock(String address, String cidr) {
        String[] parts = cidr.split("/");
        int bits = Integer.parseInt(parts[1]);
        long mask = bits == 0 ? 0 : (0xFFFFFFFFL << (32 - bits)) & 0xFFFFFFFFL;
        return (ipv4(address) & mask) == (ipv4(parts[0]) & mask);
    }

    private static long ipv4(String address) {
        long value = 0;
        for (String octet : address.split("\\.")) {
            value = (value << 8) | Integer.parseInt(octet);
        }
        return value;
    }

    private static boolean isEmpty(LabelSelector selector) {
        return selector == null
                || ((selector.getMatchLabels() == null
                                || selector.getMatchLabels().isEmpty())
                        && (selector.getMatchExpressions() == null
                                || selector.getMatchExpressions().isEmpty()));
    }

    /** Kubernetes label-selector semantics for matchLabels and the In / NotIn / Exists operators used here. */
    private static boolean selects(LabelSelector selector, Map<String, String> labels) {
        if (isEmpty(selector)) {
            return true;
        }
        if (selector.getMatchLabels() != null) {
            for (Map.Entry<String, String> label : selector.getMatchLabels().entrySet()) {
                if (!label.getValue().equals(labels.get(label.getKey()))) {
                    return false;
                }
            }
        }
        for (LabelSelectorRequirement requirement : selector.getMatchExpressions() == null
                ? List.<LabelSelectorRequirement>of()
                : selector.getMatchExpressions()) {
            String value = labels.get(requirement.getKey());
            boolean ok = switch (requirement.getOperator()) {
                case "In" -> value != null && requirement.getValues().contains(value);
                case "NotIn" -> value == null || !requirement.getValues().contains(value);
                case "Exists" -> value != null;
                case "DoesNotExist" -> value == null;
                default -> throw new AssertionError("operator " + requirement.getOperator());
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    @Test
    void theSelectorsOfThePoliciesNameLabelsThePodsCarry() {
        for (NetworkPolicy policy : all(NetworkPolicy.class)) {
            LabelSelector selector = policy.getSpec().getPodSelector();
            if (isEmpty(selector)) {
                continue;
            }
            // a typo in a selector would silently leave a component without its allowance: each selector selects
            // at least one Deployment's pods
            assertThat(COMPONENTS.stream()
                            .map(c -> deployment(c)
                                    .getSpec()
                                    .getTemplate()
                                    .getMetadata()
                                    .getLabels())
                            .anyMatch(labels -> selects(selector, labels)))
                    .as("policy " + policy.getMetadata().getName() + " selects some component")
                    .isTrue();
        }
    }
}
