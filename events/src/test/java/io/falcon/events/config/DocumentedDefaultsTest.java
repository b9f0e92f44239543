package io.falcon.events.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The prose and the phase table also state defaults ("`orphan-grace` (10m)", "`falcon.faults.grace` (5 s)"): each
 * must be the catalog's, so that changing a default without the documentation fails here.
 */
class DocumentedDefaultsTest {
    private static final Path ROOT = Path.of("..");
    private static final List<String> PAGES = List.of(
            "README.md",
            "docs/architecture.md",
            "docs/fault-streams.md",
            "docs/deploy.md",
            "docs/cli.md",
            "docs/operating.md",
            "executor/README.md",
            "ops/README.md");
    /** A setting in backticks (full key, or a scheduler timer's short name in the phase table), then its default. */
    private static final Pattern STATED =
            Pattern.compile("`((?:falcon\\.)?[a-z0-9.-]+)`(?: \\(|, )(\\d+) ?(ms|s|min|m|h|d)?\\)?[),;:]?");

    private record Statement(String page, Setting<?> setting, String text) {}

    private static List<Statement> statements() throws IOException {
        List<Statement> found = new ArrayList<>();
        for (String page : PAGES) {
            Matcher m = STATED.matcher(Files.readString(ROOT.resolve(page)));
            while (m.find()) {
                String name = m.group(1);
                Optional<Setting<?>> setting =
                        SettingsCatalog.byKey(name).or(() -> SettingsCatalog.byKey("falcon.scheduler." + name));
                if (setting.isPresent()) {
                    String unit = m.group(3) == null ? "" : m.group(3).equals("min") ? "m" : m.group(3);
                    found.add(new Statement(page, setting.get(), m.group(2) + unit));
                }
            }
        }
        return found;
    }

    @Test
    void everyDefaultTheDocumentationStatesIsTheCatalogs() throws IOException {
        List<Statement> statements = statements();
        assertThat(statements)
                .extracting(s -> s.setting().key())
                .contains(
                        "falcon.scheduler.orphan-grace",
                        "falcon.scheduler.provisioning-backstop",
                        "falcon.executor.node-pool.delete-failures-reported",
                        "falcon.faults.grace",
                        "falcon.faults.release-check-interval");
        for (Statement statement : statements) {
            Object declared = statement.setting().defaultValue();
            Object stated = declared instanceof Duration
                    ? DurationText.parse(statement.text())
                    : declared instanceof Long ? (Object) Long.parseLong(statement.text()) : statement.text();
            assertThat(stated)
                    .as(statement.page() + " states " + statement.text() + " for "
                            + statement.setting().key() + "; docs/configuration.md has the catalog's default")
                    .isEqualTo(declared);
        }
    }
}
