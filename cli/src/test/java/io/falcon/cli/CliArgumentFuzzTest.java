package io.falcon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.TerminalText;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Command lines as a person (or a script with a bad variable) may type them (issue 20): real commands and options in
 * random order with hostile values (huge numbers, negative counts, unicode, shell and SQL metacharacters, missing
 * values, terminal escape sequences). With no database or Kafka configured nothing can be reached, so every run must
 * end in a refusal or in help: an exit code the CLI documents, a message starting "falcon:" or a usage text, never a
 * stack trace, never a control character a terminal would act on and never a password.
 */
class CliArgumentFuzzTest {
    private static final List<String> COMMANDS = List.of(
            "jobs",
            "submit",
            "list",
            "show",
            "abort",
            "explain",
            "clusters",
            "add",
            "set-status",
            "faults",
            "inject",
            "isolation",
            "release",
            "topics",
            "create",
            "watch",
            "actors");
    private static final List<String> OPTIONS = List.of(
            "--actor",
            "--cluster",
            "--code",
            "--count",
            "--db-password",
            "--db-password-file",
            "--db-user",
            "--decisions-full-history",
            "--decisions-retention",
            "--default-reservation",
            "--device",
            "--from-beginning",
            "--gcs-bucket",
            "--id",
            "--job",
            "--json",
            "--level",
            "--limit",
            "--location",
            "--name",
            "--node",
            "--partitions",
            "--priority",
            "--project",
            "--reason",
            "--repeat",
            "--replication-factor",
            "--spec",
            "--status",
            "--supply-mode",
            "--timeout",
            "--topology",
            "--tpu-type",
            "--until-final",
            "-j",
            "--help",
            "-h",
            "--version",
            "-V");
    private static final List<String> VALUES = List.of(
            "",
            " ",
            "v6e",
            "v5p",
            "2x4",
            "4x4x4",
            "0",
            "-1",
            "1000",
            "1001",
            "99999999999999999999",
            "NaN",
            "1e9",
            "30m",
            "-5s",
            "reservation",
            "flex-start",
            "active",
            "offline",
            "c1",
            "j1",
            "n1",
            "npu-3",
            "8C1F8609",
            "{\"image\":\"x\",\"command\":[\"sh\"]}",
            "{\"image\":\"x\",\"command\":[\"sh\"],\"privileged\":true}",
            "{",
            "'; DROP TABLE jobs; --",
            "$(reboot)",
            "a/b",
            "../..",
            "日本語",
            "🚀",
            "\u0000",
            "\n",
            "-",
            "--",
            "x".repeat(500),
            "--unknown",
            "=",
            "--tpu-type=v6e",
            "--count=-3",
            // what a terminal would run if echoed raw: clear screen, a hyperlink, a carriage return over a line, C1
            // CSI, a bidi override
            "\u001b[2J\u001b[H",
            "\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007",
            "Failed\rSucceeded",
            "\u009b31m",
            "\u202etxt.exe",
            "--db-url=jdbc:mariadb://u:fuzz-s3cret@127.0.0.1:1/db?password=fuzz-s3cret");

    // each run builds the whole picocli model (about 40 ms here): 200 tries keep the module's tests short
    @Property(tries = 200)
    void everyCommandLineIsRefusedOrHelpedWithoutAStackTrace(@ForAll("commandLines") List<String> args) {
        CliRun run = CliRun.of(Map.of(), args.toArray(String[]::new));
        Statistics.label("exit code").collect(run.exitCode());
        assertThat(run.exitCode())
                .as("exit code of " + args)
                .isIn(FalconCli.EXIT_OK, FalconCli.EXIT_REFUSED, FalconCli.EXIT_UNREACHABLE);
        String all = run.out() + run.err();
        assertThat(all).as("no stack trace for " + args).doesNotContain("\tat ").doesNotContain("Exception in");
        assertThat(TerminalTextTest.hasTerminalControls(all))
                .as("a character a terminal acts on, echoed raw for " + args + ": " + TerminalText.visible(all))
                .isFalse();
        assertThat(all).as("a password shown for " + args).doesNotContain("fuzz-s3cret");
        if (run.exitCode() == FalconCli.EXIT_OK) {
            // only help, a version or a listing of nothing can succeed without a database or Kafka
            assertThat(run.out()).as("output of " + args).isNotBlank();
        } else {
            assertThat(run.err())
                    .as("why " + args + " was refused")
                    .satisfiesAnyOf(
                            err -> assertThat(err).startsWith("falcon: "),
                            err -> assertThat(err).contains("Usage: "));
        }
    }

    @Provide
    Arbitrary<List<String>> commandLines() {
        Arbitrary<String> token = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(COMMANDS)),
                Tuple.of(4, Arbitraries.of(OPTIONS)),
                Tuple.of(4, Arbitraries.of(VALUES)),
                Tuple.of(1, Arbitraries.strings().all().ofMaxLength(12)));
        // mostly a real command first, so that option parsing and validation are reached
        Arbitrary<List<String>> start = Arbitraries.of(
                List.of("jobs", "submit"),
                List.of("jobs", "list"),
                List.of("jobs", "show"),
                List.of("jobs", "abort"),
                List.of("explain"),
                List.of("clusters", "add"),
                List.of("clusters", "set-status"),
                List.of("faults", "inject"),
                List.of("isolation", "release"),
                List.of("topics", "create"),
                List.of("watch"),
                List.of());
        return start.flatMap(prefix -> token.list().ofMaxSize(8).map(rest -> {
            List<String> args = new java.util.ArrayList<>(prefix);
            // no --spec @FILE: reading /dev/zero or a FIFO would block the run (the operator's own choice)
            rest.stream().filter(t -> !t.startsWith("@")).forEach(args::add);
            return args;
        }));
    }
}
