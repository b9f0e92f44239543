package io.falcon.simulation;

import io.falcon.events.ClusterStatus;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.SupplyMode;
import io.falcon.scheduler.core.SchedulerSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * What happens in one run, drawn from its seed: the clusters, the jobs (when they are submitted, how their pods
 * behave, whether and when they are aborted), the disruptions (restarts, cluster rows changed or deleted) and the
 * fault rates until the heal time.
 */
record Scenario(
        long seed,
        List<ClusterRow> clusters,
        List<Integer> reservationHosts,
        List<JobPlan> jobs,
        List<Disruption> disruptions,
        Faults faults,
        Instant healAt,
        Map<SupplyMode, Duration> idleLinger,
        Duration priorityAging,
        Reality reality,
        int acquirersPerQueue,
        int maxRetries) {

    static final Instant T0 = Instant.parse("2026-12-02T00:00:00Z");

    /** How a job's pods behave once the Job is created. */
    enum Outcome {
        SUCCEED,
        FAIL,
        IMAGE_PULL,
        NEVER_SCHEDULED
    }

    record JobPlan(
            String id,
            String actor,
            String tpuType,
            String topology,
            Optional<SupplyMode> supplyMode,
            Optional<Long> timeoutSeconds,
            Instant submitAt,
            Optional<Instant> abortAt,
            Duration runFor,
            Outcome outcome,
            Optional<Long> priority) {}

    sealed interface Disruption {
        Instant at();
    }

    record RestartExecutor(Instant at, Duration down) implements Disruption {}

    record RestartScheduler(Instant at, Duration down) implements Disruption {}

    record ClusterStatusChange(Instant at, String clusterId, ClusterStatus status) implements Disruption {}

    record ClusterDeleted(Instant at, String clusterId) implements Disruption {}

    /** The row is inserted again (as it was first). */
    record ClusterReAdded(Instant at, String clusterId) implements Disruption {}

    /** The row now names another GKE cluster (another location). */
    record ClusterMoved(Instant at, String clusterId, String location) implements Disruption {}

    /**
     * An operator edits columns of the row that do not name the GKE cluster: its bucket, and its pods' service
     * account. Jobs dispatched afterwards use the new values; nothing already there moves.
     */
    record ClusterEdited(Instant at, String clusterId, String gcsBucket, Optional<String> serviceAccount)
            implements Disruption {}

    /**
     * The scheduler stops reading and ticking for a while (a long pause, a broker it cannot reach, a crash loop)
     * and comes back to a backlog; as Kafka Streams may, it fires its wall-clock timers before it reads the backlog.
     */
    record SchedulerStall(Instant at, Duration stalled) implements Disruption {}

    /** An upper component writes a status Falcon never writes (back to Pending, a value that is no status). */
    record StatusWritten(Instant at, String jobId, String status) implements Disruption {}

    /** An upper component changes the job's priority column (a value out of range included). */
    record PriorityChanged(Instant at, String jobId, long priority) implements Disruption {}

    /** An upper component deletes the job's row and inserts a new one under the same id (another request). */
    record IdReused(Instant at, String jobId) implements Disruption {}

    /** An upper component inserts a row that is already Aborting (an id Falcon never saw). */
    record InsertedAborting(Instant at, String jobId) implements Disruption {}

    /**
     * GKE and Kubernetes refuse every creation on the GKE cluster the row names for a while (a project quota cut,
     * an IAM binding removed, an upgrade, an admission policy rolled out): node-pool and Kubernetes Job creates fail
     * for good until it ends. Cluster choice must stop sending it work ({@code ClusterHealth}).
     */
    record ClusterRefuses(Instant at, String clusterId, Duration lasting) implements Disruption {}

    /**
     * Another owner's node pool appears, before the job is submitted, under the name Falcon gives the job's pool, on
     * every cluster of its TPU type (another team's tool, a second Falcon installation).
     */
    record ForeignPool(Instant at, String jobId) implements Disruption {}

    /** An operator switches automatic retries off or on ({@code falcon retries off|on}). */
    record RetriesSwitched(Instant at, boolean enabled) implements Disruption {}

    static Scenario generate(long seed) {
        Random rnd = new Random(seed);
        List<ClusterRow> clusters = new ArrayList<>();
        List<Integer> reservationHosts = new ArrayList<>();
        int v6e = 1 + rnd.nextInt(3);
        for (int i = 0; i < v6e; i++) {
            boolean reservation = rnd.nextInt(3) == 0;
            clusters.add(row("c" + i, "v6e", reservation ? Optional.of("res-c" + i) : Optional.empty()));
            reservationHosts.add(reservation ? 4 + rnd.nextInt(9) : 0);
        }
        boolean v5p = rnd.nextInt(3) == 0;
        if (v5p) {
            clusters.add(row("p0", "v5p", Optional.empty()));
            reservationHosts.add(0);
        }
        Duration submissions = Duration.ofMinutes(30 + rnd.nextInt(150));
        List<String> actors = List.of("alice", "bob", "carol", "dave").subList(0, 1 + rnd.nextInt(4));
        List<String> topologies = List.of("2x2", "2x4", "4x4");
        List<String> topologies3d = List.of("2x2x1", "2x2x2", "2x2x4");
        List<JobPlan> jobs = new ArrayList<>();
        int count = 4 + rnd.nextInt(14);
        // Priorities come from their own generator, so that every other draw of a seed (and so the scenarios the
        // seeds stood for before priorities existed) stays as it was.
        Random priorities = new Random(seed ^ 0x5DEECE66DL);
        boolean prioritized = priorities.nextBoolean();
        Duration aging = Duration.ofMinutes(1 + priorities.nextInt(30));
        for (int i = 0; i < count; i++) {
            String tpu = v5p && rnd.nextInt(4) == 0 ? "v5p" : "v6e";
            Optional<SupplyMode> supply = switch (rnd.nextInt(6)) {
                case 0 -> Optional.of(SupplyMode.ON_DEMAND);
                case 1 -> Optional.of(SupplyMode.FLEX_START);
                case 2 -> Optional.of(SupplyMode.RESERVATION);
                default -> Optional.empty();
            };
            if (supply.filter(SupplyMode.RESERVATION::equals).isPresent() && tpu.equals("v5p")) {
                supply = Optional.empty();
            }
            Instant submit = T0.plusSeconds(rnd.nextInt((int) submissions.toSeconds() + 1));
            Duration runFor = Duration.ofSeconds(30 + rnd.nextInt(rnd.nextInt(5) == 0 ? 4 * 3600 : 3600));
            Optional<Long> timeout =
                    rnd.nextInt(3) == 0 ? Optional.empty() : Optional.of((long) (300 + rnd.nextInt(7200)));
            Outcome outcome = switch (rnd.nextInt(12)) {
                case 0 -> Outcome.FAIL;
                case 1 -> Outcome.IMAGE_PULL;
                case 2 -> Outcome.NEVER_SCHEDULED;
                default -> Outcome.SUCCEED;
            };
            Optional<Instant> abort =
                    rnd.nextInt(5) == 0 ? Optional.of(submit.plusSeconds(rnd.nextInt(3 * 3600))) : Optional.empty();
            List<String> shapes = tpu.equals("v5p") ? topologies3d : topologies;
            jobs.add(new JobPlan(
                    String.format("job-%02d", i),
                    actors.get(rnd.nextInt(actors.size())),
                    tpu,
                    shapes.get(rnd.nextInt(shapes.size())),
                    supply,
                    timeout,
                    submit,
                    abort,
                    runFor,
                    outcome,
                    prioritized && priorities.nextInt(3) == 0
                            ? Optional.of((long) (priorities.nextInt(7) - 2))
                            : Optional.empty()));
        }
        Instant healAt = T0.plus(Duration.ofHours(3 + rnd.nextInt(3)));
        List<Disruption> disruptions = new ArrayList<>();
        int n = rnd.nextInt(8);
        for (int i = 0; i < n; i++) {
            Instant at = T0.plusSeconds(
                    rnd.nextInt((int) Duration.between(T0, healAt).toSeconds()));
            String cluster = clusters.get(rnd.nextInt(clusters.size())).id();
            disruptions.add(
                    switch (rnd.nextInt(10)) {
                        case 0, 1, 2 ->
                            new RestartExecutor(at, Duration.ofSeconds(1 + rnd.nextInt(rnd.nextBoolean() ? 30 : 900)));
                        case 3, 4 ->
                            new RestartScheduler(at, Duration.ofSeconds(1 + rnd.nextInt(rnd.nextBoolean() ? 30 : 900)));
                        case 5 ->
                            new ClusterStatusChange(
                                    at, cluster, rnd.nextBoolean() ? ClusterStatus.MAINTENANCE : ClusterStatus.OFFLINE);
                        case 6 -> new ClusterStatusChange(at, cluster, ClusterStatus.ACTIVE);
                        case 7 -> new ClusterDeleted(at, cluster);
                        case 8 -> new ClusterReAdded(at, cluster);
                        default -> new ClusterMoved(at, cluster, "us-east" + (1 + rnd.nextInt(5)));
                    });
        }
        Map<SupplyMode, Duration> linger = new EnumMap<>(SupplyMode.class);
        if (rnd.nextBoolean()) {
            for (SupplyMode mode : SupplyMode.values()) {
                if (rnd.nextBoolean()) {
                    linger.put(mode, Duration.ofSeconds(1 + rnd.nextInt(1200)));
                }
            }
        }
        Faults faults = Faults.random(rnd);
        // The production events of issue 30 come from a generator of their own: every draw above, and so the
        // scenarios of the seeds found before they existed, stay as they were.
        Random production = new Random(seed * 0x2545F4914F6CDD1DL + 30);
        Duration span = Duration.between(T0, healAt);
        int edits = production.nextInt(4);
        for (int i = 0; i < edits; i++) {
            ClusterRow edited = clusters.get(production.nextInt(clusters.size()));
            disruptions.add(new ClusterEdited(
                    T0.plusSeconds(production.nextInt((int) span.toSeconds())),
                    edited.id(),
                    "bucket-" + edited.id() + "-" + i,
                    production.nextBoolean() ? Optional.of("runner-" + i) : Optional.empty()));
        }
        int stalls = production.nextInt(3);
        for (int i = 0; i < stalls; i++) {
            disruptions.add(new SchedulerStall(
                    T0.plusSeconds(production.nextInt((int) span.toSeconds())),
                    Duration.ofSeconds(30 + production.nextInt(production.nextBoolean() ? 600 : 7200))));
        }
        for (JobPlan job : jobs) {
            if (production.nextInt(20) == 0) {
                disruptions.add(new StatusWritten(
                        job.submitAt().plusSeconds(production.nextInt(4 * 3600)),
                        job.id(),
                        production.nextInt(10) < 7 ? "Pending" : "Cancelled"));
            }
            if (production.nextInt(20) == 0) {
                disruptions.add(new PriorityChanged(
                        job.submitAt().plusSeconds(production.nextInt(2 * 3600)),
                        job.id(),
                        production.nextInt(10) == 0 ? 5000 : production.nextInt(9) - 2));
            }
            if (production.nextInt(30) == 0) {
                disruptions.add(new IdReused(job.submitAt().plusSeconds(60 + production.nextInt(6 * 3600)), job.id()));
            }
        }
        if (production.nextInt(3) == 0) {
            disruptions.add(
                    new InsertedAborting(T0.plusSeconds(production.nextInt((int) span.toSeconds())), "ghost-" + seed));
        }
        Reality reality = Reality.random(production);
        // Clusters that refuse everything for a while: a generator of their own again, every draw above unchanged.
        Random refusals = new Random(seed * 0x5DEECE66DL + 31);
        if (refusals.nextInt(3) == 0) {
            int outages = 1 + refusals.nextInt(2);
            for (int i = 0; i < outages; i++) {
                disruptions.add(new ClusterRefuses(
                        T0.plusSeconds(refusals.nextInt((int) span.toSeconds())),
                        clusters.get(refusals.nextInt(clusters.size())).id(),
                        Duration.ofMinutes(5 + refusals.nextInt(56))));
            }
        }
        // The operator's retry switch, in a quarter of the runs with retries: off at some time, and in half of those
        // on again 10 to 90 minutes later. A generator of its own, every draw above unchanged; seeded apart from the
        // retries' own generator (java.util.Random's first draws of nearby seeds share their top bits).
        Random switching = new Random(seed * 0x9E3779B97F4A7C15L + 67);
        if (maxRetriesDrawn(seed) > 0 && switching.nextInt(4) == 0) {
            Instant off = T0.plusSeconds(switching.nextInt((int) span.toSeconds()));
            disruptions.add(new RetriesSwitched(off, false));
            if (switching.nextBoolean()) {
                disruptions.add(new RetriesSwitched(off.plusSeconds(600 + switching.nextInt(4800)), true));
            }
        }
        // Foreign pools under Falcon's names: a generator of their own, every draw above unchanged.
        Random foreign = new Random(seed * 0x5DEECE66DL + 47);
        if (!jobs.isEmpty() && foreign.nextInt(4) == 0) {
            JobPlan victim = jobs.get(foreign.nextInt(jobs.size()));
            Instant at = victim.submitAt().minusSeconds(1 + foreign.nextInt(300));
            disruptions.add(new ForeignPool(at.isBefore(T0) ? T0 : at, victim.id()));
        }
        // How many jobs of a queue acquire at once: a generator of its own, every draw above unchanged. Half the seeds
        // keep the design's one at a time.
        Random acquirers = new Random(seed * 0x5DEECE66DL + 59);
        int perQueue = acquirers.nextBoolean() ? 1 : 2 + acquirers.nextInt(7);
        // How many times a job runs again after the fleet ended an attempt: a generator of its own, every draw above
        // unchanged. Half the seeds keep the design's none.
        int maxRetries = maxRetriesDrawn(seed);
        return new Scenario(
                seed,
                clusters,
                reservationHosts,
                jobs,
                disruptions,
                faults,
                healAt,
                linger,
                aging,
                reality,
                perQueue,
                maxRetries);
    }

    /** The same scenario in another world of production events (scripted runs: clock skew, say). */
    Scenario withReality(Reality other) {
        return new Scenario(
                seed,
                clusters,
                reservationHosts,
                jobs,
                disruptions,
                faults,
                healAt,
                idleLinger,
                priorityAging,
                other,
                acquirersPerQueue,
                maxRetries);
    }

    static ClusterRow row(String id, String tpuType, Optional<String> reservation) {
        return new ClusterRow(
                id,
                "edge-" + id,
                "proj-" + id,
                "us-central1",
                tpuType,
                "bucket-" + id,
                reservation,
                ClusterStatus.ACTIVE,
                Optional.of(T0));
    }

    /** A scenario written by hand (regression tests): the given clusters and jobs, no faults unless set. */
    static Scenario scripted(List<ClusterRow> clusters, List<JobPlan> jobs, Instant healAt) {
        return new Scenario(
                0,
                clusters,
                clusters.stream()
                        .map(c -> c.defaultReservation().isPresent() ? 8 : 0)
                        .toList(),
                jobs,
                List.of(),
                Faults.NONE,
                healAt,
                Map.of(),
                Duration.ofMinutes(10),
                Reality.NONE,
                1,
                0);
    }

    /** The same scenario with jobs run again up to this many times after the fleet ended an attempt. */
    /**
     * How many failed attempts ended on one cluster run again within an hour: in a third of the runs a budget small
     * enough to be met (1 to 3), else the setting's default. A generator of its own.
     */
    static int retryBudgetDrawn(long seed) {
        Random budget = new Random(seed * 0xC2B2AE3D27D4EB4FL + 71);
        return budget.nextInt(3) == 0
                ? 1 + budget.nextInt(3)
                : SchedulerSettings.Retries.defaults().perClusterPerHour();
    }

    /** The run's retries, drawn from a generator of their own: none in half the runs, else 1 to 3. */
    static int maxRetriesDrawn(long seed) {
        Random retries = new Random(seed * 0x5DEECE66DL + 61);
        return retries.nextBoolean() ? 0 : 1 + retries.nextInt(3);
    }

    Scenario withMaxRetries(int retries) {
        return new Scenario(
                seed,
                clusters,
                reservationHosts,
                jobs,
                disruptions,
                faults,
                healAt,
                idleLinger,
                priorityAging,
                reality,
                acquirersPerQueue,
                retries);
    }
}
