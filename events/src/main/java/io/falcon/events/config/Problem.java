package io.falcon.events.config;

/** One missing, invalid or unknown setting, named both ways so the reader finds it in a map or an environment. */
public record Problem(String key, String envName, String message) {
    @Override
    public String toString() {
        if (key.isEmpty()) {
            return envName + ": " + message; // an unknown environment variable has no key
        }
        return envName.isEmpty() ? key + ": " + message : key + " (" + envName + "): " + message;
    }
}
