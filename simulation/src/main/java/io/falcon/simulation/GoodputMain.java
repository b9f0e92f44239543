package io.falcon.simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code bench/goodput [--seed S] [--operations-at-once K]}: the goodput traces at GKE's published timings, one table
 * per trace with the zero-overhead bound and each configuration side by side, then each goal of the design against
 * its figure. The same seed prints the same tables. {@code --operations-at-once K} runs GKE as if it ran at most K
 * node-pool operations at once on a cluster (GKE itself sets no such number: docs/performance.md).
 */
public final class GoodputMain {
    private GoodputMain() {}

    public static void main(String[] args) {
        long seed = 1;
        Timings.Gke timings = Timings.Gke.PUBLISHED;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--operations-at-once" -> timings = timings.withOperationsAtOnce(Integer.parseInt(args[++i]));
                default -> {
                    System.err.println("usage: bench/goodput [--seed S] [--operations-at-once K]");
                    System.exit(2);
                }
            }
        }
        System.out.println("Goodput at GKE timings, seed " + seed + ": " + timings);
        List<Goodput.Config> configs = Goodput.configs();
        List<Goodput.Row> rows = new ArrayList<>();
        boolean clean = true;
        for (Goodput.Trace trace : Goodput.traces(seed)) {
            Goodput.Row row = Goodput.measure(trace, timings, configs);
            rows.add(row);
            System.out.println();
            System.out.print(table(row));
            clean &= row.byConfig().values().stream()
                    .allMatch(f -> f.violations().isEmpty());
        }
        System.out.println();
        goals(rows).forEach(System.out::println);
        System.exit(clean ? 0 : 1);
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
