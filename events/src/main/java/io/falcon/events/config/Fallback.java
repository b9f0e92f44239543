package io.falcon.events.config;

import java.util.function.Supplier;

/** What a setting is when nobody set it. */
public sealed interface Fallback<T> {
    /** Nothing sensible: the component refuses to start without it. */
    record Required<T>() implements Fallback<T> {}

    /** A fixed default. */
    record Value<T>(T value) implements Fallback<T> {}

    /** A default that depends on the machine (the temp directory); {@code shown} is how the documentation says it. */
    record Computed<T>(Supplier<T> supplier, String shown) implements Fallback<T> {}

    /** Unset is meaningful and read as an empty Optional; {@code meaning} says what unset does. */
    record Unset<T>(String meaning) implements Fallback<T> {}
}
