package io.falcon.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layering the design depends on, checked from the sources (functional core, imperative shell): the decision
 * cores import only the JDK, the events contracts and their own package; the executor's decision code imports no
 * client library; no production module depends on fleet-sim, embedded or the testkit outside test scope.
 */
class LayeringTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?([\\w.]+)", Pattern.MULTILINE);
    private static final Pattern TEST_ONLY_DEPENDENCY = Pattern.compile(
            "<dependency>\\s*<groupId>io\\.falcon"
                    + "</groupId>\\s*<artifactId>(fleet-sim|embedded|testkit)</artifactId>(.*?)</dependency>",
            Pattern.DOTALL);
    private static final List<String> CLIENT_LIBRARIES = List.of(
            "com.google.",
            "io.fabric8.",
            "io.grpc.",
            "org.apache.kafka.",
            "io.debezium.",
            "java.sql.",
            "java.net.http.");

    private static List<String> violations(Path dir, java.util.function.Predicate<String> allowed) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = IMPORT.matcher(Files.readString(file));
                while (m.find()) {
                    if (!allowed.test(m.group(1))) {
                        out.add(ROOT.relativize(file) + " imports " + m.group(1));
                    }
                }
            }
        }
        return out;
    }

    private static boolean startsWithAny(String name, List<String> prefixes) {
        return prefixes.stream().anyMatch(name::startsWith);
    }

    @Test
    void theSchedulerAndFaultCoresImportOnlyTheJdkTheEventsAndThemselves() throws IOException {
        Path scheduler = ROOT.resolve("scheduler-streams/src/main/java/io/falcon/scheduler/core");
        Path faults = ROOT.resolve("fault-streams/src/main/java/io/falcon/faults/core");
        assertThat(violations(
                        scheduler,
                        n -> n.startsWith("java.")
                                || n.startsWith("io.falcon.events.")
                                || n.startsWith("io.falcon.scheduler.core.")))
                .isEmpty();
        assertThat(violations(
                        faults,
                        n -> n.startsWith("java.")
                                || n.startsWith("io.falcon.events.")
                                || n.startsWith("io.falcon.faults.core.")))
                .isEmpty();
    }

    @Test
    void theConsolesViewsArePlainJavaOverTheEventsAndNoServerDatabaseOrKafka() throws IOException {
        Path views = ROOT.resolve("console/src/main/java/io/falcon/console/view");
        assertThat(violations(
                        views,
                        n -> n.startsWith("java.")
                                || n.startsWith("io.falcon.events.")
                                || n.startsWith("io.falcon.console.view.")))
                .isEmpty();
        assertThat(violations(views, n -> !startsWithAny(n, CLIENT_LIBRARIES) && !n.startsWith("io.javalin.")))
                .isEmpty();
    }

    @Test
    void theExecutorsDecisionCodeImportsNoClientLibrary() throws IOException {
        Path core = ROOT.resolve("executor/src/main/java/io/falcon/executor/core");
        assertThat(violations(
                        core,
                        n -> !startsWithAny(n, CLIENT_LIBRARIES)
                                && !n.startsWith("io.falcon.executor.gke.")
                                && !n.startsWith("io.falcon.executor.k8s.")
                                && !n.startsWith("io.falcon.executor.kafka.")))
                .isEmpty();
    }

    /** The test-only modules among the pom's dependencies that are not in test scope. */
    private static List<String> testOnlyDependenciesOutsideTestScope(String pom) {
        Matcher m = TEST_ONLY_DEPENDENCY.matcher(pom);
        List<String> out = new ArrayList<>();
        while (m.find()) {
            if (!m.group(2).contains("<scope>test</scope>")) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    @Test
    void noProductionModuleDependsOnTheSimulatorsTheEmbeddedInfrastructureOrTheTestkit() throws IOException {
        List<String> out = new ArrayList<>();
        for (String module : List.of(
                "events",
                "ops",
                "cdc-ingest",
                "scheduler-streams",
                "executor",
                "status-sink",
                "fault-streams",
                "console",
                "cli")) {
            testOnlyDependenciesOutsideTestScope(
                            Files.readString(ROOT.resolve(module).resolve("pom.xml")))
                    .forEach(d -> out.add(module + " depends on " + d + " outside test scope"));
        }
        assertThat(out).isEmpty();
    }

    @Test
    void theChecksCanFail() throws IOException {
        // the dependency check sees what it should: local runs the embedded infrastructure and the simulated fleet
        assertThat(testOnlyDependenciesOutsideTestScope(Files.readString(ROOT.resolve("local/pom.xml"))))
                .contains("embedded", "fleet-sim")
                .doesNotContain("testkit");
        assertThat(testOnlyDependenciesOutsideTestScope("<dependency>\n  <groupId>io.falcon</groupId>\n"
                        + "  <artifactId>testkit</artifactId>\n</dependency>"))
                .containsExactly("testkit");
        // the import check sees what it should: the executor's Kubernetes adapter does import fabric8
        Path k8s = ROOT.resolve("executor/src/main/java/io/falcon/executor/k8s");
        assertThat(violations(k8s, n -> !startsWithAny(n, CLIENT_LIBRARIES))).isNotEmpty();
    }
}
