package io.falcon.events.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConfigurationDocsTest {
    private static final Path CHECKED_IN = Path.of("..", "docs", "configuration.md");

    @Test
    void theCheckedInPageIsTheGeneratedOne() throws IOException {
        String generated = ConfigurationDocs.render();
        assertThat(Files.exists(CHECKED_IN))
                .as("docs/configuration.md is missing; run: " + ConfigurationDocs.REGENERATE)
                .isTrue();
        assertThat(Files.readString(CHECKED_IN, StandardCharsets.UTF_8))
                .as("docs/configuration.md differs from the settings catalog; run: " + ConfigurationDocs.REGENERATE)
                .isEqualTo(generated);
    }

    @Test
    void everySettingHasARowWithItsEnvironmentName() {
        String page = ConfigurationDocs.render();
        for (Setting<?> setting : SettingsCatalog.settings()) {
            assertThat(page).contains("| `" + setting.key() + "` | `" + setting.envName() + "` |");
        }
        assertThat(page)
                .contains("| `falcon.kafka.bootstrap-servers` | `FALCON_KAFKA_BOOTSTRAP_SERVERS` | text |"
                        + " **required** |");
        assertThat(page).contains("`falcon.cdc.debezium.*`").doesNotContain("falcon.sink.topic");
    }
}
