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
 * client library; no production module depends on fleet-sim or embedded.
 */
class LayeringTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?([\\w.]+)", Pattern.MULTILINE);
    /** Jackson is a data format, not a client; the scheduler's spec parsing still uses it (issue 15 moves it). */
    private static final List<String> DATA_FORMAT = List.of("com.fasterxml.jackson.");
    private static final List<String> CLIENT_LIBRARIES = List.of("com.google.", "io.fabric8.", "io.grpc.",
            "org.apache.kafka.", "io.debezium.", "java.sql.", "java.net.http.");

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
        assertThat(violations(scheduler, n -> n.startsWith("java.") || n.startsWith("io.falcon.events.")
                || n.startsWith("io.falcon.scheduler.core.") || startsWithAny(n, DATA_FORMAT))).isEmpty();
        assertThat(violations(faults, n -> n.startsWith("java.") || n.startsWith("io.falcon.events.")
                || n.startsWith("io.falcon.faults.core."))).isEmpty();
    }

    @Test
    void theExecutorsDecisionCodeImportsNoClientLibrary() throws IOException {
        Path core = ROOT.resolve("executor/src/main/java/io/falcon/executor/core");
        assertThat(violations(core, n -> !startsWithAny(n, CLIENT_LIBRARIES)
                && !n.startsWith("io.falcon.executor.gke.") && !n.startsWith("io.falcon.executor.k8s.")
                && !n.startsWith("io.falcon.executor.kafka."))).isEmpty();
    }

    @Test
    void noProductionModuleDependsOnTheSimulatorsOrTheEmbeddedInfrastructure() throws IOException {
        Pattern dependency = Pattern.compile("<dependency>\\s*<groupId>io\\.falcon</groupId>\\s*<artifactId>"
                + "(fleet-sim|embedded)</artifactId>(.*?)</dependency>", Pattern.DOTALL);
        List<String> out = new ArrayList<>();
        for (String module : List.of("events", "ops", "cdc-ingest", "scheduler-streams", "executor", "status-sink",
                "fault-streams")) {
            Matcher m = dependency.matcher(Files.readString(ROOT.resolve(module).resolve("pom.xml")));
            while (m.find()) {
                if (!m.group(2).contains("<scope>test</scope>")) {
                    out.add(module + " depends on " + m.group(1) + " outside test scope");
                }
            }
        }
        assertThat(out).isEmpty();
    }

    @Test
    void theChecksCanFail() throws IOException {
        // the import check sees what it should: the executor's Kubernetes adapter does import fabric8
        Path k8s = ROOT.resolve("executor/src/main/java/io/falcon/executor/k8s");
        assertThat(violations(k8s, n -> !startsWithAny(n, CLIENT_LIBRARIES))).isNotEmpty();
    }
}
