package io.falcon.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
    private static final Duration LONG = Duration.ofSeconds(10);

    @Test
    void returnsAsSoonAsTheConditionIsMet() {
        AtomicInteger probes = new AtomicInteger();
        Await.until("the third probe", LONG, () -> probes.incrementAndGet() == 3, () -> "probes " + probes);
        assertThat(probes).hasValue(3);
    }

    @Test
    void returnsTheValueOnceItIsPresent() {
        AtomicInteger probes = new AtomicInteger();
        String value = Await.present(
                "a value",
                LONG,
                () -> probes.incrementAndGet() < 4 ? Optional.empty() : Optional.of("v" + probes.get()),
                () -> "none yet");
        assertThat(value).isEqualTo("v4");
    }

    @Test
    void aTimeoutNamesWhatWasAwaitedAndTheLastStateObserved() {
        AtomicInteger probes = new AtomicInteger();
        assertThatThrownBy(() -> Await.until(
                        "job j1 Succeeded",
                        Duration.ofMillis(200),
                        () -> {
                            probes.incrementAndGet();
                            return false;
                        },
                        () -> "j1 is Running after " + probes.get() + " probes"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith(
                        "timed out after PT0.2S waiting for job j1 Succeeded; last state: " + "j1 is Running after ")
                .hasMessageEndingWith(probes.get() + " probes");
    }

    @Test
    void itSleepsLongerEachTimeInsteadOfSpinning() {
        List<Long> probedAt = new ArrayList<>();
        assertThatThrownBy(() -> Await.until(
                        "never",
                        Duration.ofMillis(600),
                        () -> {
                            probedAt.add(System.nanoTime());
                            return false;
                        },
                        () -> ""))
                .isInstanceOf(AssertionError.class);
        // 10, 20, 40, 80, then 100 ms pauses: about 9 probes in 600 ms, a spinning loop would make millions
        assertThat(probedAt).hasSizeBetween(5, 15);
        long firstPause = probedAt.get(1) - probedAt.get(0);
        long laterPause = probedAt.get(5) - probedAt.get(4);
        assertThat(firstPause).isGreaterThanOrEqualTo(Await.FIRST_PAUSE.toNanos());
        assertThat(laterPause).isGreaterThanOrEqualTo(Await.LONGEST_PAUSE.toNanos() * 8 / 10);
        assertThat(laterPause).isGreaterThan(firstPause);
    }

    @Test
    void itProbesOnceMoreAtTheDeadline() {
        long start = System.nanoTime();
        List<Long> probedAt = new ArrayList<>();
        assertThatThrownBy(() -> Await.until(
                        "never",
                        Duration.ofMillis(150),
                        () -> {
                            probedAt.add(System.nanoTime());
                            return false;
                        },
                        () -> ""))
                .isInstanceOf(AssertionError.class);
        assertThat(probedAt.get(probedAt.size() - 1) - start)
                .isGreaterThanOrEqualTo(Duration.ofMillis(150).toNanos());
    }

    @Test
    void aProbeThatThrowsIsNotThereYetAndItsLastErrorIsTheCause() {
        AtomicInteger probes = new AtomicInteger();
        String value = Await.present(
                "a pool that answers NOT_FOUND twice",
                LONG,
                () -> {
                    if (probes.incrementAndGet() < 3) {
                        throw new IllegalStateException("NOT_FOUND");
                    }
                    return Optional.of("pool");
                },
                () -> "");
        assertThat(value).isEqualTo("pool");

        assertThatThrownBy(() -> Await.until(
                        "a database",
                        Duration.ofMillis(100),
                        () -> {
                            throw new java.sql.SQLException("connection refused");
                        },
                        () -> "down"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("last state: down; last error: java.sql.SQLException: connection refused")
                .hasCauseInstanceOf(java.sql.SQLException.class);
    }

    @Test
    void aLongStateIsCutToStayReadable() {
        assertThatThrownBy(() -> Await.until("never", Duration.ofMillis(20), () -> false, () -> "x".repeat(70_000)))
                .isInstanceOf(AssertionError.class)
                .satisfies(e -> assertThat(e.getMessage())
                        .hasSizeLessThan(Await.MAX_STATE_CHARS + 200)
                        .endsWith("... (70000 characters)"));
    }

    @Test
    void valueMatchingReportsTheLastValueRead() {
        AtomicInteger reads = new AtomicInteger();
        assertThat(Await.valueMatching("three pods", LONG, reads::incrementAndGet, n -> n >= 3))
                .isEqualTo(3);
        assertThatThrownBy(() ->
                        Await.valueMatching("no pods", Duration.ofMillis(50), () -> List.of("pod-a"), List::isEmpty))
                .isInstanceOf(AssertionError.class)
                .hasMessageEndingWith("waiting for no pods; last state: [pod-a]");
    }

    @Test
    void anInterruptStopsTheWaitAndKeepsTheInterruptFlag() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> Await.until("never", LONG, () -> false, () -> ""))
                    .isInstanceOf(AssertionError.class)
                    .hasMessage("interrupted while waiting for never");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
