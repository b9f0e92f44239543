package io.falcon.local.processes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the deployment files start each Falcon component, read from them rather than restated: the module and main
 * class of each component from {@code deploy/entrypoint.sh} (what the image runs) and its environment from
 * {@code docker-compose.yml}. The process deployment starts each component through {@code deploy/entrypoint.sh}
 * itself, on its module's image class path ({@link ImageClassPath}), with this environment and only the addresses
 * rewritten (see {@link Endpoints#rewrite}), so that the launch and configuration path of docker-compose and k8s is
 * the one exercised.
 */
public record DeploymentSpec(Map<String, Launch> entrypoint, Map<String, Component> components) {

    /**
     * The components, in start order (status-sink first: it migrates the clusters table; the console last: it only
     * reads).
     */
    public static final List<String> PIPELINE =
            List.of("status-sink", "cdc-ingest", "scheduler", "executor", "fault-streams", "console");

    /** What {@code deploy/entrypoint.sh} runs for a component name: the module whose class path, the main class. */
    public record Launch(String component, String module, String mainClass) {}

    /**
     * One component as deployed: the module and main class the entrypoint maps it to, the environment compose gives
     * it.
     */
    public record Component(String name, String module, String mainClass, Map<String, String> environment) {}

    private static final Pattern ENTRYPOINT_LINE =
            Pattern.compile("(?m)^\\s*([a-z-]+)\\)\\s+module=([a-z-]+);\\s+main=([A-Za-z0-9_.]+)\\s*;;");

    public static DeploymentSpec read(Path repositoryRoot) {
        try {
            Map<String, Launch> launches = new LinkedHashMap<>();
            Matcher m = ENTRYPOINT_LINE.matcher(Files.readString(repositoryRoot.resolve("deploy/entrypoint.sh")));
            while (m.find()) {
                launches.put(m.group(1), new Launch(m.group(1), m.group(2), m.group(3)));
            }
            JsonNode services = new YAMLMapper()
                    .readTree(repositoryRoot.resolve("docker-compose.yml").toFile())
                    .path("services");
            Map<String, Component> components = new LinkedHashMap<>();
            for (String name : PIPELINE) {
                JsonNode service = services.path(name);
                String command = service.path("command").path(0).asText("");
                if (!command.equals(name) || !launches.containsKey(name)) {
                    throw new IllegalStateException("docker-compose.yml service " + name + " does not run the " + name
                            + " component of deploy/entrypoint.sh");
                }
                Map<String, String> environment = new LinkedHashMap<>();
                service.path("environment")
                        .fields()
                        .forEachRemaining(
                                e -> environment.put(e.getKey(), e.getValue().asText()));
                Launch launch = launches.get(name);
                components.put(name, new Component(name, launch.module(), launch.mainClass(), environment));
            }
            return new DeploymentSpec(Map.copyOf(launches), Map.copyOf(components));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the deployment files under " + repositoryRoot, e);
        }
    }

    /** What the entrypoint runs for {@code component} (any of its names, fleet-sim and cli included). */
    public Launch launch(String component) {
        Launch launch = entrypoint.get(component);
        if (launch == null) {
            throw new IllegalArgumentException(
                    "deploy/entrypoint.sh runs no " + component + " (known: " + entrypoint.keySet() + ")");
        }
        return launch;
    }

    public Component component(String name) {
        Component component = components.get(name);
        if (component == null) {
            throw new IllegalArgumentException("no component " + name + " (known: " + PIPELINE + ")");
        }
        return component;
    }

    /**
     * Where the local processes listen, and the one translation from the compose network to them: the hosts
     * {@code kafka:9092}, {@code mysql:3306} and fleet-sim's {@code 127.0.0.1:9441} / {@code 127.0.0.1:9442} become
     * the local addresses; the database flavor becomes mariadb (the embedded database is MariaDB, compose's is MySQL 8)
     * and the database users the embedded one's (compose's per-component users are created by its MySQL's init);
     * each instance gets its own ops port and state directory. Every other variable is passed as compose has it.
     */
    public record Endpoints(String kafka, String mariaDbHost, int mariaDbPort, String gke, String compute) {

        public Map<String, String> rewrite(Map<String, String> compose, int opsPort, Path stateDir) {
            Map<String, String> out = new LinkedHashMap<>();
            compose.forEach((key, value) -> out.put(key, rewrite(key, value, opsPort, stateDir)));
            return out;
        }

        private String rewrite(String key, String value, int opsPort, Path stateDir) {
            if (key.endsWith("_OPS_PORT")) {
                return Integer.toString(opsPort);
            }
            if (key.endsWith("_STATE_DIR")) {
                return stateDir.resolve(Path.of(value).getFileName().toString()).toString();
            }
            if (key.endsWith("_DATABASE_FLAVOR")) {
                return "mariadb";
            }
            if (key.endsWith("_DATABASE_HOST")) {
                return mariaDbHost;
            }
            if (key.endsWith("_DATABASE_PORT")) {
                return Integer.toString(mariaDbPort);
            }
            // compose's least-privileged users come from deploy/mysql/20-falcon-users.sql, which the embedded
            // MariaDB does not run (KafkaSecurityIT's sibling DatabaseGrantsIT checks those grants instead)
            if (key.equals("FALCON_DB_USER") || key.equals("FALCON_CDC_DATABASE_USER")) {
                return io.falcon.embedded.EmbeddedMariaDb.USER;
            }
            if (key.equals("FALCON_DB_PASSWORD") || key.equals("FALCON_CDC_DATABASE_PASSWORD")) {
                return io.falcon.embedded.EmbeddedMariaDb.PASSWORD;
            }
            return value.replace("jdbc:mysql://mysql:3306/", "jdbc:mariadb://" + mariaDbHost + ":" + mariaDbPort + "/")
                    .replace("kafka:9092", kafka)
                    .replace("http://127.0.0.1:9442", compute)
                    .replace("127.0.0.1:9441", gke);
        }
    }
}
