package io.falcon.console.view;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueueChartTest {
    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

    @Test
    void drawsOnlyTheQueuesTopologyDepthAndWaitScaledToTheirMaxima() {
        List<QueueSample> samples = List.of(
                new QueueSample(T0.minus(Duration.ofHours(30)), "2x4", 9, Duration.ZERO), // older than the window
                new QueueSample(T0, "2x4", 4, Duration.ZERO),
                new QueueSample(T0.plusSeconds(60), "4x4", 50, Duration.ZERO), // another queue of the cluster
                new QueueSample(T0.plusSeconds(100), "2x4", 2, Duration.ZERO),
                new QueueSample(T0.plusSeconds(200), "2x4", -1, Duration.ofSeconds(120)));
        QueueChart chart = QueueChart.of(samples, "2x4", T0.plusSeconds(400));
        assertThat(chart.maxDepth()).isEqualTo(4);
        assertThat(chart.maxWaitSeconds()).isEqualTo(120);
        assertThat(chart.depthSamples()).isEqualTo(2);
        assertThat(chart.waitSamples()).isEqualTo(1);
        int top = chart.baseY() - QueueChart.PLOT_HEIGHT;
        // the deepest point at the top of the plot, at the window's start; half as deep, half as high, a quarter on
        assertThat(chart.depthPoints())
                .isEqualTo(QueueChart.LEFT + "," + top + " "
                        + (QueueChart.LEFT + (QueueChart.WIDTH - 2 * QueueChart.LEFT) / 4) + ","
                        + (chart.baseY() - QueueChart.PLOT_HEIGHT / 2));
        assertThat(chart.waitPoints())
                .isEqualTo((QueueChart.LEFT + (QueueChart.WIDTH - 2 * QueueChart.LEFT) / 2) + "," + top);
        assertThat(chart.fromLabel()).isEqualTo("12-02 10:00:00 UTC");
    }

    @Test
    void aQueueWithoutSamplesHasNoLines() {
        QueueChart chart = QueueChart.of(List.of(), "2x4", T0);
        assertThat(chart.depthPoints()).isEmpty();
        assertThat(chart.waitPoints()).isEmpty();
        assertThat(chart.fromLabel()).isEqualTo("12-02 09:59:00 UTC");
    }
}
