package io.falcon.simulation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * The discrete-event loop of a simulation: a simulated clock and the actions scheduled on it, run in time order
 * (ties in the order they were scheduled), so a run is a function of its seed alone.
 */
final class Loop {
    private record Scheduled(Instant at, long seq, Runnable action) {}

    private final PriorityQueue<Scheduled> queue =
            new PriorityQueue<>(Comparator.comparing(Scheduled::at).thenComparingLong(Scheduled::seq));
    private Instant now;
    private long seq;
    private long steps;

    Loop(Instant start) {
        this.now = start;
    }

    Instant now() {
        return now;
    }

    long steps() {
        return steps;
    }

    void at(Instant at, Runnable action) {
        queue.add(new Scheduled(at.isBefore(now) ? now : at, seq++, action));
    }

    void after(Duration delay, Runnable action) {
        at(now.plus(delay), action);
    }

    /** Runs actions until the condition holds or the deadline passes; true if the condition held. */
    boolean runUntil(BooleanSupplier condition, Instant deadline) {
        while (!condition.getAsBoolean()) {
            Scheduled next = queue.peek();
            if (next == null || next.at().isAfter(deadline)) {
                now = deadline;
                return condition.getAsBoolean();
            }
            queue.poll();
            now = next.at();
            steps++;
            next.action().run();
        }
        return true;
    }

    /** A java.time.Clock reading the simulated time (for the executor's event factory). */
    Clock clock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now;
            }
        };
    }
}
