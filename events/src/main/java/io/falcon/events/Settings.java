package io.falcon.events;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a component's settings from a map (environment, system properties, or a test's literal map) and fails
 * fast with a message naming the setting. Keys are written like falcon.sink.batch-size; the environment form
 * FALCON_SINK_BATCH_SIZE is accepted too.
 */
public final class Settings {
    private final Map<String, String> values;

    public Settings(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /** Environment variables overlaid by -D system properties. */
    public static Settings fromEnvironment() {
        Map<String, String> merged = new HashMap<>(System.getenv());
        System.getProperties().forEach((k, v) -> merged.put(k.toString(), v.toString()));
        return new Settings(merged);
    }

    public static final class InvalidSetting extends IllegalArgumentException {
        public InvalidSetting(String key, String problem) {
            super("invalid configuration: " + key + " " + problem);
        }
    }

    public Optional<String> find(String key) {
        String value = values.get(key);
        if (value == null) {
            value = values.get(key.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_'));
        }
        return Optional.ofNullable(value).map(String::trim).filter(v -> !v.isEmpty());
    }

    public String required(String key) {
        return find(key).orElseThrow(() -> new InvalidSetting(key, "is required"));
    }

    public String string(String key, String fallback) {
        return find(key).orElse(fallback);
    }

    public int intBetween(String key, int fallback, int min, int max) {
        long value = longBetween(key, fallback, min, max);
        return (int) value;
    }

    public long longBetween(String key, long fallback, long min, long max) {
        Optional<String> text = find(key);
        if (text.isEmpty()) {
            return fallback;
        }
        long value;
        try {
            value = Long.parseLong(text.get());
        } catch (NumberFormatException e) {
            throw new InvalidSetting(key, "must be a whole number, got '" + text.get() + "'");
        }
        if (value < min || value > max) {
            throw new InvalidSetting(key, "must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    public Duration duration(String key, Duration fallback) {
        Optional<String> text = find(key);
        if (text.isEmpty()) {
            return fallback;
        }
        try {
            Duration value = Duration.parse(text.get().startsWith("P") ? text.get() : "PT" + text.get());
            if (value.isNegative() || value.isZero()) {
                throw new InvalidSetting(key, "must be positive, got " + text.get());
            }
            return value;
        } catch (java.time.format.DateTimeParseException e) {
            throw new InvalidSetting(key, "must be a duration like 30s, 5m or PT1H, got '" + text.get() + "'");
        }
    }

    public boolean bool(String key, boolean fallback) {
        Optional<String> text = find(key);
        if (text.isEmpty()) {
            return fallback;
        }
        return switch (text.get().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new InvalidSetting(key, "must be true or false, got '" + text.get() + "'");
        };
    }
}
