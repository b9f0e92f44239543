package io.falcon.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Latency samples in microseconds and their percentiles, for the load harnesses. */
final class Samples {
    private final List<Long> micros = Collections.synchronizedList(new ArrayList<>());

    void add(long nanos) {
        micros.add(nanos / 1_000);
    }

    int size() {
        return micros.size();
    }

    String summary() {
        List<Long> sorted = new ArrayList<>(micros);
        Collections.sort(sorted);
        if (sorted.isEmpty()) {
            return "no samples";
        }
        return String.format(
                Locale.ROOT,
                "n=%d p50=%.1fms p90=%.1fms p99=%.1fms max=%.1fms",
                sorted.size(),
                at(sorted, 0.50),
                at(sorted, 0.90),
                at(sorted, 0.99),
                sorted.get(sorted.size() - 1) / 1000.0);
    }

    private static double at(List<Long> sorted, double quantile) {
        int index = (int) Math.min(sorted.size() - 1, Math.ceil(quantile * sorted.size()) - 1);
        return sorted.get(Math.max(0, index)) / 1000.0;
    }
}
