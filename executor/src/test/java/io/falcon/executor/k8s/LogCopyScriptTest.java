package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the container's shell script with /bin/sh against local directories standing in for the GCS FUSE mount and
 * the emptyDir: the log appears in the "bucket" while the workload runs (issue 19, design success metric 4), ends
 * whole, and the script exits with the workload's own status.
 */
class LogCopyScriptTest {

    private static Process run(Path bucket, Path local, List<String> argv) throws Exception {
        String script = JobRenderer.shellScript(bucket.resolve("logs/job-1").toString(), local.toString(), 1, argv);
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", script);
        builder.environment().put(JobRenderer.POD_NAME_ENV, "job-1-0-abcde");
        builder.redirectErrorStream(true);
        return builder.start();
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }

    @Test
    void theLogIsInTheBucketWhileTheWorkloadRunsAndWholeAfterwardsWithTheWorkloadsExitCode(
            @TempDir Path bucket, @TempDir Path local) throws Exception {
        Path gcs = bucket.resolve("logs/job-1/job-1-0-abcde.log");
        Path marker = local.resolve("go");
        Process p = run(
                bucket,
                local,
                List.of(
                        "sh",
                        "-c",
                        "echo first line; echo to stderr >&2; while [ ! -e '" + marker + "' ]; do sleep 0.1; done;"
                                + " echo last line; exit 3"));

        String during = Await.valueMatching(
                "the first lines in the bucket while the workload runs",
                Duration.ofSeconds(20),
                () -> read(gcs),
                text -> text.contains("first line") && text.contains("to stderr"));
        assertThat(during).doesNotContain("last line");
        assertThat(p.isAlive()).isTrue();

        Files.createFile(marker);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("the workload's exit status").isEqualTo(3);
        assertThat(read(gcs)).contains("first line", "to stderr", "last line");
    }

    @Test
    void aTermSignalReachesTheWorkloadAndTheLogIsCopiedOnceMore(@TempDir Path bucket, @TempDir Path local)
            throws Exception {
        Path gcs = bucket.resolve("logs/job-1/job-1-0-abcde.log");
        Process p = run(
                bucket,
                local,
                List.of("sh", "-c", "trap 'echo got term; exit 143' TERM; echo started; while :; do sleep 0.1; done"));
        Await.valueMatching(
                "started in the bucket", Duration.ofSeconds(20), () -> read(gcs), t -> t.contains("started"));

        p.destroy(); // SIGTERM to the script, as the kubelet sends it to PID 1
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(143);
        assertThat(read(gcs)).contains("got term");
    }

    @Test
    void argumentsAreQuotedSoNothingInThemIsInterpretedByTheShell(@TempDir Path bucket, @TempDir Path local)
            throws Exception {
        Process p = run(bucket, local, List.of("echo", "it's $HOME; `id` \"x\""));
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(read(bucket.resolve("logs/job-1/job-1-0-abcde.log")).strip()).isEqualTo("it's $HOME; `id` \"x\"");
    }
}
