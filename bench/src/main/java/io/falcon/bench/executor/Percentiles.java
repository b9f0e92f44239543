package io.falcon.bench.executor;

import java.util.Collection;
import java.util.List;
import java.util.Locale;

/** Nearest-rank percentiles of durations given in nanoseconds. */
record Percentiles(List<Long> sortedNanos) {
    Percentiles {
        sortedNanos = sortedNanos.stream().sorted().toList();
    }

    static Percentiles of(Collection<Long> nanos) {
        return new Percentiles(List.copyOf(nanos));
    }

    int count() {
        return sortedNanos.size();
    }

    /** The q-quantile in milliseconds; NaN without samples. */
    double millis(double q) {
        if (sortedNanos.isEmpty()) {
            return Double.NaN;
        }
        int index = (int) Math.min(sortedNanos.size() - 1, Math.ceil(q * sortedNanos.size()) - 1);
        return sortedNanos.get(Math.max(0, index)) / 1e6;
    }

    String p50() {
        return format(millis(0.50));
    }

    String p99() {
        return format(millis(0.99));
    }

    static String format(double millis) {
        if (Double.isNaN(millis)) {
            return "-";
        }
        return millis >= 10_000
                ? String.format(Locale.ROOT, "%.1f s", millis / 1000)
                : String.format(Locale.ROOT, "%.0f ms", millis);
    }
}
