package io.falcon.simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code bench/goodput [--seed S] [--operations-at-once K] [--throughput-only] [--throughput-jobs N]}: the goodput
 * traces at GKE's published timings, one table
 * per trace with the zero-overhead bound and each configuration side by side, then each goal of the design against
 * its figure. The same seed prints the same tables. {@code --operations-at-once K} runs GKE as if it ran at most K
 * node-pool operations at once on a cluster (GKE itself sets no such number: docs/performance.md). Then the
 * throughput model ({@link Pipeline}): jobs per second from INSERT to Running at real API latencies.
 */
public final class GoodputMain {
    private GoodputMain() {}

    public static void main(String[] args) {
        long seed = 1;
        Timings.Gke timings = Timings.Gke.PUBLISHED;
        boolean traces = true;
        int throughputJobs = 2000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--operations-at-once" -> timings = timings.withOperationsAtOnce(Integer.parseInt(args[++i]));
                case "--throughput-only" -> traces = false;
                case "--throughput-jobs" -> throughputJobs = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: bench/goodput [--seed S] [--operations-at-once K] [--throughput-only]"
                            + " [--throughput-jobs N]");
                    System.exit(2);
                }
            }
        }
        List<Goodput.Row> rows = new ArrayList<>();
        boolean clean = true;
        List<Goodput.Trace> named = traces ? Goodput.traces(seed) : List.of();
        if (traces) {
            System.out.println("Goodput at GKE timings, seed " + seed + ": " + timings);
        }
        List<Goodput.Config> configs = Goodput.configs();
        for (Goodput.Trace trace : named) {
            Goodput.Row row = Goodput.measure(trace, timings, configs);
            rows.add(row);
            System.out.println();
            System.out.print(table(row));
            clean &= row.byConfig().values().stream()
                    .allMatch(f -> f.violations().isEmpty());
        }
        System.out.println();
        List<Pipeline.Result> throughput = throughput(throughputJobs);
        System.out.print(throughputTable(throughput));
        System.out.println();
        goals(rows).forEach(System.out::println);
        System.out.println(throughputGoal(throughput.get(throughput.size() - 1)));
        System.exit(clean ? 0 : 1);
    }

    static final int THROUGHPUT_CLUSTERS = 8;

    /**
     * The model's two checks against what was measured in wall-clock (stage t's 200 jobs on this box, the executor
     * alone with 2000), the executor one command after another, then production: the last is the goal's figure.
     */
    static List<Pipeline.Result> throughput(int jobs) {
        return List.of(
                Pipeline.run(Pipeline.thisBox(), 200, THROUGHPUT_CLUSTERS),
                Pipeline.run(Pipeline.executorAlone(), 2000, THROUGHPUT_CLUSTERS),
                Pipeline.run(
                        Pipeline.production()
                                .named("production, one command after another")
                                .withExecutor(1, 1),
                        Math.min(jobs, 200),
                        THROUGHPUT_CLUSTERS),
                Pipeline.run(Pipeline.production().withExecutorCores(1), jobs, THROUGHPUT_CLUSTERS),
                Pipeline.run(Pipeline.production().withExecutorCores(2), jobs, THROUGHPUT_CLUSTERS),
                Pipeline.run(
                        Pipeline.production().withExecutorCores(2).withAcquirersPerQueue(32),
                        jobs,
                        THROUGHPUT_CLUSTERS),
                Pipeline.run(Pipeline.production(), jobs, THROUGHPUT_CLUSTERS));
    }

    static String throughputTable(List<Pipeline.Result> results) {
        StringBuilder b = new StringBuilder();
        b.append("Throughput at real API latencies (GKE 300 ms, Kubernetes 50 ms), ")
                .append(THROUGHPUT_CLUSTERS)
                .append(" clusters x 3 topologies, one multi-row INSERT, simulated:\n");
        b.append(String.format(
                Locale.ROOT,
                "  %-62s %6s %14s %14s %12s %12s  %s%n",
                "setup",
                "jobs",
                "to Job POST/s",
                "to Running/s",
                "Running p50",
                "row Running/s",
                "busiest cores"));
        for (Pipeline.Result r : results) {
            var busiest = r.busiest();
            b.append(String.format(
                    Locale.ROOT,
                    "  %-62s %6d %14.1f %14.1f %12s %12.1f  %s %s%n",
                    r.setup().name(),
                    r.jobs(),
                    r.postsPerSecond(),
                    r.jobsPerSecond(),
                    duration(r.p50()),
                    r.rowsPerSecond(),
                    busiest.getKey(),
                    percent(busiest.getValue())));
        }
        return b.toString();
    }

    static String throughputGoal(Pipeline.Result production) {
        return goal(
                "throughput: >= 50 jobs/s INSERT -> Running, 8 clusters",
                String.format(Locale.ROOT, "%.1f jobs/s", production.jobsPerSecond()),
                production.jobsPerSecond() >= 50);
    }

    static String table(Goodput.Row row) {
        Goodput.Trace trace = row.trace();
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "%s: %s (%d jobs; reservation %d VMs, %d chips)%n",
                trace.name(),
                trace.what(),
                trace.jobs().size(),
                trace.reservationHosts(),
                trace.reservedChips()));
        List<String> names = new ArrayList<>(List.of("zero overhead"));
        List<Goodput.Figures> figures = new ArrayList<>(List.of(row.bound()));
        row.byConfig().forEach((name, f) -> {
            names.add(name);
            figures.add(f);
        });
        line(b, "", names);
        line(
                b,
                "utilization",
                figures.stream().map(f -> percent(f.utilization())).toList());
        line(
                b,
                "  of the bound",
                figures.stream()
                        .map(f -> percent(
                                f.utilization() / Math.max(1e-9, row.bound().utilization())))
                        .toList());
        line(b, "wait p50", figures.stream().map(f -> duration(f.waitP50())).toList());
        line(b, "wait p99", figures.stream().map(f -> duration(f.waitP99())).toList());
        if (trace.burst()) {
            List<String> fill = new ArrayList<>();
            fill.add(duration(row.fillBound()) + " (GKE)");
            figures.stream()
                    .skip(1)
                    .forEach(f ->
                            fill.add(f.timeToFill().map(GoodputMain::duration).orElse("never")));
            line(b, "time to fill", fill);
        }
        line(
                b,
                "idle chip-h, work waiting",
                figures.stream().map(f -> number(f.idleChipHoursWithWork())).toList());
        line(
                b,
                "held idle chip-h",
                figures.stream().map(f -> number(f.heldIdleChipHours())).toList());
        line(b, "jobs run", figures.stream().map(f -> f.ran() + "/" + f.jobs()).toList());
        line(
                b,
                "invariant violations",
                figures.stream().map(f -> String.valueOf(f.violations().size())).toList());
        for (Goodput.Figures f : figures) {
            f.violations().stream()
                    .limit(5)
                    .forEach(v -> b.append("    ! ").append(v).append('\n'));
        }
        return b.toString();
    }

    /** Each goal of the design, with the figure that meets it or not. */
    static List<String> goals(List<Goodput.Row> rows) {
        List<String> out = new ArrayList<>();
        Optional<Goodput.Row> steady = find(rows, "steady");
        Optional<Goodput.Row> burst = find(rows, "burst");
        steady.ifPresent(r -> {
            double ratio = r.byConfig().get("defaults").utilization()
                    / Math.max(1e-9, r.bound().utilization());
            out.add(goal("steady: utilization >= 90 % of the bound", percent(ratio), ratio >= 0.9));
        });
        burst.ifPresent(r -> {
            Optional<Duration> fill = r.byConfig().get("defaults").timeToFill();
            Duration limit = r.fillBound().multipliedBy(3).dividedBy(2);
            out.add(goal(
                    "burst: time to fill <= 1.5 x GKE's bound (" + duration(limit) + ")",
                    fill.map(GoodputMain::duration).orElse("never"),
                    fill.filter(f -> f.compareTo(limit) <= 0).isPresent()));
            Duration literal = r.byConfig().get("seed-literal").waitP50();
            Duration falcon = r.byConfig().get("defaults").waitP50();
            out.add(goal(
                    "burst: wait p50 <= 0.5 x seed-literal (" + duration(literal.dividedBy(2)) + ")",
                    duration(falcon),
                    falcon.compareTo(literal.dividedBy(2)) <= 0));
        });
        return out;
    }

    private static Optional<Goodput.Row> find(List<Goodput.Row> rows, String name) {
        return rows.stream().filter(r -> r.trace().name().equals(name)).findFirst();
    }

    private static String goal(String what, String figure, boolean met) {
        return String.format(Locale.ROOT, "goal %-58s %12s  %s", what, figure, met ? "met" : "NOT MET");
    }

    private static void line(StringBuilder b, String label, List<String> cells) {
        b.append(String.format(Locale.ROOT, "  %-26s", label));
        for (String cell : cells) {
            b.append(String.format(Locale.ROOT, "%16s", cell));
        }
        b.append('\n');
    }

    static String percent(double v) {
        return String.format(Locale.ROOT, "%.1f %%", 100 * v);
    }

    static String number(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String duration(Duration d) {
        long s = d.toSeconds();
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
    }
}
