package io.falcon.events.security;

/**
 * A password read from the environment or a file. Its text is only handed to the client library that needs it:
 * {@link #toString()} never shows it, so a record holding one can be logged.
 */
public record Secret(String text) {
    @Override
    public String toString() {
        return "***";
    }
}
