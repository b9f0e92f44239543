package io.falcon.events;

import io.falcon.events.config.Setting;
import io.falcon.events.config.SettingsCatalog;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Raw lookup of a value by key or environment name, kept only for the falcon CLI, which resolves its connection
 * options itself and is moving to its own module. It parses nothing: components read their settings through the
 * catalog ({@link io.falcon.events.config.SettingValues}), and the CLI's keys are declared there too
 * ({@link io.falcon.events.config.CliKeys}). Remove this class once the CLI reads through the catalog.
 */
public final class Settings {
    private final Map<String, String> values;

    public Settings(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /**
     * Environment variables overlaid by -D system properties. A secret of the catalog given as a -D option is
     * refused: the command line is visible to every user of the machine.
     */
    public static Settings fromEnvironment() {
        Map<String, String> merged = new HashMap<>(System.getenv());
        System.getProperties().forEach((k, v) -> {
            String key = k.toString();
            if (SettingsCatalog.byKey(key).filter(s -> !s.type().printable()).isPresent()) {
                throw new IllegalArgumentException(
                        key + " is a secret: set it in the environment (or its password file), never as a -D option");
            }
            merged.put(key, v.toString());
        });
        return new Settings(merged);
    }

    /** Every raw value, for parsing a part of the catalog's settings (SettingValues.parsePart). */
    public Map<String, String> values() {
        return values;
    }

    /** The value given for a key, by the key itself first, then by its environment name; blank counts as unset. */
    public Optional<String> find(String key) {
        return Optional.ofNullable(values.get(key))
                .or(() -> Optional.ofNullable(values.get(Setting.envNameOf(key))))
                .map(String::trim)
                .filter(v -> !v.isEmpty());
    }
}
