package io.falcon.events;

import java.nio.charset.StandardCharsets;
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

    /** The longest text {@link #formatAscii} writes: {@code yyyy-MM-ddTHH:mm:ss.nnnnnnnnnZ}. */
    public static final int MAX_ASCII = 30;

    /** Exactly {@link Instant#toString()}: fractions in groups of three digits, none when whole. */
    public static String format(Instant instant) {
        byte[] out = new byte[MAX_ASCII];
        int end = formatAscii(instant, out, 0);
        return end < 0 ? instant.toString() : new String(out, 0, end, StandardCharsets.ISO_8859_1);
    }

    /**
     * {@link #format}'s text as ASCII bytes into out from at (room for {@link #MAX_ASCII} bytes), for a writer that
     * puts it straight into its buffer; the index after it, or -1 for an instant outside years 0000-9999 (which
     * {@link #format} leaves to the JDK).
     */
    public static int formatAscii(Instant instant, byte[] out, int at) {
        long seconds = instant.getEpochSecond();
        if (seconds < MIN_SECOND || seconds > MAX_SECOND) {
            return -1;
        }
        LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY));
        int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
        int nanos = instant.getNano();
        int i = at;
        i = digits(out, i, date.getYear(), 4);
        out[i++] = '-';
        i = digits(out, i, date.getMonthValue(), 2);
        out[i++] = '-';
        i = digits(out, i, date.getDayOfMonth(), 2);
        out[i++] = 'T';
        i = digits(out, i, secondOfDay / 3600, 2);
        out[i++] = ':';
        i = digits(out, i, secondOfDay / 60 % 60, 2);
        out[i++] = ':';
        i = digits(out, i, secondOfDay % 60, 2);
        if (nanos != 0) {
            out[i++] = '.';
            if (nanos % 1_000_000 == 0) {
                i = digits(out, i, nanos / 1_000_000, 3);
            } else if (nanos % 1000 == 0) {
                i = digits(out, i, nanos / 1000, 6);
            } else {
                i = digits(out, i, nanos, 9);
            }
        }
        out[i++] = 'Z';
        return i;
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

    private static int digits(byte[] out, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            out[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        return at + width;
    }
}
