package io.falcon.console.view;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster's timeline as SVG geometry (the template draws it): one lane per node pool, from its creation to its
 * deletion (or now), with each job it held drawn over it by phase (pool being created, waiting for nodes, being
 * dispatched, running; what is left uncovered is idle), then the queue depth at each placement and each job's wait
 * until its pods ran. Coordinates are in SVG user units; times map linearly onto the window.
 */
public record Timeline(
        int width,
        int height,
        Instant from,
        Instant to,
        List<Lane> lanes,
        List<Bar> bars,
        List<Mark> marks,
        String depthPoints,
        String waitPoints,
        int maxDepth,
        long maxWaitSeconds,
        int chartTop) {

    public static final int WIDTH = 960;
    public static final int LANE_HEIGHT = 22;
    public static final int LEFT = 170;
    public static final int CHART_HEIGHT = 80;
    /** The longest span shown: older pools are cut at its start. */
    public static final Duration LONGEST = Duration.ofHours(24);

    private static final java.time.format.DateTimeFormatter CLOCK =
            java.time.format.DateTimeFormatter.ofPattern("MM-dd HH:mm:ss 'UTC'").withZone(java.time.ZoneOffset.UTC);

    /** The window's start as a person reads it ("12-02 10:00:00 UTC"). */
    public String fromLabel() {
        return CLOCK.format(from);
    }

    public String toLabel() {
        return CLOCK.format(to);
    }

    public Timeline {
        lanes = List.copyOf(lanes);
        bars = List.copyOf(bars);
        marks = List.copyOf(marks);
    }

    /** A pool's lane: its label at the left, its life as a bar. */
    public record Lane(int y, String label, String title) {}

    /** A rectangle: a phase of a job on a pool, or a pool's life ({@code kind}: pool, creating, nodes, dispatch, run). */
    public record Bar(int x, int y, int width, int height, String kind, String title) {
        /** Its colour (an SVG presentation attribute, so that the image needs no style sheet). */
        public String fill() {
            return switch (kind) {
                case "pool" -> "#d9dee7";
                case "creating" -> "#f2b84b";
                case "nodes" -> "#e8873a";
                case "dispatch" -> "#6ea8fe";
                case "run" -> "#3aa56b";
                default -> "#999999";
            };
        }
    }

    /** A point event: a pool's deletion. */
    public record Mark(int x, int y, String title) {}

    public static Timeline of(
            List<PoolSpan> pools, Map<String, JobHistory> histories, List<QueueSample> samples, Instant now) {
        Instant from = now;
        for (PoolSpan p : pools) {
            from = p.createdAt().isBefore(from) ? p.createdAt() : from;
        }
        for (QueueSample s : samples) {
            from = s.at().isBefore(from) ? s.at() : from;
        }
        if (from.isBefore(now.minus(LONGEST))) {
            from = now.minus(LONGEST);
        }
        if (!from.isBefore(now.minusSeconds(60))) {
            from = now.minusSeconds(60);
        }
        Scale scale = new Scale(from, now);
        List<Lane> lanes = new ArrayList<>();
        List<Bar> bars = new ArrayList<>();
        List<Mark> marks = new ArrayList<>();
        int y = 24;
        for (PoolSpan pool : pools) {
            Instant end = pool.deletedAt().orElse(now);
            if (end.isBefore(from)) {
                continue;
            }
            lanes.add(new Lane(
                    y + LANE_HEIGHT / 2 + 4,
                    shorten(pool.name(), 22),
                    pool.name() + " " + pool.topology() + " " + pool.supplyMode()));
            bars.add(new Bar(
                    scale.x(pool.createdAt()),
                    y,
                    scale.width(pool.createdAt(), end),
                    LANE_HEIGHT - 4,
                    "pool",
                    pool.name() + " (" + pool.supplyMode() + "), created " + pool.createdAt()
                            + pool.deletedAt().map(d -> ", deleted " + d).orElse(", idle where no job runs")));
            for (String jobId : pool.holders()) {
                JobHistory history = histories.get(jobId);
                if (history == null) {
                    continue;
                }
                List<Transition> ts = history.transitions();
                for (int i = 0; i < ts.size(); i++) {
                    Transition t = ts.get(i);
                    Optional<String> kind = phase(t);
                    if (kind.isEmpty()
                            || t.nodePoolName().filter(pool.name()::equals).isEmpty()
                                    && !kind.get().equals("run")) {
                        continue;
                    }
                    Instant start = t.at();
                    Instant stop = i + 1 < ts.size() ? ts.get(i + 1).at() : (t.terminal() ? t.at() : now);
                    if (stop.isBefore(from)) {
                        continue;
                    }
                    bars.add(new Bar(
                            scale.x(start),
                            y + 3,
                            scale.width(start, stop),
                            LANE_HEIGHT - 10,
                            kind.get(),
                            jobId + ": " + t.state() + " from " + start));
                }
            }
            int laneY = y;
            pool.deletedAt().ifPresent(d -> marks.add(new Mark(scale.x(d), laneY, pool.name() + " deleted " + d)));
            y += LANE_HEIGHT;
        }
        int chartTop = y + 16;
        int maxDepth = 1;
        long maxWait = 60;
        for (QueueSample s : samples) {
            maxDepth = Math.max(maxDepth, s.depth());
            maxWait = Math.max(maxWait, s.waited().toSeconds());
        }
        StringBuilder depth = new StringBuilder();
        StringBuilder waits = new StringBuilder();
        for (QueueSample s : samples) {
            if (s.at().isBefore(from)) {
                continue;
            }
            if (s.depth() >= 0) {
                int py = chartTop + CHART_HEIGHT - (int) Math.round((double) s.depth() / maxDepth * CHART_HEIGHT);
                depth.append(scale.x(s.at())).append(',').append(py).append(' ');
            } else {
                int py = chartTop
                        + CHART_HEIGHT
                        - (int) Math.round((double) s.waited().toSeconds() / maxWait * CHART_HEIGHT);
                waits.append(scale.x(s.at())).append(',').append(py).append(' ');
            }
        }
        return new Timeline(
                WIDTH,
                chartTop + CHART_HEIGHT + 24,
                from,
                now,
                lanes,
                bars,
                marks,
                depth.toString().strip(),
                waits.toString().strip(),
                maxDepth,
                maxWait,
                chartTop);
    }

    private static Optional<String> phase(Transition t) {
        if (t.status().equals("Running")) {
            return Optional.of("run");
        }
        if (!t.status().equals("Pending")) {
            return Optional.empty();
        }
        return t.reason().flatMap(r -> switch (r) {
            case "Provisioning" -> Optional.of("creating");
            case "WaitingForNode" -> Optional.of("nodes");
            case "Dispatching" -> Optional.of("dispatch");
            default -> Optional.empty();
        });
    }

    private static String shorten(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    private record Scale(Instant from, Instant to) {
        int x(Instant at) {
            long span = Math.max(1, Duration.between(from, to).toMillis());
            long offset = Math.max(0, Math.min(span, Duration.between(from, at).toMillis()));
            return LEFT + (int) (offset * (WIDTH - LEFT - 10) / span);
        }

        int width(Instant start, Instant stop) {
            return Math.max(2, x(stop) - x(start));
        }
    }
}
