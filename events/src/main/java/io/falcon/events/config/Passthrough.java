package io.falcon.events.config;

/**
 * A family of keys handed to a library verbatim with the prefix removed (falcon.cdc.debezium.snapshot.mode ->
 * snapshot.mode). Only the dotted form is read: the environment form of a library's own key would be ambiguous
 * (is SNAPSHOT_MODE snapshot.mode or snapshot-mode?), so these come from -D system properties or a literal map.
 */
public record Passthrough(String prefix, String description) {
    public Passthrough {
        if (!prefix.startsWith("falcon.") || !prefix.endsWith(".")) {
            throw new IllegalArgumentException(
                    "a pass-through prefix starts with falcon. and ends with '.': " + prefix);
        }
    }

    public boolean covers(String key) {
        return key.startsWith(prefix) && key.length() > prefix.length();
    }

    public String envPrefix() {
        return Setting.envNameOf(prefix);
    }
}
