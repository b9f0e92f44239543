package io.falcon.console.view;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One (cluster, topology) queue's depth and wait over time as SVG geometry (the template draws it): the queue depth at
 * each placement there (the ledger's candidate queue depth) and each job's wait from Waiting to Running, on one time
 * axis from the oldest sample the console holds (at most {@link Timeline#LONGEST} ago) to now, each line scaled to
 * its own maximum.
 */
public record QueueChart(
        int width,
        int height,
        String fromLabel,
        String toLabel,
        String depthPoints,
        String waitPoints,
        int maxDepth,
        long maxWaitSeconds,
        int depthSamples,
        int waitSamples) {

    public static final int WIDTH = 640;
    public static final int HEIGHT = 120;
    static final int LEFT = 8;
    static final int TOP = 22;
    static final int PLOT_HEIGHT = HEIGHT - TOP - 22;

    private static final java.time.format.DateTimeFormatter CLOCK =
            java.time.format.DateTimeFormatter.ofPattern("MM-dd HH:mm:ss 'UTC'").withZone(java.time.ZoneOffset.UTC);

    /** The y of the plot's base line. */
    public int baseY() {
        return TOP + PLOT_HEIGHT;
    }

    public static QueueChart of(List<QueueSample> clusterSamples, String topology, Instant now) {
        List<QueueSample> samples = clusterSamples.stream()
                .filter(s -> s.topology().equals(topology))
                .filter(s -> !s.at().isBefore(now.minus(Timeline.LONGEST)))
                .toList();
        Instant from =
                samples.stream().map(QueueSample::at).min(Instant::compareTo).orElse(now);
        if (!from.isBefore(now.minusSeconds(60))) {
            from = now.minusSeconds(60);
        }
        int maxDepth = 1;
        long maxWait = 60;
        for (QueueSample s : samples) {
            maxDepth = Math.max(maxDepth, s.depth());
            maxWait = Math.max(maxWait, s.waited().toSeconds());
        }
        long span = Math.max(1, Duration.between(from, now).toMillis());
        StringBuilder depth = new StringBuilder();
        StringBuilder waits = new StringBuilder();
        int depthSamples = 0;
        int waitSamples = 0;
        for (QueueSample s : samples) {
            long offset =
                    Math.max(0, Math.min(span, Duration.between(from, s.at()).toMillis()));
            int x = LEFT + (int) (offset * (WIDTH - 2 * LEFT) / span);
            if (s.depth() >= 0) {
                int y = TOP + PLOT_HEIGHT - (int) Math.round((double) s.depth() / maxDepth * PLOT_HEIGHT);
                depth.append(x).append(',').append(y).append(' ');
                depthSamples++;
            } else {
                int y = TOP + PLOT_HEIGHT - (int) Math.round((double) s.waited().toSeconds() / maxWait * PLOT_HEIGHT);
                waits.append(x).append(',').append(y).append(' ');
                waitSamples++;
            }
        }
        return new QueueChart(
                WIDTH,
                HEIGHT,
                CLOCK.format(from),
                CLOCK.format(now),
                depth.toString().strip(),
                waits.toString().strip(),
                maxDepth,
                maxWait,
                depthSamples,
                waitSamples);
    }
}
