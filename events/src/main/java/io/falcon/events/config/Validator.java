package io.falcon.events.config;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A condition a parsed value must meet, with the words that describe it in problems and the documentation
 * ("between 1 and 65535").
 */
public record Validator<T>(String description, Predicate<T> accepts) {
    /** Every value of the type. */
    public static <T> Validator<T> any() {
        return new Validator<>("", value -> true);
    }

    public static Validator<Long> between(long min, long max) {
        return new Validator<>("between " + min + " and " + max, value -> value >= min && value <= max);
    }

    public static Validator<Duration> positive() {
        return new Validator<>("positive", value -> !value.isNegative() && !value.isZero());
    }

    public static Validator<Duration> notNegative() {
        return new Validator<>("zero or positive", value -> !value.isNegative());
    }

    public static Validator<Duration> between(Duration min, Duration max) {
        return new Validator<>(
                "between " + DurationText.format(min) + " and " + DurationText.format(max),
                value -> value.compareTo(min) >= 0 && value.compareTo(max) <= 0);
    }

    public static Validator<Duration> atLeast(Duration min) {
        return new Validator<>("at least " + DurationText.format(min), value -> value.compareTo(min) >= 0);
    }

    /** Text matching a pattern (whole text), described by what it is ("a Kafka topic name"). */
    public static Validator<String> matching(String pattern, String what) {
        Pattern compiled = Pattern.compile(pattern);
        return new Validator<>(what, value -> compiled.matcher(value).matches());
    }

    public boolean isAny() {
        return description.isEmpty();
    }
}
