package io.falcon.events.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar of every Falcon setting: one or more {@code <whole number><unit>} parts with the units
 * ms, s, m, h and d ({@code 500ms}, {@code 30s}, {@code 10m}, {@code 24h}, {@code 1h30m}), or ISO-8601
 * ({@code PT10M}, {@code P1D}). A bare number is refused: its unit would be a guess.
 */
public final class DurationText {
    /** How settings documentation and messages describe the grammar. */
    public static final String GRAMMAR = "a duration such as 500ms, 30s, 10m, 24h, 1h30m or ISO-8601 PT10M";

    private static final Pattern PARTS = Pattern.compile("(?:\\d+(?:ms|s|m|h|d))+");
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    private DurationText() {}

    /** The duration the text names; IllegalArgumentException when it follows neither form. */
    public static Duration parse(String text) {
        String trimmed = text.trim().toLowerCase(Locale.ROOT);
        if (PARTS.matcher(trimmed).matches()) {
            Duration total = Duration.ZERO;
            Matcher part = PART.matcher(trimmed);
            while (part.find()) {
                total = total.plus(unit(Long.parseLong(part.group(1)), part.group(2)));
            }
            return total;
        }
        if (trimmed.startsWith("p") || trimmed.startsWith("-p") || trimmed.startsWith("+p")) {
            try {
                return Duration.parse(trimmed.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("not " + GRAMMAR + ": '" + text + "'", e);
            }
        }
        throw new IllegalArgumentException("not " + GRAMMAR + ": '" + text + "'");
    }

    private static Duration unit(long amount, String unit) {
        return switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }

    /** The shortest text of the grammar for a duration (10m, 1m30s, 500ms), so that parse(format(d)) equals d. */
    public static String format(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        if (duration.isNegative() || duration.getNano() % 1_000_000 != 0) {
            return duration.toString();
        }
        long seconds = duration.getSeconds();
        long millis = duration.getNano() / 1_000_000;
        StringBuilder text = new StringBuilder();
        if (seconds >= 3600) {
            text.append(seconds / 3600).append('h');
        }
        if (seconds % 3600 >= 60) {
            text.append(seconds % 3600 / 60).append('m');
        }
        if (seconds % 60 != 0) {
            text.append(seconds % 60).append('s');
        }
        if (millis != 0) {
            text.append(millis).append("ms");
        }
        return text.toString();
    }
}
