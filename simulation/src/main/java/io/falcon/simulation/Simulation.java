package io.falcon.simulation;

import io.falcon.events.ClusterStatus;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.scheduler.core.ClusterChoice;
import io.falcon.scheduler.core.JobRequest;
import io.falcon.scheduler.core.Phase;
import io.falcon.scheduler.core.ScheduledJob;
import io.falcon.scheduler.core.SchedulerSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * One deterministic run: the real scheduler core ({@link SimScheduler}) and the real executor logic ({@link
 * SimExecutor}) against a simulated fleet ({@link SimFleet}) on a simulated clock, through logs that behave like
 * the Kafka topics between them. The scenario's jobs are submitted and aborted, its disruptions (restarts, cluster
 * rows changed or deleted) and faults injected until the heal time; then the run goes on until the world is quiet
 * (or two days have passed) and the invariants are checked ({@link Checks}). The same seed replays exactly.
 */
public final class Simulation {
    static final Duration QUIESCENCE_LIMIT = Duration.ofHours(48);

    /** What a run found. */
    public record Result(
            long seed,
            List<String> violations,
            Duration simulated,
            long steps,
            int jobs,
            Map<String, Integer> outcomes,
            int infraOnly,
            int infraOnlySucceeded) {
        public boolean passed() {
            return violations.isEmpty();
        }

        public String summary() {
            return "seed " + seed + ": " + (passed() ? "passed" : violations.size() + " violation(s)") + ", " + jobs
                    + " jobs " + outcomes + ", " + simulated.toMinutes() + " simulated minutes, " + steps + " steps";
        }
    }

    private final Scenario scenario;
    private final Loop loop = new Loop(Scenario.T0);
    private final Random rnd;
    private final Logs logs = new Logs(loop::now);
    private final List<String> violations = new ArrayList<>();
    private final Checks checks;
    private final SimFleet fleet;
    private final SimScheduler scheduler;
    private final SimExecutor executor;
    private final Map<String, ClusterRow> rows = new TreeMap<>();
    private final Map<String, ClusterRow> original = new HashMap<>();
    private final Map<String, Scenario.JobPlan> plans = new LinkedHashMap<>();
    private boolean healed;
    private String tracing = "";
    /** When a clusters row was deleted or came to name another GKE cluster (its jobs in flight may end). */
    private final List<Instant> clusterLeaves = new ArrayList<>();
    /** The jobs table as the upper components and the status-sink write it. */
    private final SimRows jobRows = new SimRows();
    /** When each job was first aborted (an upper component's write), for the check that every abort is answered. */
    private final Map<String, Instant> abortedAt = new HashMap<>();

    Simulation(Scenario scenario) {
        this(scenario, new Timings.Drawn(), settings -> settings);
    }

    /**
     * A run with other timings of the fleet and other scheduler settings than the sweep's ({@link Goodput}: GKE's
     * published timings, Falcon's defaults against the seed read literally).
     */
    Simulation(Scenario scenario, Timings timings, java.util.function.UnaryOperator<SchedulerSettings> tune) {
        this.scenario = scenario;
        this.rnd = new Random(scenario.seed() * 31 + 7);
        scenario.jobs().forEach(j -> plans.put(j.id(), j));
        Map<String, Integer> reservations = new HashMap<>();
        for (int i = 0; i < scenario.clusters().size(); i++) {
            ClusterRow row = scenario.clusters().get(i);
            int hosts = scenario.reservationHosts().get(i);
            row.defaultReservation().ifPresent(r -> reservations.put(row.project() + "/" + r, hosts));
        }
        fleet = new SimFleet(
                loop,
                rnd,
                scenario.faults(),
                plans,
                reservations,
                violations,
                new Random(scenario.seed() * 977 + 29),
                new Random(scenario.seed() * 613 + 41),
                new Random(scenario.seed() * 307 + 53),
                new Random(scenario.seed() * 829 + 61));
        fleet.reality(scenario.reality(), new Random(scenario.seed() * 977 + 30));
        // the disruptions of running pods came after the seeds' scenarios: streams of their own, the other draws stay
        fleet.disruptions(
                new Random(scenario.seed() * 1117 + 71),
                new Random(scenario.seed() * 1117 + 73),
                new Random(scenario.seed() * 1117 + 79));
        fleet.timings(timings);
        SchedulerSettings settings = tune.apply(SchedulerSettings.defaults()
                .withIdleLinger(scenario.idleLinger())
                .withPriorityAging(scenario.priorityAging())
                .withAcquirersPerQueue(scenario.acquirersPerQueue())
                .withRetries(new SchedulerSettings.Retries(
                        scenario.maxRetries(),
                        SchedulerSettings.Retries.defaults().backoff(),
                        SchedulerSettings.Retries.defaults().maxBackoff(),
                        true,
                        Scenario.retryBudgetDrawn(scenario.seed()))));
        checks = new Checks(
                violations, settings.priorityAging(), settings.retries().maxRetries());
        scheduler = new SimScheduler(
                loop, rnd, logs, settings, checks, scenario.reality().schedulerClockOffset());
        executor = new SimExecutor(
                loop,
                rnd,
                new Random(scenario.seed() * 131 + 17),
                new Random(scenario.seed() * 421 + 3),
                fleet,
                logs,
                this::faults,
                this::registry,
                scenario.reality().executorClockOffset());
        logs.eventClockOffset = scenario.reality().executorClockOffset();
        fleet.programFailureReported((jobId, k8sJob) -> logs.events.stream()
                .anyMatch(e -> e instanceof ExecutorEvent.JobFailed f
                        && f.jobId().equals(jobId)
                        && f.k8sJobName().equals(k8sJob)
                        && !f.cause().infrastructure()));
        logs.onInputOrEvent = scheduler::wake;
        logs.onStatus = jobRows::apply;
        logs.onCommand = executor::wake;
        fleet.onDeviceIsolated(verdict -> logs.appendInput(new Logs.FaultNoted(verdict)));
        fleet.onPoolLoss(loss -> {
            ScheduledJob job = scheduler.committed().job(loss.falconJobId()).orElse(null);
            // a retrying job's last attempt is over: its pool may go before that attempt's Job is confirmed gone
            if (job != null && job.phase() != Phase.DONE && job.phase() != Phase.RETRYING) {
                checks.violation("node pool " + loss.pool() + " deleted at " + loss.at() + " under the Kubernetes Job"
                        + " of live job " + job.id() + " (" + job.phase() + " " + job.status() + ")");
            }
        });
    }

    /** Runs the seed's generated scenario. */
    public static Result run(long seed) {
        return new Simulation(Scenario.generate(seed)).run();
    }

    Result run() {
        start();
        runUntil(() -> healed, scenario.healAt().plusSeconds(1));
        boolean quiet = runUntil(this::quiet, scenario.healAt().plus(QUIESCENCE_LIMIT));
        return finish(quiet);
    }

    // ---- pieces for scripted runs (regression tests) ----

    Loop loop() {
        return loop;
    }

    SimFleet fleet() {
        return fleet;
    }

    SimScheduler scheduler() {
        return scheduler;
    }

    SimExecutor executor() {
        return executor;
    }

    /**
     * The job's Job was deleted by hand before Falcon ever saw it (created by a command whose answer was lost, while
     * the executor was down or blind), and created again by a command written before Falcon had seen it created: the
     * Job Falcon knows is the second one, and nothing of the first could tell it that anything was deleted.
     */
    private boolean deletionUnseeable(String jobId) {
        if (!fleet.recreatedAfterHandDeletion().contains(jobId)) {
            return false;
        }
        Optional<String> uid = fleet.handDeletedUid(jobId);
        return uid.isPresent()
                && logs.events.stream()
                        .noneMatch(e -> e.jobId().equals(jobId) && uid.get().equals(uidOf(e)));
    }

    private static String uidOf(ExecutorEvent event) {
        if (event instanceof ExecutorEvent.JobSubmitted e) {
            return e.jobUid();
        }
        if (event instanceof ExecutorEvent.JobRunning e) {
            return e.jobUid();
        }
        return ""; // the ends carry no uid: a Job seen ending was seen submitted or running first
    }

    Logs logs() {
        return logs;
    }

    void start() {
        for (ClusterRow row : scenario.clusters()) {
            original.put(row.id(), row);
            upsert(row);
        }
        scheduler.start();
        executor.start();
        int n = 0;
        for (Scenario.JobPlan plan : scenario.jobs()) {
            loop.at(plan.submitAt(), () -> {
                jobRows.inserted(plan.id(), "Pending");
                logs.appendInput(new Logs.Submit(request(plan)));
            });
            // CDC redelivers (a Debezium restart replays the binlog from its last flushed offset; a snapshot re-reads
            // rows still Pending or Running): the same submission again, while the job waits, runs or has finished.
            Duration later = Duration.ofMinutes((n++ * 37L) % 420);
            loop.at(plan.submitAt().plus(later), () -> logs.appendInput(new Logs.Submit(request(plan))));
            plan.abortAt().ifPresent(at -> loop.at(at, () -> abort(plan.id())));
        }
        for (Scenario.Disruption d : scenario.disruptions()) {
            loop.at(d.at(), () -> disrupt(d));
        }
        loop.at(scenario.healAt(), this::heal);
    }

    boolean runUntil(BooleanSupplier condition, Instant deadline) {
        return loop.runUntil(condition, deadline);
    }

    /** The committed view of a job, as a restarted scheduler would see it. */
    Optional<ScheduledJob> job(String id) {
        return scheduler.committed().job(id);
    }

    Result finish(boolean quiet) {
        if (!quiet) {
            checks.violation("not quiescent " + QUIESCENCE_LIMIT.toHours() + "h after the heal: " + remaining());
        }
        checks.atQuiescence(scheduler.committed().jobMap(), this::allowedToWait, fleet, logs.statuses);
        // Bounded state: a finished job leaves the live table (and memory) for the retired store.
        scheduler.committed().liveJobMap().values().stream()
                .filter(j -> j.phase() == Phase.DONE)
                .forEach(j -> checks.violation("finished job " + j.id() + " is still in the live job table"));
        scheduler.core().jobs().stream()
                .filter(j -> j.phase() == Phase.DONE)
                .forEach(j -> checks.violation("finished job " + j.id() + " is still in the scheduler's memory"));
        SchedulerSettings settings = SchedulerSettings.defaults();
        checks.checkDeadlines(
                logs.statuses,
                id -> plans.get(id)
                        .timeoutSeconds()
                        .map(Duration::ofSeconds)
                        .orElse(settings.defaultExecutionTimeout()),
                // the observation slack (90 s), the clocks' difference (1 min), a heartbeat's interval and the oldest
                // report not yet on the topic (events held back up to 2 min): a deadline may fire that much later
                Duration.ofMinutes(8),
                // and a deadline that passed while nobody watched is judged once a restarted executor has watched
                // for the observation slack (Observations): that much again after each restart
                (from, to) -> executor.blindBetween(from, to)
                        .plus(scheduler.downBetween(from, to))
                        .plus(settings.observationSlack().multipliedBy(executor.restartsBetween(from, to))));
        checks.checkCauses(
                logs.statuses,
                plans,
                fleet::causes,
                // the statuses' times are on the scheduler's clock, up to a minute off true time
                (from, to) -> clusterLeaves.stream()
                        .anyMatch(at -> !at.isBefore(from.minusSeconds(120)) && !at.isAfter(to.plusSeconds(120))),
                settings.defaultExecutionTimeout(),
                logs.inputs.stream()
                        .filter(i -> i instanceof Logs.Abort)
                        .map(i -> ((Logs.Abort) i).jobId())
                        .collect(java.util.stream.Collectors.toSet()),
                this::endUnseen);
        checks.checkRows(
                jobRows.rows(),
                logs.statuses,
                id -> Optional.ofNullable(scheduler.committed().jobMap().get(id))
                        .flatMap(this::allowedToWait)
                        .isPresent());
        checks.checkAbortsAnswered(
                abortedAt, logs.statuses, Duration.ofMinutes(5), scheduler::downBetween, scenario.reality());
        checks.checkSuccessesReported(
                logs.statuses,
                fleet.succeededJobs(),
                // A cluster that left before the success, or while the executor was down since the success (it could
                // not have reported it: the job ends with its cluster, a known limit, docs/reliability.md).
                (jobId, success) -> clusterLeaves.stream()
                                .anyMatch(at -> !at.isBefore(plans.get(jobId).submitAt())
                                        && (!at.isAfter(success.plusSeconds(120))
                                                || executor.downBetween(success, at)
                                                                .compareTo(Duration.ZERO)
                                                        > 0))
                        || endUnseen(jobId));
        checks.checkPullsGotPast(scheduler.committed().jobMap(), fleet.pulledLate());
        checks.checkOutages(
                fleet.refusedDuringOutages(),
                // one queue per (cluster, topology): the scenarios' jobs use three topologies
                (int) plans.values().stream()
                        .map(Scenario.JobPlan::topology)
                        .distinct()
                        .count(),
                // the policy of the scheduler's ClusterHealth, as documented (docs/architecture.md)
                3,
                Duration.ofMinutes(10),
                scheduler::restartsBetween,
                fleet::successDuring);
        checks.checkHandDeletionsNoticed(
                logs.statuses,
                fleet.handDeletedJobs(),
                Duration.ofMinutes(30),
                (from, to) -> executor.blindBetween(from, to).plus(scheduler.downBetween(from, to)),
                id -> plans.get(id).outcome() != Scenario.Outcome.SUCCEED,
                SchedulerSettings.defaults().dispatchDeadline(),
                this::deletionUnseeable);
        checks.checkForeignPoolsUntouched(fleet.foreignPools(), fleet.foreignPoolsDeleted());
        checks.checkNoAttemptBegunWhileRetriesOff(logs.commands, scheduler.retrySwitches, scenario.maxRetries());
        checks.checkClusterRetryBudget(
                logs.statuses, Scenario.retryBudgetDrawn(scenario.seed()), scheduler::restartsBetween);
        Map<String, Integer> outcomes = new TreeMap<>();
        for (ScheduledJob job : scheduler.committed().jobMap().values()) {
            outcomes.merge(job.status().name(), 1, Integer::sum);
        }
        // With retries: the jobs whose program would succeed and that only the fleet hit (nodes lost, their Job
        // deleted by hand, a pod evicted or preempted, a host gone, a device isolated), never aborted and on
        // clusters that stayed; how many of them ended Succeeded.
        int infraOnly = 0;
        int infraOnlySucceeded = 0;
        // (not in a run whose operator switched retries off, nor one whose per-cluster budget is small enough to be
        // met: its jobs end as their failures say)
        boolean switchedOff =
                scenario.disruptions().stream().anyMatch(d -> d instanceof Scenario.RetriesSwitched r && !r.enabled());
        boolean smallBudget = Scenario.retryBudgetDrawn(scenario.seed())
                < SchedulerSettings.Retries.defaults().perClusterPerHour();
        if (scenario.maxRetries() > 0 && !switchedOff && !smallBudget) {
            java.util.Set<String> abortedJobs = logs.inputs.stream()
                    .filter(i -> i instanceof Logs.Abort)
                    .map(i -> ((Logs.Abort) i).jobId())
                    .collect(java.util.stream.Collectors.toSet());
            java.util.Set<SimFleet.Cause> fleetOnly = java.util.EnumSet.of(
                    SimFleet.Cause.NODES_LOST,
                    SimFleet.Cause.JOB_DELETED_BY_HAND,
                    SimFleet.Cause.POD_EVICTED,
                    SimFleet.Cause.HOST_LOST,
                    SimFleet.Cause.DEVICE_ISOLATED);
            for (Scenario.JobPlan plan : scenario.jobs()) {
                java.util.Set<SimFleet.Cause> causes = fleet.causes(plan.id(), Optional.empty());
                // a run that would meet its timeout ends Timeout whatever the fleet does
                Duration timeout = plan.timeoutSeconds()
                        .map(Duration::ofSeconds)
                        .orElse(SchedulerSettings.defaults().defaultExecutionTimeout());
                if (plan.outcome() != Scenario.Outcome.SUCCEED
                        || plan.runFor().plusMinutes(2).compareTo(timeout) >= 0
                        || plan.abortAt().isPresent()
                        || abortedJobs.contains(plan.id())
                        || causes.isEmpty()
                        || !fleetOnly.containsAll(causes)
                        || clusterLeaves.stream()
                                .anyMatch(at -> !at.isBefore(plan.submitAt().minusSeconds(120)))) {
                    continue;
                }
                infraOnly++;
                ScheduledJob job = scheduler.committed().jobMap().get(plan.id());
                if (job != null && job.status() == io.falcon.events.status.Status.Succeeded) {
                    infraOnlySucceeded++;
                } else if (System.getenv("FALCON_SIM_SHOW_RETRY_MISSES") != null) {
                    System.out.println("retry miss: seed " + scenario.seed() + " " + plan.id() + " " + causes + " -> "
                            + (job == null
                                    ? "-"
                                    : job.status() + "/"
                                            + job.reason().map(Enum::name).orElse("") + " '" + job.message() + "'"));
                }
            }
        }
        return new Result(
                scenario.seed(),
                List.copyOf(violations),
                Duration.between(Scenario.T0, loop.now()),
                loop.steps(),
                scenario.jobs().size(),
                outcomes,
                infraOnly,
                infraOnlySucceeded);
    }

    /** Prints every record crossing a topic, and every restart, that mentions the word. */
    void trace(String word) {
        logs.trace = line -> {
            if (line.contains(word)) {
                System.out.println(loop.now() + " " + line);
            }
        };
        tracing = word;
    }

    /** The scenario and how each job ended, for a person replaying a seed. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        b.append("clusters ")
                .append(scenario.clusters().stream()
                        .map(c -> c.id() + ":" + c.tpuType()
                                + c.defaultReservation().map(r -> "+" + r).orElse(""))
                        .toList())
                .append('\n');
        b.append("faults ").append(scenario.faults()).append('\n');
        b.append("disruptions ").append(scenario.disruptions()).append('\n');
        b.append("heal at ")
                .append(scenario.healAt())
                .append(", idle linger ")
                .append(scenario.idleLinger())
                .append(", priority aging ")
                .append(scenario.priorityAging())
                .append(", acquirers per queue ")
                .append(scenario.acquirersPerQueue())
                .append('\n');
        for (Scenario.JobPlan plan : scenario.jobs()) {
            ScheduledJob job = scheduler.committed().jobMap().get(plan.id());
            b.append("  ")
                    .append(plan.id())
                    .append(' ')
                    .append(plan.actor())
                    .append(' ')
                    .append(plan.topology())
                    .append(plan.supplyMode().map(m -> " " + m.wireName()).orElse(""))
                    .append(plan.timeoutSeconds().map(t -> " timeout=" + t).orElse(""))
                    .append(" ")
                    .append(plan.outcome())
                    .append(" run=")
                    .append(plan.runFor().toMinutes())
                    .append("m")
                    .append(plan.abortAt()
                            .map(a ->
                                    " abort@" + Duration.between(Scenario.T0, a).toMinutes() + "m")
                            .orElse(""))
                    .append(" -> ")
                    .append(
                            job == null
                                    ? "?"
                                    : job.status()
                                            + job.reason().map(r -> "/" + r).orElse("") + " '" + job.message() + "'")
                    .append('\n');
        }
        return b.toString();
    }

    /**
     * Whether the job's Kubernetes Job succeeded and someone other than Falcon deleted it while the executor never
     * watched it finished (down, or up and not yet through its first pass, from the success to the deletion): its end
     * is gone with it, and nothing Falcon can read says how it ended. A known limit (docs/reliability.md): Falcon
     * answers Failed/JobFailed, saying the Job was deleted before Falcon saw it finish.
     */
    private boolean endUnseen(String jobId) {
        Instant success = fleet.succeededJobs().get(jobId);
        Instant deleted = fleet.endedThenDeletedJobs().get(jobId);
        return success != null
                && deleted != null
                && executor.blindBetween(success, deleted).compareTo(Duration.between(success, deleted)) >= 0;
    }

    // ---- the world ----

    void disrupt(Scenario.Disruption d) {
        if (!tracing.isEmpty()) {
            System.out.println(loop.now() + " disruption " + d);
        }
        if (d instanceof Scenario.RestartExecutor r) {
            executor.crash(r.down());
        } else if (d instanceof Scenario.RestartScheduler r) {
            scheduler.crash(r.down());
        } else if (d instanceof Scenario.ClusterStatusChange s) {
            Optional.ofNullable(rows.get(s.clusterId())).ifPresent(row -> upsert(withStatus(row, s.status())));
        } else if (d instanceof Scenario.ClusterDeleted del) {
            deleteRow(del.clusterId());
        } else if (d instanceof Scenario.ClusterReAdded re) {
            if (!rows.containsKey(re.clusterId())) {
                upsert(original.get(re.clusterId()));
            }
        } else if (d instanceof Scenario.ClusterEdited e) {
            Optional.ofNullable(rows.get(e.clusterId())).ifPresent(row -> upsert(edited(row, e)));
        } else if (d instanceof Scenario.StatusWritten w) {
            jobRows.written(w.jobId(), w.status());
            logs.appendInput(new Logs.Rewrite(w.jobId(), w.status()));
        } else if (d instanceof Scenario.RetriesSwitched r) {
            logs.appendInput(new Logs.RetriesSwitched(new io.falcon.events.control.RetrySwitch(
                    r.enabled(), "ops", r.enabled() ? "storm over" : "retry storm", loop.now())));
        } else if (d instanceof Scenario.PriorityChanged p) {
            logs.appendInput(new Logs.Reprioritize(p.jobId(), Optional.of(p.priority())));
        } else if (d instanceof Scenario.IdReused r) {
            Scenario.JobPlan plan = plans.get(r.jobId());
            jobRows.inserted(r.jobId(), "Pending");
            logs.appendInput(new Logs.Submit(new JobRequest(
                    plan.id(),
                    "mallory",
                    "reused-" + plan.id(),
                    plan.tpuType(),
                    plan.topology(),
                    "{\"image\":\"us-docker.pkg.dev/p/r/other:1\",\"command\":[\"sh\"]}",
                    Optional.empty(),
                    Optional.empty(),
                    loop.now(),
                    Optional.empty())));
        } else if (d instanceof Scenario.InsertedAborting i) {
            jobRows.inserted(i.jobId(), "Aborting");
            abortedAt.putIfAbsent(i.jobId(), loop.now());
            logs.appendInput(new Logs.Abort(i.jobId()));
        } else if (d instanceof Scenario.ClusterRefuses r) {
            Optional.ofNullable(rows.get(r.clusterId()))
                    .ifPresent(row -> fleet.refuseCreates(
                            row.target(), loop.now(), loop.now().plus(r.lasting())));
        } else if (d instanceof Scenario.ForeignPool f) {
            Scenario.JobPlan plan = plans.get(f.jobId());
            String name = io.falcon.events.ResourceNames.nodePool(
                    io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, f.jobId());
            rows.values().stream()
                    .filter(row -> row.tpuType().equals(plan.tpuType()))
                    .forEach(row -> fleet.foreignPool(row.target(), name, f.jobId()));
        } else if (d instanceof Scenario.SchedulerStall stall) {
            scheduler.stall(stall.stalled());
        } else if (d instanceof Scenario.ClusterMoved m) {
            Optional.ofNullable(rows.get(m.clusterId()))
                    .ifPresent(row -> upsert(new ClusterRow(
                            row.id(),
                            row.name(),
                            row.project(),
                            m.location(),
                            row.tpuType(),
                            row.gcsBucket(),
                            row.defaultReservation(),
                            row.status(),
                            row.createdAt())));
        }
    }

    /** The row with the edit's bucket and service account; the GKE cluster it names is the same. */
    static ClusterRow edited(ClusterRow row, Scenario.ClusterEdited e) {
        return new ClusterRow(
                row.id(),
                row.name(),
                row.project(),
                row.location(),
                row.tpuType(),
                e.gcsBucket(),
                row.defaultReservation(),
                row.status(),
                row.createdAt(),
                e.serviceAccount());
    }

    void upsert(ClusterRow row) {
        ClusterRow before = rows.get(row.id());
        if (before != null
                && (!before.target().sameCluster(row.target())
                        || !before.tpuType().equals(row.tpuType()))) {
            clusterLeaves.add(loop.now());
        }
        rows.put(row.id(), row);
        logs.appendInput(new Logs.ClusterUpsert(row));
    }

    void deleteRow(String clusterId) {
        if (rows.remove(clusterId) != null) {
            clusterLeaves.add(loop.now());
            logs.appendInput(new Logs.ClusterRemove(clusterId));
        }
    }

    Optional<ClusterRow> row(String clusterId) {
        return Optional.ofNullable(rows.get(clusterId));
    }

    private void heal() {
        healed = true;
        fleet.heal();
        for (ClusterRow row : List.copyOf(rows.values())) {
            if (!row.isActive()) {
                upsert(withStatus(row, ClusterStatus.ACTIVE));
            }
        }
    }

    /** An upper component sets the row Aborting. */
    void abort(String jobId) {
        jobRows.written(jobId, "Aborting");
        abortedAt.putIfAbsent(jobId, loop.now());
        logs.appendInput(new Logs.Abort(jobId));
    }

    private Faults faults() {
        return healed ? Faults.NONE : scenario.faults();
    }

    /** The clusters registry as the executor reads it: every registered cluster, whatever its status. */
    private List<ClusterTarget> registry() {
        return rows.values().stream().map(ClusterRow::target).toList();
    }

    /** Nothing left to do: every job ended (or may wait), nothing in flight, nothing left in the fleet. */
    boolean quiet() {
        if (!healed || !scheduler.idle() || !executor.up() || !executor.idle()) {
            return false;
        }
        for (ScheduledJob job : scheduler.committed().liveJobMap().values()) {
            if (job.phase() != Phase.DONE && allowedToWait(job).isEmpty()) {
                return false;
            }
        }
        return fleet.livePools().isEmpty()
                && fleet.liveJobs().isEmpty()
                && scheduler.core().pools().isEmpty()
                && scheduler.core().deletions().isEmpty();
    }

    /** A job may still wait at quiescence only while no active cluster can take it (the scenario keeps it so). */
    private Optional<String> allowedToWait(ScheduledJob job) {
        if (job.phase() != Phase.UNPLACED) {
            return Optional.empty();
        }
        ClusterChoice.Result choice = ClusterChoice.choose(
                job.request().tpuType().wireName(),
                job.request().supplyMode(),
                rows.values(),
                c -> false,
                c -> 0,
                c -> java.util.OptionalDouble.empty(),
                java.time.Instant.EPOCH);
        return choice instanceof ClusterChoice.NoneEligible none ? Optional.of(none.why()) : Optional.empty();
    }

    private String remaining() {
        List<String> left = new ArrayList<>();
        scheduler.committed().jobMap().values().stream()
                .filter(j -> j.phase() != Phase.DONE)
                .forEach(j -> left.add(j.id() + " " + j.phase() + " " + j.status() + "/"
                        + j.reason().map(Enum::name).orElse("") + " '" + j.message() + "'"));
        if (!fleet.livePools().isEmpty()) {
            left.add("pools " + fleet.livePools());
        }
        if (!fleet.liveJobs().isEmpty()) {
            left.add("k8s jobs " + fleet.liveJobs());
        }
        if (scheduler.core() != null && !scheduler.core().deletions().isEmpty()) {
            left.add("deletions " + scheduler.core().deletions());
        }
        left.add("scheduler " + (scheduler.idle() ? "idle" : "busy") + ", executor "
                + (executor.up() ? (executor.idle() ? "idle" : "busy") : "down"));
        return String.join("; ", left);
    }

    private static ClusterRow withStatus(ClusterRow row, ClusterStatus status) {
        return row.withStatus(status);
    }

    static JobRequest request(Scenario.JobPlan plan) {
        return new JobRequest(
                plan.id(),
                plan.actor(),
                "name-" + plan.id(),
                plan.tpuType(),
                plan.topology(),
                "{\"image\":\"us-docker.pkg.dev/p/r/train:1\",\"command\":[\"python\",\"train.py\"]}",
                plan.supplyMode().map(SupplyMode::wireName),
                plan.timeoutSeconds(),
                plan.submitAt(),
                plan.priority());
    }
}
