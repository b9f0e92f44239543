package io.falcon.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The last {@link #SAMPLES} observations of one {@link HistoryKey}, oldest first, in ms: how long a job held the
 * queue's slot before its pods ran (pool creation or reuse, capacity waits, node registration and the Kubernetes
 * Job's submission: what a waiting job waits for, per job ahead of it), and how long jobs ran. Immutable; kept in
 * a changelogged store so that estimates survive restarts.
 */
public record QueueHistory(List<Long> acquireMillis, List<Long> runMillis) {
    /** Enough to follow a change (a reservation running out) within a few dozen jobs, small enough to store. */
    public static final int SAMPLES = 50;

    /** Fewer samples than this say too little: no estimate is made from them. */
    public static final int MIN_SAMPLES = 3;

    public QueueHistory {
        acquireMillis = List.copyOf(acquireMillis);
        runMillis = List.copyOf(runMillis);
    }

    public static QueueHistory empty() {
        return new QueueHistory(List.of(), List.of());
    }

    public QueueHistory withAcquire(long millis) {
        return new QueueHistory(appended(acquireMillis, millis), runMillis);
    }

    public QueueHistory withRun(long millis) {
        return new QueueHistory(acquireMillis, appended(runMillis, millis));
    }

    private static List<Long> appended(List<Long> samples, long millis) {
        List<Long> next = new ArrayList<>(samples.size() + 1);
        next.addAll(
                samples.size() >= SAMPLES ? samples.subList(samples.size() - SAMPLES + 1, samples.size()) : samples);
        next.add(Math.max(0, millis));
        return next;
    }

    /** The spread of the slot hold times, once there are enough of them. */
    public Optional<Spread> acquire() {
        return Spread.of(acquireMillis);
    }

    /**
     * What remains of a slot hold that has lasted {@code elapsedMillis} so far: taken from the past holds that
     * lasted longer (the ones it may still turn out like), so a holder that is slow already is not expected to end
     * any moment. None of them lasted that long: expected to end now, with the spread the holds had.
     */
    public Optional<Spread> remainingAcquire(long elapsedMillis) {
        return remaining(acquireMillis, elapsedMillis);
    }

    /** What remains of a run that has lasted {@code elapsedMillis} so far, in the same way. */
    public Optional<Spread> remainingRun(long elapsedMillis) {
        return remaining(runMillis, elapsedMillis);
    }

    private static Optional<Spread> remaining(List<Long> samples, long elapsedMillis) {
        if (samples.size() < MIN_SAMPLES) {
            return Optional.empty();
        }
        List<Long> longer = samples.stream()
                .filter(ms -> ms > elapsedMillis)
                .map(ms -> ms - elapsedMillis)
                .toList();
        return longer.isEmpty() ? Optional.of(new Spread(0, 0)) : Spread.of(longer, 1);
    }

    /** Mean and variance of durations in ms; sums of independent ones add both. */
    public record Spread(double mean, double variance) {
        static final Spread NONE = new Spread(0, 0);

        static Optional<Spread> of(List<Long> samples) {
            return of(samples, MIN_SAMPLES);
        }

        static Optional<Spread> of(List<Long> samples, int minimum) {
            if (samples.size() < minimum) {
                return Optional.empty();
            }
            double mean = samples.stream().mapToLong(Long::longValue).average().orElse(0);
            double variance = samples.stream()
                            .mapToDouble(ms -> (ms - mean) * (ms - mean))
                            .sum()
                    / samples.size();
            return Optional.of(new Spread(mean, variance));
        }

        public Spread plus(Spread other) {
            return new Spread(mean + other.mean, variance + other.variance);
        }
    }
}
