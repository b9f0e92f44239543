package io.falcon.local.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.config.Component;
import io.falcon.events.config.Setting;
import io.falcon.events.config.SettingsCatalog;
import io.falcon.local.LocalFalcon;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The deployment files cannot drift from the settings catalog: every FALCON_* name they set or read is declared
 * (docs/configuration.md lists them), so a renamed or removed setting fails here instead of being ignored or refused
 * only when a pod starts.
 */
class SettingsCatalogDriftTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern FALCON_NAME = Pattern.compile("\\bFALCON_[A-Z0-9_]*[A-Z0-9]");

    private static boolean declared(String envName) {
        return SettingsCatalog.byEnvName(envName).isPresent();
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyVariableDockerComposeGivesAFalconServiceIsInTheCatalog() throws IOException {
        Map<String, Object> compose = new Yaml().load(Files.readString(ROOT.resolve("docker-compose.yml")));
        Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) compose.get("services");
        Set<String> checked = new TreeSet<>();
        services.forEach((name, service) -> {
            if (!"falcon:local".equals(service.get("image"))) {
                return; // mysql and kafka: their images' own variables
            }
            Map<String, Object> environment = (Map<String, Object>) service.getOrDefault("environment", Map.of());
            for (String variable : environment.keySet()) {
                assertThat(declared(variable))
                        .as("docker-compose.yml service " + name + " sets " + variable
                                + ", which no component declares (docs/configuration.md)")
                        .isTrue();
                checked.add(variable);
            }
        });
        assertThat(checked)
                .contains(
                        "FALCON_KAFKA_BOOTSTRAP_SERVERS",
                        "FALCON_CDC_DATABASE_HOST",
                        "FALCON_DB_URL",
                        "FALCON_EXECUTOR_CREDENTIALS",
                        "FALCON_OPS_PORT");
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyVariableTheKubernetesManifestsSetIsInTheCatalog() throws IOException {
        Set<String> checked = new TreeSet<>();
        try (Stream<Path> files = Files.list(ROOT.resolve("k8s"))) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (Object document : new Yaml().loadAll(Files.readString(file))) {
                    if (!(document instanceof Map<?, ?> object)) {
                        continue;
                    }
                    if ("ConfigMap".equals(object.get("kind"))) {
                        Map<String, Object> data = (Map<String, Object>) object.get("data");
                        for (String variable : data.keySet()) {
                            assertThat(declared(variable))
                                    .as("k8s/" + file.getFileName() + " ConfigMap sets " + variable
                                            + ", which no component declares")
                                    .isTrue();
                            checked.add(variable);
                        }
                    }
                    for (String variable : containerEnvNames(object)) {
                        assertThat(declared(variable))
                                .as("k8s/" + file.getFileName() + " container sets " + variable
                                        + ", which no component declares")
                                .isTrue();
                        checked.add(variable);
                    }
                }
            }
        }
        assertThat(checked)
                .contains(
                        "FALCON_KAFKA_BOOTSTRAP_SERVERS",
                        "FALCON_KAFKA_REPLICATION_FACTOR",
                        "FALCON_CDC_DATABASE_PASSWORD",
                        "FALCON_DB_PASSWORD",
                        "FALCON_EXECUTOR_NAMESPACE");
    }

    @SuppressWarnings("unchecked")
    private static List<String> containerEnvNames(Map<?, ?> object) {
        Object spec = object.get("spec");
        if (!(spec instanceof Map<?, ?> deploymentSpec)
                || !(deploymentSpec.get("template") instanceof Map<?, ?> t)
                || !(t.get("spec") instanceof Map<?, ?> podSpec)) {
            return List.of();
        }
        List<Map<String, Object>> containers = (List<Map<String, Object>>) podSpec.get("containers");
        return containers.stream()
                .flatMap(c -> ((List<Map<String, Object>>) c.getOrDefault("env", List.of())).stream())
                .map(env -> (String) env.get("name"))
                .toList();
    }

    @Test
    void everyFalconNameTheLaunchersAndLogConfigurationsReadIsInTheCatalog() throws IOException {
        Set<String> checked = new TreeSet<>();
        for (String file : List.of(
                "falcon-local",
                "falcon",
                "deploy/entrypoint.sh",
                "Dockerfile",
                "ops/src/main/resources/falcon-logback-json.xml",
                "local/src/main/resources/logback.xml",
                "cli/src/main/resources/falcon-cli-logback.xml")) {
            Matcher names = FALCON_NAME.matcher(Files.readString(ROOT.resolve(file)));
            while (names.find()) {
                assertThat(declared(names.group()))
                        .as(file + " reads " + names.group() + ", which no component declares")
                        .isTrue();
                checked.add(names.group());
            }
        }
        assertThat(checked).contains("FALCON_LOG_FORMAT", "FALCON_LOG_LEVEL", "FALCON_JAVA_OPTS");
    }

    @Test
    void theLocalModulesDefaultsAreSettingsOfTheComponentTheyAreGivenTo() {
        Map<String, Map<String, String>> local = LocalFalcon.componentSettings(
                new LocalFalcon.Endpoints(
                        "127.0.0.1:9092",
                        "127.0.0.1",
                        3306,
                        "root",
                        "pw",
                        "falcon",
                        "jdbc:mariadb://127.0.0.1:3306/falcon",
                        "127.0.0.1:9441",
                        "http://127.0.0.1:9442"),
                "local-test",
                Path.of("/tmp/local-test"));
        assertThat(local.keySet())
                .containsExactlyInAnyOrder("cdc-ingest", "scheduler", "executor", "status-sink", "fault-streams");
        local.forEach((name, settings) -> {
            Component component = SettingsCatalog.COMPONENTS.stream()
                    .filter(c -> c.name().equals(name))
                    .findFirst()
                    .orElseThrow();
            for (String key : settings.keySet()) {
                Setting<?> setting = SettingsCatalog.byKey(key)
                        .orElseThrow(() -> new AssertionError(
                                "local gives " + name + " " + key + ", which no component declares"));
                assertThat(component.reads(setting))
                        .as("local gives " + name + " " + key + ", which it does not" + " read")
                        .isTrue();
            }
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void noPodGetsServiceLinkVariablesTheCatalogWouldRefuse() throws IOException {
        int deployments = 0;
        try (Stream<Path> files = Files.list(ROOT.resolve("k8s"))) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (Object document : new Yaml().loadAll(Files.readString(file))) {
                    if (document instanceof Map<?, ?> object && "Deployment".equals(object.get("kind"))) {
                        Map<String, Object> pod = (Map<String, Object>)
                                ((Map<String, Object>) ((Map<String, Object>) object.get("spec")).get("template"))
                                        .get("spec");
                        assertThat(pod.get("enableServiceLinks"))
                                .as(
                                        "k8s/" + file.getFileName()
                                                + ": Services named falcon-* would give the pod FALCON_*_SERVICE_HOST/PORT variables")
                                .isEqualTo(false);
                        deployments++;
                    }
                }
            }
        }
        assertThat(deployments).isEqualTo(6);
        assertThat(declared("FALCON_SCHEDULER_SERVICE_HOST")).isFalse();
    }
}
