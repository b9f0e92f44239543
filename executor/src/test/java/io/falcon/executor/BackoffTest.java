package io.falcon.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));

    @Test
    void ceilingDoublesUpToTheMaximum() {
        assertThat(backoff.ceiling(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.ceiling(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.ceiling(6)).isEqualTo(Duration.ofMillis(3200));
        assertThat(backoff.ceiling(7)).isEqualTo(Duration.ofSeconds(5));
        assertThat(backoff.ceiling(1000)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void jitterSpreadsBetweenHalfAndTheCeiling() {
        assertThat(backoff.delay(3, () -> 0.0)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.delay(3, () -> 0.5)).isEqualTo(Duration.ofMillis(300));
        assertThat(backoff.delay(3, () -> 0.999999)).isEqualTo(Duration.ofMillis(400));
    }

    @Property
    void delayIsAlwaysWithinBounds(
            @ForAll @IntRange(min = 1, max = 200) int attempt,
            @ForAll @DoubleRange(min = 0, max = 1, maxIncluded = false) double r) {
        Duration d = backoff.delay(attempt, () -> r);
        assertThat(d).isBetween(backoff.ceiling(attempt).dividedBy(2), backoff.ceiling(attempt));
        assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void refusesNonsense() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
