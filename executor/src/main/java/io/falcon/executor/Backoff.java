package io.falcon.executor;

import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with jitter (pure apart from the random source): attempt n (1-based) waits a random time in
 * [d/2, d] where d = min(base * 2^(n-1), max), so retries of many pools that failed together spread out.
 */
public record Backoff(Duration base, Duration max) {
    public Backoff {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(max, "max");
        if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < base <= max, got " + base + " / " + max);
        }
    }

    /** The ceiling of attempt n before jitter. */
    public Duration ceiling(int attempt) {
        int shift = Math.max(0, Math.min(attempt - 1, 30));
        long millis = base.toMillis() << shift;
        return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
    }

    /** The delay of attempt n with a jitter fraction taken from {@code random} (expected in [0, 1)). */
    public Duration delay(int attempt, DoubleSupplier random) {
        long ceiling = ceiling(attempt).toMillis();
        double r = Math.max(0, Math.min(1, random.getAsDouble()));
        return Duration.ofMillis(ceiling / 2 + Math.round(r * (ceiling - ceiling / 2)));
    }
}
