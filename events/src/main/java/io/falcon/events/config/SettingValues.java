package io.falcon.events.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The parsed, validated settings of one component: built by {@link #parse} from raw text (keys like
 * falcon.sink.max-batch or their environment names), which reports every problem at once; read with {@link #get}.
 */
public final class SettingValues {
    /** Whether keys the catalog does not know are refused (a component's start) or ignored (reading one setting). */
    enum Unknown {
        REFUSED,
        IGNORED
    }

    private final Component component;
    private final Map<Setting<?>, Optional<?>> values;
    private final Map<Passthrough, Map<String, String>> passedThrough;

    private SettingValues(
            Component component,
            Map<Setting<?>, Optional<?>> values,
            Map<Passthrough, Map<String, String>> passedThrough) {
        this.component = component;
        this.values = values;
        this.passedThrough = passedThrough;
    }

    /**
     * Parses a component's settings. A falcon.* key or FALCON_* name that no component of the {@link SettingsCatalog}
     * declares is refused (a typo would otherwise be silently ignored); settings other components read are accepted
     * and ignored, since a deployment gives every component the same shared ConfigMap (k8s falcon-common).
     *
     * @throws InvalidSettingsException listing every missing, invalid or unknown setting
     */
    public static SettingValues parse(Component component, Map<String, String> raw) {
        return parse(component, raw, Unknown.REFUSED);
    }

    /**
     * Parses the settings of a part of a program (e.g. {@link KafkaSecurityKeys#ALONE} in the CLI) from raw values that
     * also hold other settings: keys the part does not declare are not checked.
     *
     * @throws InvalidSettingsException listing every missing or invalid setting of the part
     */
    public static SettingValues parsePart(Component part, Map<String, String> raw) {
        return parse(part, raw, Unknown.IGNORED);
    }

    /** This JVM's environment variables and -D system properties; see the three-argument form. */
    public static SettingValues fromEnvironment(Component component) {
        return fromEnvironment(component, System.getenv(), System.getProperties());
    }

    /**
     * Environment variables (FALCON_SINK_MAX_BATCH) and system properties (-Dfalcon.sink.max-batch=...); a system
     * property wins over the environment variable of the same setting.
     */
    public static SettingValues fromEnvironment(
            Component component, Map<String, String> environment, Properties systemProperties) {
        Map<String, String> raw = new HashMap<>(environment);
        List<Problem> onCommandLine = new ArrayList<>();
        for (String name : systemProperties.stringPropertyNames()) {
            // a -D option is visible to every user of the machine (ps, /proc/PID/cmdline): no secret comes that way
            if (SettingsCatalog.byKey(name).filter(s -> !s.type().printable()).isPresent()) {
                onCommandLine.add(new Problem(
                        name,
                        Setting.envNameOf(name),
                        "is a secret: set it in the environment (or its password file), never as a -D option"));
            } else {
                raw.put(name, systemProperties.getProperty(name));
            }
        }
        if (!onCommandLine.isEmpty()) {
            throw new InvalidSettingsException(component.name(), onCommandLine);
        }
        return parse(component, raw);
    }

    static SettingValues parse(Component component, Map<String, String> raw, Unknown unknown) {
        List<Problem> problems = new ArrayList<>();
        if (unknown == Unknown.REFUSED) {
            raw.keySet().stream().sorted().forEach(name -> unknownProblem(name).ifPresent(problems::add));
        }
        Map<Setting<?>, Optional<?>> values = new LinkedHashMap<>();
        for (Setting<?> setting : component.settings()) {
            Outcome outcome = read(setting, raw);
            if (outcome instanceof Outcome.Read read) {
                values.put(setting, read.value());
            } else if (outcome instanceof Outcome.Refused refused) {
                problems.add(refused.problem());
            }
        }
        Map<Passthrough, Map<String, String>> passedThrough = new LinkedHashMap<>();
        for (Passthrough family : component.passthroughs()) {
            Map<String, String> keys = new LinkedHashMap<>();
            raw.keySet().stream()
                    .filter(family::covers)
                    .sorted()
                    .forEach(key -> keys.put(
                            key.substring(family.prefix().length()),
                            raw.get(key).trim()));
            passedThrough.put(family, Map.copyOf(keys));
        }
        SettingValues parsed = new SettingValues(component, values, passedThrough);
        for (Rule rule : component.rules()) {
            if (values.keySet().containsAll(rule.settings()) && !rule.holds().test(parsed)) {
                String keys = String.join(
                        ", ", rule.settings().stream().map(Setting::key).toList());
                problems.add(new Problem(keys, "", rule.description()));
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(component.name(), problems);
        }
        return parsed;
    }

    /** What became of one setting's text: its value (empty: an optional setting left unset), or a problem. */
    private sealed interface Outcome {
        record Read(Optional<?> value) implements Outcome {}

        record Refused(Problem problem) implements Outcome {}
    }

    private static <T> Outcome read(Setting<T> setting, Map<String, String> raw) {
        Optional<String> text = setting.textIn(raw);
        if (text.isEmpty()) {
            Fallback<T> fallback = setting.fallback();
            if (fallback instanceof Fallback.Value<T> value) {
                return new Outcome.Read(Optional.of(value.value()));
            }
            if (fallback instanceof Fallback.Computed<T> computed) {
                return new Outcome.Read(Optional.of(computed.supplier().get()));
            }
            if (fallback instanceof Fallback.Unset<T>) {
                return new Outcome.Read(Optional.empty());
            }
            return refused(setting, "is required");
        }
        // a secret's text never reaches a message or a log line
        String shown = setting.type().printable() ? ", got '" + text.get() + "'" : "";
        T value;
        try {
            value = setting.type().parse(text.get());
        } catch (IllegalArgumentException e) {
            return refused(setting, "must be " + setting.type().expected() + shown);
        }
        if (!setting.validator().accepts().test(value)) {
            return refused(setting, "must be " + setting.validator().description() + shown);
        }
        return new Outcome.Read(Optional.of(value));
    }

    private static Outcome refused(Setting<?> setting, String message) {
        return new Outcome.Refused(new Problem(setting.key(), setting.envName(), message));
    }

    private static Optional<Problem> unknownProblem(String name) {
        if (name.startsWith("falcon.")) {
            if (SettingsCatalog.byKey(name).isPresent()
                    || SettingsCatalog.passthroughs().stream().anyMatch(family -> family.covers(name))) {
                return Optional.empty();
            }
            return Optional.of(new Problem(name, "", "unknown setting: no component declares it"));
        }
        if (name.startsWith("FALCON_")) {
            if (SettingsCatalog.byEnvName(name).isPresent()) {
                return Optional.empty();
            }
            Optional<Passthrough> family = SettingsCatalog.passthroughs().stream()
                    .filter(p -> name.startsWith(p.envPrefix()))
                    .findFirst();
            return Optional.of(new Problem(
                    "",
                    name,
                    family.map(p -> "unknown setting: " + p.prefix() + "* keys are read from system properties only (-D"
                                    + p.prefix() + "...)")
                            .orElse("unknown setting: no component declares it")));
        }
        return Optional.empty();
    }

    public Component component() {
        return component;
    }

    /** The value of a setting this component declares and that has a value (required, defaulted or computed). */
    public <T> T get(Setting<T> setting) {
        return find(setting)
                .orElseThrow(() -> new IllegalStateException(setting.key() + " is optional: read it with find"));
    }

    /** The value of a setting this component declares, empty when an optional setting was not set. */
    @SuppressWarnings("unchecked")
    public <T> Optional<T> find(Setting<T> setting) {
        Optional<?> value = values.get(setting);
        if (value == null) {
            throw new IllegalArgumentException(component.name() + " does not declare " + setting.key());
        }
        return (Optional<T>) value;
    }

    /** A whole-number setting whose validator keeps it within int range. */
    public int getInt(Setting<Long> setting) {
        return Math.toIntExact(get(setting));
    }

    /** The keys of a pass-through family with the prefix removed. */
    public Map<String, String> passedThrough(Passthrough family) {
        Map<String, String> keys = passedThrough.get(family);
        if (keys == null) {
            throw new IllegalArgumentException(component.name() + " does not declare " + family.prefix() + "*");
        }
        return keys;
    }
}
