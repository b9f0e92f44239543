package io.falcon.events.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * How the text of a setting becomes its value. {@link #parse} throws IllegalArgumentException when the text is not
 * of the type; the catalog turns that into a problem naming the setting.
 */
public sealed interface SettingType<T> {
    Text TEXT = new Text();
    Secret SECRET = new Secret();
    Whole WHOLE = new Whole();
    Bool BOOLEAN = new Bool();
    Span DURATION = new Span();
    FilePath PATH = new FilePath();

    /** What the text must be, for problems and the documentation ("a whole number"). */
    String expected();

    /** The documentation's name of the type. */
    String name();

    T parse(String text);

    /** The text a value is written as (defaults in the documentation). */
    String format(T value);

    /** Whether the value may appear in messages and logs. */
    default boolean printable() {
        return true;
    }

    /** Any text. */
    record Text() implements SettingType<String> {
        public String expected() {
            return "text";
        }

        public String name() {
            return "text";
        }

        public String parse(String text) {
            return text;
        }

        public String format(String value) {
            return value;
        }
    }

    /** Text that never appears in a message, a log line or the documentation (passwords). */
    record Secret() implements SettingType<String> {
        public String expected() {
            return "text";
        }

        public String name() {
            return "secret";
        }

        public String parse(String text) {
            return text;
        }

        public String format(String value) {
            return value.isEmpty() ? "" : "***";
        }

        @Override
        public boolean printable() {
            return false;
        }
    }

    /** A whole number (decimal, fits in a long). */
    record Whole() implements SettingType<Long> {
        public String expected() {
            return "a whole number";
        }

        public String name() {
            return "integer";
        }

        public Long parse(String text) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(expected(), e);
            }
        }

        public String format(Long value) {
            return value.toString();
        }
    }

    /** true or false (any case); yes/no and 1/0 are refused so that one spelling is documented. */
    record Bool() implements SettingType<Boolean> {
        public String expected() {
            return "true or false";
        }

        public String name() {
            return "boolean";
        }

        public Boolean parse(String text) {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new IllegalArgumentException(expected());
            };
        }

        public String format(Boolean value) {
            return value.toString();
        }
    }

    /** A duration in the one grammar of {@link DurationText}. */
    record Span() implements SettingType<Duration> {
        public String expected() {
            return DurationText.GRAMMAR;
        }

        public String name() {
            return "duration";
        }

        public Duration parse(String text) {
            return DurationText.parse(text);
        }

        public String format(Duration value) {
            return DurationText.format(value);
        }
    }

    /** A file system path. */
    record FilePath() implements SettingType<Path> {
        public String expected() {
            return "a file path";
        }

        public String name() {
            return "path";
        }

        public Path parse(String text) {
            try {
                return Path.of(text);
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException(expected(), e);
            }
        }

        public String format(Path value) {
            return value.toString();
        }
    }

    /** One word of a fixed list, in any case; the value is the word as listed. */
    record Choice(List<String> words) implements SettingType<String> {
        public Choice {
            words = List.copyOf(words);
        }

        public static Choice of(String... words) {
            return new Choice(List.of(words));
        }

        public String expected() {
            return words.size() == 1
                    ? words.get(0)
                    : String.join(", ", words.subList(0, words.size() - 1)) + " or " + words.get(words.size() - 1);
        }

        public String name() {
            return "one of " + String.join(", ", words);
        }

        public String parse(String text) {
            return words.stream()
                    .filter(w -> w.equalsIgnoreCase(text))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(expected()));
        }

        public String format(String value) {
            return value;
        }
    }
}
