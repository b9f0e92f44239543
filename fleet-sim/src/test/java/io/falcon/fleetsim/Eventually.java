package io.falcon.fleetsim;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls until a value satisfies a condition; fails the test with the last value seen on timeout. */
final class Eventually {

  private Eventually() {}

  static <T> T await(Duration timeout, Supplier<T> probe, java.util.function.Predicate<T> done, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = null;
    RuntimeException lastError = null;
    while (System.nanoTime() < deadline) {
      try {
        last = probe.get();
        lastError = null;
        if (done.test(last)) {
          return last;
        }
      } catch (RuntimeException e) {
        lastError = e;
      }
      try {
        Thread.sleep(25);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what);
      }
    }
    AssertionError failure = new AssertionError("timed out after " + timeout + " waiting for " + what
        + "; last value: " + last);
    if (lastError != null) {
      failure.initCause(lastError);
    }
    throw failure;
  }
}
