package io.falcon.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CliEnvironmentTest {
    @Test
    void printsOneExportPerConnectionSettingTheCliReads() {
        assertThat(CliEnvironment.exports("jdbc:mariadb://127.0.0.1:3307/falcon", "falcon", "s3cret", "127.0.0.1:9093"))
                .containsExactly(
                        "export FALCON_DB_URL='jdbc:mariadb://127.0.0.1:3307/falcon'",
                        "export FALCON_DB_USER='falcon'",
                        "export FALCON_DB_PASSWORD='s3cret'",
                        "export FALCON_KAFKA_BOOTSTRAP_SERVERS='127.0.0.1:9093'");
    }

    @Test
    void aShellGivesBackEachValueExactlyAsItIs() throws IOException, InterruptedException {
        String password = "it's $HOME `id` \"q\" \\ !x";
        List<String> lines = CliEnvironment.exports("jdbc:mariadb://h/db?a=1&b=2", "u", password, "h:1");
        String script = String.join("\n", lines) + "\nprintf '%s\\n' \"$FALCON_DB_PASSWORD\" \"$FALCON_DB_URL\"\n";
        Process sh =
                new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        assertThat(sh.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isEqualTo(password + "\njdbc:mariadb://h/db?a=1&b=2\n");
    }
}
