package io.falcon.bench.e2e;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Latency samples (microseconds) and their nearest-rank percentiles. */
final class Latencies {
    private final List<Long> micros = new ArrayList<>();

    void add(Instant from, Instant to) {
        micros.add(Duration.between(from, to).toNanos() / 1_000);
    }

    void addMillis(double ms) {
        micros.add(Math.round(ms * 1000));
    }

    int size() {
        return micros.size();
    }

    /** The q-quantile in milliseconds (nearest rank), NaN without samples. */
    double ms(double q) {
        if (micros.isEmpty()) {
            return Double.NaN;
        }
        List<Long> sorted = new ArrayList<>(micros);
        Collections.sort(sorted);
        int index = (int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1);
        return sorted.get(Math.max(0, index)) / 1000.0;
    }

    double p50() {
        return ms(0.50);
    }

    double p99() {
        return ms(0.99);
    }

    double max() {
        return ms(1.0);
    }

    static String fmt(double ms) {
        if (Double.isNaN(ms)) {
            return "-";
        }
        return ms >= 10_000
                ? String.format(Locale.ROOT, "%.1f s", ms / 1000)
                : String.format(Locale.ROOT, "%.0f ms", ms);
    }
}
