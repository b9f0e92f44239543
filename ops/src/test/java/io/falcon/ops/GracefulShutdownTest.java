package io.falcon.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class GracefulShutdownTest {
    @Test
    void closesPartsInReverseOrderOnce() throws Exception {
        List<String> closed = new CopyOnWriteArrayList<>();
        GracefulShutdown shutdown = new GracefulShutdown("test", Duration.ofSeconds(5))
                .register("ops", () -> closed.add("ops"))
                .register("consumer", () -> closed.add("consumer"))
                .register("producer", () -> closed.add("producer"));
        shutdown.run();
        shutdown.run();
        assertThat(closed).containsExactly("producer", "consumer", "ops");
        assertThat(shutdown.await(Duration.ofMillis(10))).isTrue();
    }

    @Test
    void aPartThatFailsDoesNotStopTheOthers() {
        List<String> closed = new CopyOnWriteArrayList<>();
        new GracefulShutdown("test", Duration.ofSeconds(5))
                .register("first", () -> closed.add("first"))
                .register("broken", () -> {
                    throw new IllegalStateException("cannot close");
                })
                .run();
        assertThat(closed).containsExactly("first");
    }

    @Test
    void aPartThatOverrunsTheDeadlineIsAbandoned() {
        List<String> closed = new CopyOnWriteArrayList<>();
        CountDownLatch never = new CountDownLatch(1);
        long start = System.nanoTime();
        new GracefulShutdown("test", Duration.ofMillis(300))
                .register("ops", () -> closed.add("ops"))
                .register("stuck", never::await)
                .run();
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMillis).isLessThan(2_000);
        assertThat(closed).doesNotContain("ops"); // the deadline was spent on the stuck part
    }

    @Test
    void noRegistrationAfterTheShutdownStarted() {
        GracefulShutdown shutdown = new GracefulShutdown("test", Duration.ofSeconds(1));
        shutdown.run();
        assertThatThrownBy(() -> shutdown.register("late", () -> {}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already started");
        assertThatThrownBy(() -> new GracefulShutdown("test", Duration.ZERO)).hasMessageContaining("must be positive");
    }
}
