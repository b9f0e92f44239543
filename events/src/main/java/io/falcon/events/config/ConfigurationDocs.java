package io.falcon.events.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

/**
 * Writes docs/configuration.md from the catalog, so that the documented settings are the declared ones. Run it with
 * {@value #REGENERATE}; ConfigurationDocsTest fails when the checked-in file differs.
 */
public final class ConfigurationDocs {
    public static final String REGENERATE = "bench/run io.falcon.events.config.ConfigurationDocs docs/configuration.md";

    private ConfigurationDocs() {}

    public static void main(String[] args) throws IOException {
        Path target = Path.of(args.length > 0 ? args[0] : "docs/configuration.md");
        Files.writeString(target, render(), StandardCharsets.UTF_8);
        System.out.println("wrote " + target.toAbsolutePath());
    }

    /** The whole page. */
    public static String render() {
        StringBuilder page = new StringBuilder();
        page.append("# Configuration\n\n")
                .append("<!-- Generated from io.falcon.events.config.SettingsCatalog; do not edit. Regenerate: ")
                .append(REGENERATE)
                .append(" -->\n\n")
                .append("Every setting of every component is declared once in `io.falcon.events.config` (shared ones")
                .append(" in `SharedKeys`, then one class per component) and read only through it.\n\n")
                .append("- **Names.** A setting has a key (`falcon.sink.max-batch`) and an environment variable")
                .append(" derived from it: upper case, `.` and `-` as `_` (`FALCON_SINK_MAX_BATCH`). A component reads")
                .append(" its environment and its `-D` system properties; a system property wins.\n")
                .append("- **Durations** are one grammar everywhere: whole numbers with the units `ms`, `s`, `m`,")
                .append(" `h`, `d` (`500ms`, `30s`, `10m`, `24h`, `1h30m`) or ISO-8601 (`PT10M`).\n")
                .append("- **At start** a component checks all its settings and, if any is missing or invalid, stops")
                .append(" with one message listing every problem with its key and environment variable.\n")
                .append("- **Unknown names are refused**: a `falcon.*` key or `FALCON_*` variable that no component")
                .append(" below declares stops the component (a typo would otherwise be ignored). A setting of")
                .append(" another component is accepted and ignored, since every component gets the same")
                .append(
                        " `falcon-common` ConfigMap in `k8s/`. The pods set `enableServiceLinks: false`, since Kubernetes")
                .append(" would otherwise add `FALCON_<SERVICE>_SERVICE_HOST` and the like for Services named")
                .append(" `falcon-*`.\n")
                .append("- **Topic names are not settings**: every component uses the catalog's topics")
                .append(" (`io.falcon.events.Topics`, [topics.md](topics.md)), so no setting can disconnect the")
                .append(" pipeline.\n");
        for (Component component : SettingsCatalog.COMPONENTS) {
            page.append("\n## ")
                    .append(component.name())
                    .append("\n\n")
                    .append(component.description())
                    .append("\n\n| key | environment | type | default | description |\n|---|---|---|---|---|\n");
            for (Setting<?> setting : component.settings()) {
                page.append(row(setting));
            }
            for (Passthrough family : component.passthroughs()) {
                page.append("| `")
                        .append(family.prefix())
                        .append("*` | (system properties only) | | | ")
                        .append(escape(family.description()))
                        .append(" |\n");
            }
        }
        return page.toString();
    }

    private static <T> String row(Setting<T> setting) {
        String shared = SettingsCatalog.readers(setting).size() > 1
                ? " (shared by "
                        + SettingsCatalog.readers(setting).stream()
                                .map(Component::name)
                                .collect(Collectors.joining(", "))
                        + ")"
                : "";
        String constraint =
                setting.validator().isAny() ? "" : "; " + setting.validator().description();
        return "| `" + setting.key() + "` | `" + setting.envName() + "` | "
                + escape(setting.type().name() + constraint) + " | " + escape(fallback(setting)) + " | "
                + escape(setting.description() + shared)
                + " |\n";
    }

    private static <T> String fallback(Setting<T> setting) {
        Fallback<T> fallback = setting.fallback();
        if (fallback instanceof Fallback.Value<T> value) {
            String text = setting.type().format(value.value());
            return text.isEmpty() ? "(empty)" : "`" + text + "`";
        }
        if (fallback instanceof Fallback.Computed<T> computed) {
            return "`" + computed.shown() + "`";
        }
        if (fallback instanceof Fallback.Unset<T> unset) {
            return "unset: " + unset.meaning();
        }
        return "**required**";
    }

    private static String escape(String cell) {
        return cell.replace("|", "\\|");
    }
}
