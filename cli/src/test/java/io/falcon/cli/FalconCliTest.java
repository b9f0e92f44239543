package io.falcon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parsing and validation: every bad argument is rejected before anything is contacted, naming the option. */
class FalconCliTest {
    private static final String SPEC = "{\"image\":\"train:1\",\"command\":[\"python\",\"train.py\"]}";
    // Nothing listens on port 1: a command that got past validation would fail with "cannot reach".
    private static final Map<String, String> NOWHERE = Map.of(
            "falcon.db.url", "jdbc:mariadb://127.0.0.1:1/falcon", "falcon.kafka.bootstrap-servers", "127.0.0.1:1");

    private static CliRun submit(String... extra) {
        String[] base = {
            "submit", "--actor", "alice", "--name", "train", "--tpu-type", "v6e", "--topology", "2x4", "--spec", SPEC
        };
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return CliRun.of(NOWHERE, args);
    }

    @Test
    void helpListsEveryCommand() {
        CliRun run = CliRun.of("--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .contains(
                        "submit",
                        "jobs",
                        "show",
                        "abort",
                        "watch",
                        "clusters",
                        "isolation",
                        "faults",
                        "topics",
                        "actors",
                        "FALCON_DB_URL",
                        "FALCON_KAFKA_BOOTSTRAP_SERVERS");
    }

    @Test
    void actorsPrintsTheNamesTheExecutorGivesEachActorWithoutReachingAnything() {
        CliRun run = CliRun.of("actors", "Team A", "team-b");
        assertThat(run.exitCode()).isZero();
        String key = io.falcon.events.ResourceNames.actorKey("Team A");
        assertThat(key).startsWith("falcon-actor-team-a-");
        assertThat(run.out().lines().findFirst().orElseThrow())
                .startsWith("ACTOR")
                .contains("SERVICE ACCOUNT", "BUCKET FOLDER", "SECRETS");
        assertThat(run.out().lines())
                .anySatisfy(line -> assertThat(line)
                        .startsWith("Team A  " + key)
                        .contains("actors/" + key + "/")
                        .endsWith(key + ".<name>"))
                .anySatisfy(line ->
                        assertThat(line).startsWith("team-b  " + io.falcon.events.ResourceNames.actorKey("team-b")));
        assertThat(CliRun.of("actors").exitCode()).as("an actor is required").isEqualTo(2);
    }

    @Test
    void aBadTpuTypeIsRejectedWithTheAllowedValues() {
        CliRun run = CliRun.of(
                NOWHERE,
                "submit",
                "--actor",
                "a",
                "--name",
                "n",
                "--tpu-type",
                "v9",
                "--topology",
                "2x4",
                "--spec",
                SPEC);
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .contains("Invalid value for option '--tpu-type': 'v9' is not a TPU type; allowed: v5e,"
                        + " v5p, v6e, v7x")
                .contains("Try 'falcon submit --help'");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void aBadTopologyIsRejectedWithWhatIsAllowed() {
        CliRun run = CliRun.of(
                NOWHERE,
                "submit",
                "--actor",
                "a",
                "--name",
                "n",
                "--tpu-type",
                "v6e",
                "--topology",
                "3x3",
                "--spec",
                SPEC);
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .contains("'--topology': '3x3' is not a TPU topology; allowed:")
                .contains("multiple of 4");
    }

    @Test
    void aDatabasePasswordOnTheCommandLineIsRefusedAndOneFromAFileIsUsedWithoutBeingShown(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        CliRun onCommandLine = CliRun.of(NOWHERE, "jobs", "--db-password", "s3cret-on-argv");
        assertThat(onCommandLine.exitCode()).isNotZero();
        assertThat(onCommandLine.err())
                .contains("--db-password is refused")
                .contains("FALCON_DB_PASSWORD")
                .doesNotContain("s3cret-on-argv");

        CliRun missing = CliRun.of(
                NOWHERE, "jobs", "--db-password-file", dir.resolve("none").toString());
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.err()).contains("--db-password-file: cannot read the password file");

        java.nio.file.Path file = dir.resolve("db-password");
        java.nio.file.Files.writeString(file, "s3cret-in-file\n");
        CliRun fromFile = CliRun.of(NOWHERE, "jobs", "--db-password-file", file.toString());
        // read, then the (unreachable) database is what fails, and the password appears nowhere
        assertThat(fromFile.err()).contains("cannot reach the database").doesNotContain("s3cret-in-file");
        assertThat(fromFile.out()).doesNotContain("s3cret-in-file");
    }

    @Test
    void missingRequiredOptionsAreNamed() {
        CliRun run = CliRun.of(NOWHERE, "submit", "--actor", "a");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .contains("Missing required options")
                .contains("--name")
                .contains("--tpu-type")
                .contains("--topology")
                .contains("--spec");
    }

    @Test
    void anInvalidSpecIsRejectedWithTheSchedulersOwnRule() {
        CliRun noImage = CliRun.of(
                NOWHERE,
                "submit",
                "--actor",
                "a",
                "--name",
                "n",
                "--tpu-type",
                "v6e",
                "--topology",
                "2x4",
                "--spec",
                "{\"command\":[\"python\"]}");
        assertThat(noImage.exitCode()).isEqualTo(2);
        assertThat(noImage.err()).contains("Invalid value for option '--spec': spec.image is required");

        CliRun notJson = CliRun.of(
                NOWHERE,
                "submit",
                "--actor",
                "a",
                "--name",
                "n",
                "--tpu-type",
                "v6e",
                "--topology",
                "2x4",
                "--spec",
                "{image");
        assertThat(notJson.exitCode()).isEqualTo(2);
        assertThat(notJson.err()).contains("'--spec': spec is not valid JSON");
    }

    @Test
    void specFromAMissingFileIsABadArgument() {
        CliRun run = CliRun.of(
                NOWHERE,
                "submit",
                "--actor",
                "a",
                "--name",
                "n",
                "--tpu-type",
                "v6e",
                "--topology",
                "2x4",
                "--spec",
                "@/nonexistent/spec.json");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("'--spec': cannot read /nonexistent/spec.json");
    }

    @Test
    void specFromAFileIsReadAndThenTheDatabaseIsContacted(@TempDir Path dir) throws Exception {
        Path spec = dir.resolve("spec.json");
        Files.writeString(spec, SPEC);
        CliRun run = CliRun.of(
                NOWHERE,
                "submit",
                "--actor",
                "a",
                "--name",
                "n",
                "--tpu-type",
                "v6e",
                "--topology",
                "2x4",
                "--spec",
                "@" + spec);
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("falcon: cannot reach the database at jdbc:mariadb://127.0.0.1:1/falcon:");
        assertThat(run.err().strip().lines()).hasSize(1);
    }

    @Test
    void badSupplyModeAndTimeoutAreRejected() {
        assertThat(submit("--supply-mode", "spot").err())
                .contains("'--supply-mode': 'spot' is not a supply mode; allowed: reservation, on-demand, flex-start");
        assertThat(submit("--timeout", "soon").err()).contains("'--timeout': 'soon' is not a timeout");
        assertThat(submit("--timeout", "31d").err()).contains("'--timeout': '31d' is out of range");
        assertThat(submit("--timeout", "0").exitCode()).isEqualTo(2);
    }

    @Test
    void aPriorityOutOfBoundsIsRejectedWithTheSchedulersOwnRule() {
        CliRun high = submit("--priority", "5000");
        assertThat(high.exitCode()).isEqualTo(2);
        assertThat(high.err())
                .contains("Invalid value for option '--priority': priority must be between -1000 and 1000, got 5000");
        // within the bounds the database is contacted (and is not there)
        assertThat(submit("--priority", "-7").err()).contains("cannot reach the database");
    }

    @Test
    void timeoutsAcceptSecondsAndUnits() {
        Converters.TimeoutSeconds converter = new Converters.TimeoutSeconds();
        assertThat(converter.convert("3600")).isEqualTo(3600L);
        assertThat(converter.convert("90m")).isEqualTo(5400L);
        assertThat(converter.convert("2h")).isEqualTo(7200L);
        assertThat(converter.convert("1d")).isEqualTo(86400L);
    }

    @Test
    void aJdbcUrlIsShownWithItsPasswordMasked() {
        String url = "jdbc:mariadb://falcon:url-s3cret@127.0.0.1:1/falcon?password=param-s3cret&sslMode=disable";
        for (CliRun run : List.of(
                CliRun.of(Map.of("FALCON_DB_URL", url), "jobs"),
                CliRun.of(NOWHERE, "jobs", "--db-url", url),
                CliRun.of(Map.of("FALCON_DB_URL", url), "show", "j1"))) {
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err())
                    .contains("cannot reach the database at jdbc:mariadb://falcon:***@127.0.0.1:1/falcon"
                            + "?password=***&sslMode=disable")
                    .doesNotContain("s3cret");
        }
        // a driver's own message names the URL too ("No suitable driver found for jdbc:...")
        CliRun noDriver = CliRun.of(NOWHERE, "jobs", "--db-url", "jdbc:nosuchdb://ops:drv-s3cret@h/db?pwd=x1");
        assertThat(noDriver.exitCode()).isEqualTo(2);
        assertThat(noDriver.err())
                .contains("jdbc:nosuchdb://ops:***@h/db?pwd=***")
                .doesNotContain("s3cret", "x1");
        // --help names the settings, never their values
        assertThat(CliRun.of(Map.of("FALCON_DB_URL", url), "jobs", "--help").out())
                .contains("--db-url")
                .doesNotContain("s3cret");
    }

    @Test
    void argumentsEchoedInErrorsAreShownNotRun() {
        CliRun status = CliRun.of(NOWHERE, "jobs", "--status", "x\u001b[2J\u001b]8;;https://evil/\u0007y\rz");
        assertThat(status.exitCode()).isEqualTo(2);
        assertThat(status.err()).contains("'x\\u001b[2J\\u001b]8;;https://evil/\\u0007y\\rz' is not a job status");
        assertThat(TerminalTextTest.hasTerminalControls(status.err())).isFalse();
    }

    @Test
    void withoutAConfiguredDatabaseTheErrorSaysHowToConfigureIt() {
        CliRun run = CliRun.of(Map.of(), "jobs");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .isEqualTo(
                        "falcon: no database configured: pass --db-url or set FALCON_DB_URL" + System.lineSeparator());
    }

    @Test
    void environmentNamesConfigureTheConnection() {
        CliRun run = CliRun.of(Map.of("FALCON_DB_URL", "jdbc:mariadb://127.0.0.1:1/fromenv"), "jobs");
        assertThat(run.err()).contains("cannot reach the database at jdbc:mariadb://127.0.0.1:1/fromenv");
    }

    @Test
    void optionsWinOverTheEnvironmentAndWorkAfterTheSubcommand() {
        CliRun run = CliRun.of(NOWHERE, "jobs", "--db-url", "jdbc:mariadb://127.0.0.1:1/fromoption");
        assertThat(run.err()).contains("jdbc:mariadb://127.0.0.1:1/fromoption");
    }

    @Test
    void jobsFiltersAreValidated() {
        assertThat(CliRun.of(NOWHERE, "jobs", "--status", "Done").err())
                .contains("'--status': 'Done' is not a job status; allowed: Pending, Running, Succeeded, Failed,"
                        + " Aborting, Aborted");
        assertThat(CliRun.of(NOWHERE, "jobs", "--limit", "0").err()).contains("'--limit': must be between 1");
        assertThat(CliRun.of(NOWHERE, "jobs", "--limit", "many").err()).contains("--limit");
    }

    @Test
    void clusterCommandsValidateStatusAndTpuType() {
        CliRun status = CliRun.of(NOWHERE, "clusters", "set-status", "c1", "broken");
        assertThat(status.exitCode()).isEqualTo(2);
        assertThat(status.err()).contains("'broken' is not a cluster status; allowed: active, maintenance, offline");

        CliRun add = CliRun.of(
                NOWHERE,
                "clusters",
                "add",
                "--name",
                "edge",
                "--project",
                "p",
                "--location",
                "l",
                "--tpu-type",
                "tpu-v6e-slice",
                "--gcs-bucket",
                "b");
        assertThat(add.exitCode()).isEqualTo(2);
        assertThat(add.err()).contains("'--tpu-type': 'tpu-v6e-slice' is not a TPU type");

        assertThat(CliRun.of(NOWHERE, "clusters").err()).contains("Missing required subcommand");
    }

    @Test
    void showAndAbortNeedAJobId() {
        assertThat(CliRun.of(NOWHERE, "show").err()).contains("Missing required parameter: 'JOB_ID'");
        assertThat(CliRun.of(NOWHERE, "abort").exitCode()).isEqualTo(2);
    }

    @Test
    void unknownCommandsGetASuggestion() {
        CliRun run = CliRun.of("jobz");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Unmatched argument").contains("jobs");
    }

    @Test
    void faultAndIsolationOptionsAreValidated() {
        assertThat(CliRun.of(NOWHERE, "faults", "inject", "--cluster", "c", "--node", "n", "--device", "d")
                        .err())
                .contains("Missing required option: '--code=FAULT_CODE'");
        assertThat(CliRun.of(
                                NOWHERE,
                                "faults",
                                "inject",
                                "--cluster",
                                "c",
                                "--node",
                                "n",
                                "--device",
                                "d",
                                "--code",
                                "X",
                                "--repeat",
                                "0")
                        .err())
                .contains("'--repeat': must be between 1 and 1000");
        assertThat(CliRun.of(NOWHERE, "isolation", "release", "--cluster", "c", "--node", "a/b", "--device", "d")
                        .err())
                .contains("'--node': node names never contain '/'");
        assertThat(CliRun.of(NOWHERE, "watch", "--until-final").err()).contains("--until-final needs --job");
    }

    @Test
    void anUnreachableKafkaIsOneLineAndExitCode2() {
        CliRun run =
                CliRun.of(NOWHERE, "faults", "inject", "--cluster", "c", "--node", "n", "--device", "d", "--code", "X");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("falcon: cannot ");
        assertThat(run.err()).contains("127.0.0.1:1");
        assertThat(run.err().strip().lines()).hasSize(1);
    }
}
