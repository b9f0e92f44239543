package io.falcon.events;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Optional;

/**
 * The ISO-8601 instants on the topics ({@code 2026-02-11T12:08:05.650Z}, what {@link Instant#toString()} and the
 * mapper write), formatted and parsed without {@code DateTimeFormatter}: on the fault path the formatter's parse
 * was the largest single cost of decoding a fault. Years 0000-9999 only; anything else goes to the JDK.
 */
public final class IsoInstant {
    private static final long SECONDS_PER_DAY = 86_400;
    private static final long MAX_SECOND = LocalDate.of(9999, 12, 31).toEpochDay() * SECONDS_PER_DAY + 86_399;
    private static final long MIN_SECOND = LocalDate.of(0, 1, 1).toEpochDay() * SECONDS_PER_DAY;

    private IsoInstant() {}

    /** Exactly {@link Instant#toString()}: fractions in groups of three digits, none when whole. */
    public static String format(Instant instant) {
        long seconds = instant.getEpochSecond();
        if (seconds < MIN_SECOND || seconds > MAX_SECOND) {
            return instant.toString();
        }
        LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY));
        int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
        int nanos = instant.getNano();
        char[] out = new char[30];
        int at = 0;
        at = digits(out, at, date.getYear(), 4);
        out[at++] = '-';
        at = digits(out, at, date.getMonthValue(), 2);
        out[at++] = '-';
        at = digits(out, at, date.getDayOfMonth(), 2);
        out[at++] = 'T';
        at = digits(out, at, secondOfDay / 3600, 2);
        out[at++] = ':';
        at = digits(out, at, secondOfDay / 60 % 60, 2);
        out[at++] = ':';
        at = digits(out, at, secondOfDay % 60, 2);
        if (nanos != 0) {
            out[at++] = '.';
            if (nanos % 1_000_000 == 0) {
                at = digits(out, at, nanos / 1_000_000, 3);
            } else if (nanos % 1000 == 0) {
                at = digits(out, at, nanos / 1000, 6);
            } else {
                at = digits(out, at, nanos, 9);
            }
        }
        out[at++] = 'Z';
        return new String(out, 0, at);
    }

    /**
     * {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z}, the form {@link #format} writes; empty for anything else (a zone
     * offset, a leap second, an invalid date), which the caller hands to the JDK's lenient parsers.
     */
    public static Optional<Instant> parse(CharSequence s) {
        int n = s.length();
        if (n < 20
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':'
                || s.charAt(n - 1) != 'Z') {
            return Optional.empty();
        }
        int year = number(s, 0, 4);
        int month = number(s, 5, 7);
        int day = number(s, 8, 10);
        int hour = number(s, 11, 13);
        int minute = number(s, 14, 16);
        int second = number(s, 17, 19);
        if (year < 0
                || month < 0
                || day < 0
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 59) {
            return Optional.empty();
        }
        int nanos = 0;
        if (n > 20) {
            int digits = n - 21;
            if (s.charAt(19) != '.' || digits < 1 || digits > 9) {
                return Optional.empty();
            }
            int fraction = number(s, 20, n - 1);
            if (fraction < 0) {
                return Optional.empty();
            }
            nanos = fraction;
            for (int i = digits; i < 9; i++) {
                nanos *= 10;
            }
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return Optional.empty();
        }
        return Optional.of(
                Instant.ofEpochSecond(epochDay * SECONDS_PER_DAY + hour * 3600L + minute * 60L + second, nanos));
    }

    /** The decimal number in s[from, to), or -1 when a character is not a digit. */
    private static int number(CharSequence s, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static int digits(char[] out, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            out[i] = (char) ('0' + value % 10);
            value /= 10;
        }
        return at + width;
    }
}
