package io.falcon.testkit;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The one way tests wait for something another thread or process does (in the manner of Confluent's
 * TestUtils.waitForCondition): probe, and if not there yet sleep a little longer each time (10 ms doubling up to
 * 100 ms, never past the deadline) and probe again, one last time at the deadline. On timeout it throws an
 * AssertionError naming what was awaited and the last state observed, so a failure says what was seen instead.
 *
 * <p>A probe that throws counts as "not yet" (a resource not created yet answers NOT_FOUND, a database coming back
 * refuses connections); the last such error is the cause of the timeout's AssertionError.
 */
public final class Await {
    static final Duration FIRST_PAUSE = Duration.ofMillis(10);
    static final Duration LONGEST_PAUSE = Duration.ofMillis(100);
    /** Long states (a topic's records, a 70,000-character message) are cut so that the failure stays readable. */
    static final int MAX_STATE_CHARS = 4_000;

    /** A condition that may throw while what it looks at is not there yet. */
    @FunctionalInterface
    public interface Condition {
        boolean isMet() throws Exception;
    }

    /** A probe that may throw while what it looks at is not there yet; empty means "not yet". */
    @FunctionalInterface
    public interface Probe<T> {
        Optional<T> probe() throws Exception;
    }

    /** A read of the current value, e.g. a GKE node pool or a list of pods. */
    @FunctionalInterface
    public interface Reading<T> {
        T read() throws Exception;
    }

    private Await() {}

    /** Waits until the condition is met; lastState describes what was observed, for the failure message. */
    public static void until(String what, Duration timeout, Condition condition, Supplier<String> lastState) {
        present(what, timeout, () -> condition.isMet() ? Optional.of(Boolean.TRUE) : Optional.empty(), lastState);
    }

    /** Waits until the probe returns a value, and returns it. */
    public static <T> T present(String what, Duration timeout, Probe<T> probe, Supplier<String> lastState) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Duration pause = FIRST_PAUSE;
        Throwable lastError = null;
        while (true) {
            try {
                Optional<T> value = probe.probe();
                if (value.isPresent()) {
                    return value.get();
                }
                lastError = null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            } catch (Exception | AssertionError e) {
                lastError = e;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            sleep(what, Math.min(pause.toNanos(), left));
            pause = pause.multipliedBy(2).compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : pause.multipliedBy(2);
        }
        String message = "timed out after " + timeout + " waiting for " + what + "; last state: " + describe(lastState)
                + (lastError == null ? "" : "; last error: " + lastError);
        AssertionError failure = new AssertionError(message);
        if (lastError != null) {
            failure.initCause(lastError);
        }
        throw failure;
    }

    /** Reads until the value read satisfies done, and returns it; the last value read is the state on timeout. */
    public static <T> T valueMatching(String what, Duration timeout, Reading<T> reading, Predicate<T> done) {
        AtomicReference<String> last = new AtomicReference<>("nothing read");
        return present(
                what,
                timeout,
                () -> {
                    T value = reading.read();
                    last.set(String.valueOf(value));
                    return done.test(value) ? Optional.of(value) : Optional.empty();
                },
                last::get);
    }

    private static String describe(Supplier<String> lastState) {
        String state;
        try {
            state = lastState.get();
        } catch (RuntimeException e) {
            state = "(could not be described: " + e + ")";
        }
        return state.length() <= MAX_STATE_CHARS
                ? state
                : state.substring(0, MAX_STATE_CHARS) + "... (" + state.length() + " characters)";
    }

    private static void sleep(String what, long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + what, e);
        }
    }
}
