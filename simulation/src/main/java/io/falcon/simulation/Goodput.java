package io.falcon.simulation;

import io.falcon.events.ClusterStatus;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.SupplyMode;
import io.falcon.scheduler.core.SchedulerSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * How much reserved TPU time Falcon turns into work at GKE's timings ({@code bench/goodput}): named traces of jobs
 * onto one reservation, each run through the real scheduler core and executor logic on simulated time ({@link
 * Simulation}, no faults) once per configuration, and measured from the fleet's side ({@link Usage}) against the
 * same work placed with zero provisioning overhead ({@link #ideal}).
 */
public final class Goodput {
    private Goodput() {}

    static final String CLUSTER = "c0";
    static final String RESERVATION = "res-c0";
    static final int CHIPS_PER_HOST = 4; // v6e: ct6e-standard-4t

    /** A named workload onto one v6e cluster's reservation. */
    record Trace(String name, String what, int reservationHosts, List<Scenario.JobPlan> jobs, boolean burst) {
        int reservedChips() {
            return reservationHosts * CHIPS_PER_HOST;
        }
    }

    /** A way to run Falcon: its settings from the defaults. */
    record Config(String name, UnaryOperator<SchedulerSettings> tune) {}

    /** What one trace measured under one configuration (or the zero-overhead placement). */
    record Figures(
            double utilization,
            Duration waitP50,
            Duration waitP99,
            Optional<Duration> timeToFill,
            double idleChipHoursWithWork,
            double heldIdleChipHours,
            int ran,
            int jobs,
            List<String> violations) {}

    /** The trace's results: the zero-overhead bound, then each configuration in order. */
    record Row(Trace trace, Figures bound, Duration fillBound, Map<String, Figures> byConfig) {}

    /** The two configurations the issue compares: the seed read literally, and Falcon's defaults. */
    static List<Config> configs() {
        return List.of(
                new Config(
                        "seed-literal",
                        s -> s.withIdleLinger(Map.of())
                                .withHistoryLingerMax(Duration.ZERO)
                                .withAcquirersPerQueue(1)),
                new Config(
                        "defaults",
                        s -> s.withAcquirersPerQueue(
                                SchedulerSettings.defaults().acquirersPerQueue())));
    }

    // ---- the traces ----

    private static final Duration ARRIVALS = Duration.ofHours(8);

    static List<Trace> traces(long seed) {
        return List.of(
                steady(new Random(seed)),
                burst(new Random(seed + 1)),
                mixed(new Random(seed + 2)),
                heavyTailed(new Random(seed + 3)),
                manyActors(new Random(seed + 4)));
    }

    /** 2x4 jobs arriving as a Poisson stream at 80 % of a 16-slice reservation, 30 to 90 min each. */
    static Trace steady(Random r) {
        int hosts = 32;
        List<Scenario.JobPlan> jobs = poisson(
                r,
                hosts,
                0.8,
                "2x4",
                List.of("alice", "bob", "carol", "dave"),
                () -> Duration.ofMinutes(30 + r.nextInt(61)));
        return new Trace("steady", "2x4, Poisson at 80 % load, 30-90 min", hosts, jobs, false);
    }

    /** 16 4x4 jobs at once onto an empty 16-slice reservation, 2 h each. */
    static Trace burst(Random r) {
        int slices = 16;
        List<Scenario.JobPlan> jobs = new ArrayList<>();
        for (int i = 0; i < slices; i++) {
            jobs.add(plan(
                    i,
                    "alice",
                    "4x4",
                    Scenario.T0.plusSeconds(r.nextInt(30)),
                    Duration.ofMinutes(110 + r.nextInt(21))));
        }
        return new Trace("burst", "16 x 4x4 at once onto an empty 16-slice reservation, 2 h", slices * 4, jobs, true);
    }

    /** 2x2, 2x4 and 4x4 jobs sharing one reservation at 85 % load. */
    static Trace mixed(Random r) {
        int hosts = 32;
        List<String> shapes = List.of("2x2", "2x4", "4x4");
        List<Scenario.JobPlan> jobs = new ArrayList<>();
        double meanHosts = (1 + 2 + 4) / 3.0;
        double perMinute = 0.85 * hosts / (meanHosts * 60.0);
        Instant at = Scenario.T0;
        int i = 0;
        while (true) {
            at = at.plusMillis(exponential(r, perMinute));
            if (!at.isBefore(Scenario.T0.plus(ARRIVALS))) {
                break;
            }
            jobs.add(plan(
                    i++,
                    List.of("alice", "bob", "carol").get(r.nextInt(3)),
                    shapes.get(r.nextInt(shapes.size())),
                    at,
                    Duration.ofMinutes(30 + r.nextInt(61))));
        }
        return new Trace("mixed", "2x2/2x4/4x4 sharing one reservation, 85 % load, 30-90 min", hosts, jobs, false);
    }

    /** 2x4 jobs at 80 % load whose durations are Pareto (alpha 1.5): most a few minutes, a few many hours. */
    static Trace heavyTailed(Random r) {
        int hosts = 32;
        double alpha = 1.5;
        double min = 10; // minutes: the mean of Pareto(1.5, 10) is 30
        List<Scenario.JobPlan> jobs = poisson(r, hosts, 0.8, "2x4", List.of("alice", "bob"), () -> {
            double minutes = min / Math.pow(1 - r.nextDouble(), 1 / alpha);
            return Duration.ofSeconds((long) (Math.min(minutes, 12 * 60) * 60));
        });
        return new Trace("heavy-tailed", "2x4, 80 % load, Pareto(1.5) durations from 10 min", hosts, jobs, false);
    }

    /** 40 actors, each submitting a batch of 1 to 5 2x4 jobs at a random time within 4 h, 20-60 min each. */
    static Trace manyActors(Random r) {
        int hosts = 32;
        List<Scenario.JobPlan> jobs = new ArrayList<>();
        int i = 0;
        for (int a = 0; a < 40; a++) {
            Instant at = Scenario.T0.plusSeconds(r.nextInt(4 * 3600));
            int batch = 1 + r.nextInt(5);
            for (int b = 0; b < batch; b++) {
                jobs.add(plan(i++, "actor-" + a, "2x4", at.plusSeconds(b), Duration.ofMinutes(20 + r.nextInt(41))));
            }
        }
        jobs.sort(Comparator.comparing(Scenario.JobPlan::submitAt));
        return new Trace("many-actors", "40 actors, batches of 1-5 2x4 jobs within 4 h, 20-60 min", hosts, jobs, false);
    }

    private static List<Scenario.JobPlan> poisson(
            Random r,
            int hosts,
            double load,
            String shape,
            List<String> actors,
            java.util.function.Supplier<Duration> d) {
        int sliceHosts = hostsOf(shape);
        // durations drawn up front, so that the arrival rate that gives the load is known before the arrivals
        List<Scenario.JobPlan> jobs = new ArrayList<>();
        List<Duration> durations = new ArrayList<>();
        for (int k = 0; k < 2000; k++) {
            durations.add(d.get());
        }
        double meanMinutes =
                durations.stream().mapToLong(Duration::toSeconds).average().orElse(3600) / 60.0;
        double perMinute = load * hosts / (sliceHosts * meanMinutes);
        Instant at = Scenario.T0;
        int i = 0;
        while (true) {
            at = at.plusMillis(exponential(r, perMinute));
            if (!at.isBefore(Scenario.T0.plus(ARRIVALS))) {
                return jobs;
            }
            jobs.add(plan(i, actors.get(r.nextInt(actors.size())), shape, at, durations.get(i % durations.size())));
            i++;
        }
    }

    private static long exponential(Random r, double perMinute) {
        return (long) (-Math.log(1 - r.nextDouble()) / perMinute * 60_000);
    }

    private static Scenario.JobPlan plan(int i, String actor, String topology, Instant submit, Duration runFor) {
        return new Scenario.JobPlan(
                String.format("g-%04d", i),
                actor,
                "v6e",
                topology,
                Optional.of(SupplyMode.RESERVATION),
                // far beyond the run: a job ends by its own end, never by its timeout
                Optional.of(runFor.toSeconds() + 24 * 3600),
                submit,
                Optional.empty(),
                runFor,
                Scenario.Outcome.SUCCEED,
                Optional.empty());
    }

    static int hostsOf(String topology) {
        return switch (topology) {
            case "2x2" -> 1;
            case "2x4" -> 2;
            case "4x4" -> 4;
            default -> throw new IllegalArgumentException("no v6e slice " + topology);
        };
    }

    static Scenario scenario(Trace trace) {
        ClusterRow row = new ClusterRow(
                CLUSTER,
                "edge-" + CLUSTER,
                "proj-" + CLUSTER,
                "us-central1",
                "v6e",
                "bucket-" + CLUSTER,
                Optional.of(RESERVATION),
                ClusterStatus.ACTIVE,
                Optional.of(Scenario.T0));
        return new Scenario(
                0,
                List.of(row),
                List.of(trace.reservationHosts()),
                trace.jobs(),
                List.of(),
                Faults.NONE,
                // quiet is judged from the heal on: after the last submission (there are no faults to heal)
                trace.jobs().stream()
                        .map(Scenario.JobPlan::submitAt)
                        .max(Comparator.naturalOrder())
                        .orElse(Scenario.T0)
                        .plusSeconds(1),
                Map.of(),
                Duration.ofMinutes(10),
                Reality.NONE,
                1,
                0);
    }

    // ---- running and measuring ----

    static Row measure(Trace trace, Timings.Gke timings, List<Config> configs) {
        List<Usage.Run> ideal = ideal(trace);
        Instant end = ideal.stream()
                .map(run -> run.until().orElseThrow())
                .max(Comparator.naturalOrder())
                .orElse(Scenario.T0);
        Figures bound = figures(trace, ideal, List.of(), end, List.of());
        Map<String, Figures> results = new java.util.LinkedHashMap<>();
        for (Config config : configs) {
            Simulation simulation = new Simulation(scenario(trace), timings, config.tune());
            Simulation.Result result = simulation.run();
            Usage usage = simulation.fleet().usage();
            results.put(config.name(), figures(trace, usage.runs(), usage.holds(), end, result.violations()));
        }
        return new Row(trace, bound, fillBound(trace, timings), results);
    }

    /**
     * The same work placed with zero provisioning overhead: each job runs the moment the reservation has room for it,
     * in submission order, a smaller job passing a larger one that does not fit yet (the bound Falcon is measured
     * against).
     */
    static List<Usage.Run> ideal(Trace trace) {
        List<Scenario.JobPlan> waiting = new ArrayList<>();
        TreeMap<Instant, List<Scenario.JobPlan>> ends = new TreeMap<>();
        List<Usage.Run> runs = new ArrayList<>();
        List<Scenario.JobPlan> arrivals = new ArrayList<>(trace.jobs());
        arrivals.sort(Comparator.comparing(Scenario.JobPlan::submitAt));
        int free = trace.reservationHosts();
        int next = 0;
        while (next < arrivals.size() || !waiting.isEmpty()) {
            Instant arrival = next < arrivals.size() ? arrivals.get(next).submitAt() : Instant.MAX;
            Instant ending = ends.isEmpty() ? Instant.MAX : ends.firstKey();
            Instant now;
            if (!ending.isAfter(arrival)) {
                now = ending;
                for (Scenario.JobPlan done : ends.remove(ending)) {
                    free += hostsOf(done.topology());
                }
            } else {
                now = arrival;
                waiting.add(arrivals.get(next++));
            }
            for (var it = waiting.iterator(); it.hasNext(); ) {
                Scenario.JobPlan job = it.next();
                int hosts = hostsOf(job.topology());
                if (hosts <= free) {
                    free -= hosts;
                    it.remove();
                    Instant until = now.plus(job.runFor());
                    ends.computeIfAbsent(until, k -> new ArrayList<>()).add(job);
                    runs.add(new Usage.Run(job.id(), RESERVATION, hosts * CHIPS_PER_HOST, now, Optional.of(until)));
                }
            }
            if (ending == Instant.MAX && arrival == Instant.MAX) {
                break; // nothing can ever fit (a job larger than the reservation)
            }
        }
        return runs;
    }

    /**
     * The fastest GKE lets an empty reservation fill with the burst: as many creations at once as it runs node-pool
     * operations at once, each taking its typical time.
     */
    static Duration fillBound(Trace trace, Timings.Gke timings) {
        int slices = trace.jobs().size();
        int hosts =
                trace.jobs().stream().mapToInt(j -> hostsOf(j.topology())).max().orElse(1);
        int atOnce = timings.poolOperationsAtOnce() <= 0 ? slices : timings.poolOperationsAtOnce();
        int rounds = (slices + atOnce - 1) / atOnce;
        Duration acquisition = timings.typicalAcquisition(hosts);
        Duration create = timings.typicalCreate(hosts);
        return create.multipliedBy(rounds - 1).plus(acquisition);
    }

    static Figures figures(
            Trace trace, List<Usage.Run> runs, List<Usage.Hold> holds, Instant end, List<String> violations) {
        Map<String, Instant> firstRun = new HashMap<>();
        for (Usage.Run run : runs) {
            firstRun.merge(run.falconJobId(), run.from(), (a, b) -> a.isBefore(b) ? a : b);
        }
        List<Duration> waits = new ArrayList<>();
        for (Scenario.JobPlan job : trace.jobs()) {
            Instant started = firstRun.get(job.id());
            if (started != null) {
                waits.add(Duration.between(job.submitAt(), started));
            }
        }
        waits.sort(Comparator.naturalOrder());
        double windowHours = hours(Duration.between(Scenario.T0, end));
        double used = 0;
        for (Usage.Run run : runs) {
            used += run.chips() * hours(overlap(run.from(), run.until().orElse(end), end));
        }
        double utilization = windowHours == 0 ? 0 : used / (trace.reservedChips() * windowHours);
        return new Figures(
                utilization,
                percentile(waits, 0.5),
                percentile(waits, 0.99),
                trace.burst() ? timeToFill(trace, runs) : Optional.empty(),
                idleWithWork(trace, runs, end),
                heldIdle(runs, holds, end),
                waits.size(),
                trace.jobs().size(),
                violations);
    }

    /** From the first submission until every job of the burst ran at the same time. */
    static Optional<Duration> timeToFill(Trace trace, List<Usage.Run> runs) {
        TreeMap<Instant, Integer> change = new TreeMap<>();
        for (Usage.Run run : runs) {
            change.merge(run.from(), 1, Integer::sum);
            run.until().ifPresent(u -> change.merge(u, -1, Integer::sum));
        }
        int running = 0;
        for (Map.Entry<Instant, Integer> e : change.entrySet()) {
            running += e.getValue();
            if (running >= trace.jobs().size()) {
                Instant first = trace.jobs().stream()
                        .map(Scenario.JobPlan::submitAt)
                        .min(Comparator.naturalOrder())
                        .orElse(Scenario.T0);
                return Optional.of(Duration.between(first, e.getKey()));
            }
        }
        return Optional.empty();
    }

    /**
     * Chip-hours of the reservation that ran nothing while a job waited that they could have run: the integral of
     * min(reserved - running, waiting demand). Zero for the bound by construction; for Falcon, the cost of pool
     * creation, of nodes coming up, and of each end of a job to the next job running on that capacity.
     */
    static double idleWithWork(Trace trace, List<Usage.Run> runs, Instant end) {
        TreeMap<Instant, int[]> change = new TreeMap<>(); // [running chips delta, waiting chips delta]
        Map<String, Instant> firstRun = new HashMap<>();
        for (Usage.Run run : runs) {
            firstRun.merge(run.falconJobId(), run.from(), (a, b) -> a.isBefore(b) ? a : b);
            change.computeIfAbsent(run.from(), k -> new int[2])[0] += run.chips();
            run.until().ifPresent(u -> change.computeIfAbsent(u, k -> new int[2])[0] -= run.chips());
        }
        for (Scenario.JobPlan job : trace.jobs()) {
            int chips = hostsOf(job.topology()) * CHIPS_PER_HOST;
            change.computeIfAbsent(job.submitAt(), k -> new int[2])[1] += chips;
            Instant started = firstRun.get(job.id());
            if (started != null) {
                change.computeIfAbsent(started, k -> new int[2])[1] -= chips;
            }
        }
        double chipHours = 0;
        int running = 0;
        int waiting = 0;
        Instant last = Scenario.T0;
        for (Map.Entry<Instant, int[]> e : change.entrySet()) {
            Instant at = e.getKey().isAfter(end) ? end : e.getKey();
            chipHours += Math.min(Math.max(0, trace.reservedChips() - running), waiting)
                    * hours(Duration.between(last, at).isNegative() ? Duration.ZERO : Duration.between(last, at));
            last = at;
            running += e.getValue()[0];
            waiting += e.getValue()[1];
        }
        return chipHours;
    }

    /** Chip-hours that Falcon's pools held on the reservation without a job running on them (within the window). */
    static double heldIdle(List<Usage.Run> runs, List<Usage.Hold> holds, Instant end) {
        double held = 0;
        for (Usage.Hold hold : holds) {
            held += hold.chips() * hours(overlap(hold.from(), hold.until().orElse(end), end));
        }
        double ran = 0;
        for (Usage.Run run : runs) {
            ran += run.chips() * hours(overlap(run.from(), run.until().orElse(end), end));
        }
        return holds.isEmpty() ? 0 : Math.max(0, held - ran);
    }

    private static Duration overlap(Instant from, Instant until, Instant end) {
        Instant a = from.isBefore(Scenario.T0) ? Scenario.T0 : from;
        Instant b = until.isAfter(end) ? end : until;
        return b.isAfter(a) ? Duration.between(a, b) : Duration.ZERO;
    }

    private static double hours(Duration d) {
        return d.toMillis() / 3_600_000.0;
    }

    static Duration percentile(List<Duration> sorted, double q) {
        if (sorted.isEmpty()) {
            return Duration.ZERO;
        }
        int index = (int) Math.ceil(q * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
