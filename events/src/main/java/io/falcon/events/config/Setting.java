package io.falcon.events.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One declared setting (in the manner of Kafka's ConfigDef key): its key, type, fallback, validator and description.
 * Its environment variable is derived from the key, never declared: upper-cased, '.' and '-' as '_'
 * (falcon.sink.max-batch -> FALCON_SINK_MAX_BATCH), so that the two names cannot drift apart.
 */
public record Setting<T>(
        String key, SettingType<T> type, Fallback<T> fallback, Validator<T> validator, String description) {

    public Setting {
        if (!key.startsWith("falcon.") || !key.equals(key.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("a setting key is lower case and starts with falcon.: " + key);
        }
    }

    public static <T> Setting<T> required(String key, SettingType<T> type, Validator<T> validator, String description) {
        return new Setting<>(key, type, new Fallback.Required<>(), validator, description);
    }

    public static <T> Setting<T> withDefault(
            String key, SettingType<T> type, T defaultValue, Validator<T> validator, String description) {
        return new Setting<>(key, type, new Fallback.Value<>(defaultValue), validator, description);
    }

    public static <T> Setting<T> optional(
            String key, SettingType<T> type, String whenUnset, Validator<T> validator, String description) {
        return new Setting<>(key, type, new Fallback.Unset<>(whenUnset), validator, description);
    }

    /** The environment variable of a key. */
    public static String envNameOf(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    public String envName() {
        return envNameOf(key);
    }

    /** The declared default; only for settings with a fixed one (e.g. a core's defaults() built from the catalog). */
    public T defaultValue() {
        if (fallback instanceof Fallback.Value<T> value) {
            return value.value();
        }
        throw new IllegalStateException(key + " has no fixed default");
    }

    /**
     * Reads this one setting from raw values (by key, else by environment name), for the few places that need a
     * single setting outside a component's start, e.g. a test of a deployment file. Unknown keys are not checked.
     */
    public T readFrom(Map<String, String> raw) {
        Component alone = new Component("setting " + key, "", List.of(this), List.of(), List.of());
        return SettingValues.parse(alone, raw, SettingValues.Unknown.IGNORED).get(this);
    }

    /** The raw text given for this setting, by key first, then by environment name; blank counts as not given. */
    Optional<String> textIn(Map<String, String> raw) {
        return Optional.ofNullable(raw.get(key))
                .or(() -> Optional.ofNullable(raw.get(envName())))
                .map(String::trim)
                .filter(text -> !text.isEmpty());
    }
}
