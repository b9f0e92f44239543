package io.falcon.simulation;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.Events;
import io.falcon.executor.core.CommandBatch;
import io.falcon.executor.core.JobDriver;
import io.falcon.executor.core.JobReports;
import io.falcon.executor.core.JobView;
import io.falcon.executor.core.NodePoolDriver;
import io.falcon.executor.core.PodView;
import io.falcon.executor.core.PoolReconciler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The executor process in the simulation: the real {@link NodePoolDriver} (and its {@link PoolReconciler}), {@link
 * JobDriver} and {@link JobReports}, fed the committed commands one at a time and committing each before the next,
 * as CommandConsumer does. A restart throws all of it away (in-memory state lost) and starts again from the
 * committed offset; a crash between carrying out a command and committing it redelivers that command.
 */
final class SimExecutor {
    static final Duration POLL = Duration.ofSeconds(10);
    /** The largest batch one poll hands the command loop here (small, so that batches of every size occur). */
    static final int MAX_BATCH = 8;

    static final Duration INFORMER = Duration.ofSeconds(5);
    static final Duration INVENTORY = Duration.ofSeconds(60);
    /** How often the executor says how far it has reported each cluster (production: every 10 s). */
    static final Duration HEARTBEAT = Duration.ofSeconds(30);

    static final PoolReconciler.Settings SETTINGS =
            new PoolReconciler.Settings(Duration.ofMinutes(10), POLL, Duration.ofMinutes(2), Duration.ofMinutes(1));

    private final Loop loop;
    private final Random rnd;
    private final SimFleet fleet;
    private final Logs logs;
    private final Supplier<Faults> faults;
    private final Supplier<List<ClusterTarget>> registry;
    private final Events events;
    /** The executor's own clock (components' clocks differ from true time and from each other). */
    private final java.time.Clock clock;
    /**
     * When each event handed to the producer and not yet on the topic was sent (held back, or in the batch not yet
     * flushed): a heartbeat never says a cluster is observed past the oldest of them.
     */
    private final Map<ExecutorEvent, Instant> unacknowledged = new java.util.IdentityHashMap<>();
    /** Scripted: the next report matching it fails to send ({@link #loseNext}). */
    private java.util.function.Predicate<ExecutorEvent> loseNext = e -> false;
    /** A report's send failed for good since this (its clock): everything is reported again before a heartbeat. */
    private Optional<Instant> failedSince = Optional.empty();
    /**
     * Draws the lost reports on a stream of its own, so that the draws of every other fault, and so the scenarios of
     * the seeds found before this fault existed, stay as they were.
     */
    private final Random lossRnd;

    private final Random goneLossRnd;

    private boolean up;
    /** When the process went down, while it is. */
    private Instant downSince;
    /** Since the last crash, until a heartbeat is sent again; and the blind periods that ended. */
    private Instant blindSince;

    private final List<Instant[]> blind = new ArrayList<>();
    /** The periods the process was down, ended ones (for the checks: nothing it confirms can come then). */
    private final List<Instant[]> downtime = new ArrayList<>();

    private int generation;
    private int position;
    private boolean busy;
    private NodePoolDriver pools;
    private JobDriver jobs;
    private JobReports reports;
    /** Per GKE cluster, since when this process has watched it (a restart starts a gap-free watch anew). */
    private final Map<String, Instant> watchedSince = new LinkedHashMap<>();
    /** Per GKE cluster, as JobStatusReconciler watches: a moved clusters row has its old and its new one. */
    private final Map<String, ClusterTarget> watched = new LinkedHashMap<>();
    /**
     * The informers' caches per GKE cluster: the Jobs (by name) and pods as last seen, so that a Job that is no longer
     * there is a delete event with its last state, as a fabric8 informer gives it. Lost with the process.
     */
    private final Map<String, Map<String, JobView>> seenJobs = new LinkedHashMap<>();

    private final Map<String, List<PodView>> seenPods = new LinkedHashMap<>();
    /** The deleted Jobs per GKE cluster whose pods may still be terminating (the informers' memory). */
    private final Map<String, Set<String>> goneJobs = new LinkedHashMap<>();
    /** Scripted: events held back for a while before they reach the topic (reordering them). */
    private java.util.function.Predicate<ExecutorEvent> holdBack = e -> false;

    private Duration holdFor = Duration.ZERO;

    /** Events of the batch in hand since its last commit, published at the next (the flush before the commit). */
    private List<ExecutorEvent> buffer;

    SimExecutor(
            Loop loop,
            Random rnd,
            Random lossRnd,
            Random goneLossRnd,
            SimFleet fleet,
            Logs logs,
            Supplier<Faults> faults,
            Supplier<List<ClusterTarget>> registry,
            Duration clockOffset) {
        this.loop = loop;
        this.rnd = rnd;
        this.fleet = fleet;
        this.logs = logs;
        this.faults = faults;
        this.registry = registry;
        this.clock = java.time.Clock.offset(loop.clock(), clockOffset);
        this.events = new Events("executor", clock);
        this.lossRnd = lossRnd;
        this.goneLossRnd = goneLossRnd;
        this.laneRnd = new Random(goneLossRnd.nextLong() ^ 0x1A4E5L);
    }

    /**
     * The order in which the lanes of a segment happen to run (CommandConsumer carries them out at once on its lane
     * threads): a random merge that keeps each lane's order, on a stream of its own.
     */
    private final Random laneRnd;

    boolean up() {
        return up;
    }

    /** Commands not yet committed. */
    boolean idle() {
        return logs.commandsCommitted == logs.commands.size();
    }

    void start() {
        if (downSince != null) {
            downtime.add(new Instant[] {downSince, loop.now()});
            downSince = null;
        }
        up = true;
        generation++;
        int gen = generation;
        position = logs.commandsCommitted;
        busy = false;
        buffer = null;
        watched.clear();
        watchedSince.clear();
        unacknowledged.clear();
        failedSince = Optional.empty();
        seenJobs.clear();
        seenPods.clear();
        goneJobs.clear();
        PoolReconciler reconciler =
                new PoolReconciler(SETTINGS, events, rnd::nextDouble, io.falcon.executor.core.Ownership.DEFAULT);
        pools = new NodePoolDriver(fleet, fleet, reconciler, this::emit, events);
        jobs = new JobDriver(fleet, this::emit, events, io.falcon.executor.core.Ownership.DEFAULT);
        reports = new JobReports(events, Duration.ofMinutes(2));
        // The clusters registry is read from its beginning: informers and a first inventory of every cluster.
        registry.get().forEach(this::discover);
        every(POLL, gen, () -> pools.tick(clock.instant()));
        every(INFORMER, gen, this::informers);
        every(INVENTORY, gen, this::inventories);
        every(HEARTBEAT, gen, this::heartbeat);
        wake();
    }

    /** The process dies now: what it held in memory and had not published is lost. */
    void crash(Duration down) {
        if (!up) {
            return;
        }
        up = false;
        downSince = loop.now();
        if (blindSince == null) {
            blindSince = loop.now();
        }
        generation++;
        buffer = null;
        loop.after(down, this::start);
    }

    /**
     * How long the process was down between {@code from} and {@code to}: the Kubernetes Job deletion that ends an
     * abort or a timeout (Aborting until it is confirmed) cannot be carried out or confirmed then.
     */
    /** How many times the process went down between the two instants (each restart watches its clusters anew). */
    int restartsBetween(Instant from, Instant to) {
        List<Instant> starts = new ArrayList<>(downtime.stream().map(p -> p[0]).toList());
        if (downSince != null) {
            starts.add(downSince);
        }
        return (int) starts.stream()
                .filter(at -> !at.isBefore(from) && !at.isAfter(to))
                .count();
    }

    Duration downBetween(Instant from, Instant to) {
        Duration total = Duration.ZERO;
        List<Instant[]> periods = new ArrayList<>(downtime);
        if (downSince != null) {
            periods.add(new Instant[] {downSince, loop.now()});
        }
        for (Instant[] period : periods) {
            Instant start = period[0].isAfter(from) ? period[0] : from;
            Instant end = period[1].isBefore(to) ? period[1] : to;
            if (end.isAfter(start)) {
                total = total.plus(Duration.between(start, end));
            }
        }
        return total;
    }

    /**
     * How long, between the two instants, no heartbeat of a process that had watched since its start could be sent:
     * from each crash to the first heartbeat of the process that came after (a crash loop whose processes die before
     * their first heartbeat is blind all along). A deadline that passed then is judged once a process watches again.
     */
    Duration blindBetween(Instant from, Instant to) {
        Duration total = Duration.ZERO;
        List<Instant[]> periods = new ArrayList<>(blind);
        if (blindSince != null) {
            periods.add(new Instant[] {blindSince, loop.now()});
        }
        for (Instant[] period : periods) {
            Instant start = period[0].isAfter(from) ? period[0] : from;
            Instant end = period[1].isBefore(to) ? period[1] : to;
            if (end.isAfter(start)) {
                total = total.plus(Duration.between(start, end));
            }
        }
        return total;
    }

    /** New commands were committed: the next poll takes up to MAX_BATCH of them, carried out as one batch. */
    void wake() {
        if (!up || busy || position >= logs.commands.size()) {
            return;
        }
        busy = true;
        int gen = generation;
        loop.after(Duration.ofMillis(10 + rnd.nextInt(200)), () -> {
            if (gen != generation) {
                return;
            }
            int end = Math.min(logs.commands.size(), position + 1 + rnd.nextInt(MAX_BATCH));
            runBatch(List.copyOf(logs.commands.subList(position, end)));
        });
    }

    /**
     * The batch as CommandConsumer carries it out ({@link CommandBatch}'s plan): events are published and the
     * position committed at each Commit step; a crash after any command loses what was not committed.
     */
    private void runBatch(List<ExecutorCommand> batch) {
        int start = position;
        buffer = new ArrayList<>();
        List<Optional<ExecutorCommand>> commands =
                batch.stream().map(Optional::of).toList();
        List<Integer> segment = new ArrayList<>();
        for (CommandBatch.Step step : CommandBatch.plan(commands)) {
            if (step instanceof CommandBatch.Run run) {
                segment.add(run.index());
            } else if (step instanceof CommandBatch.Commit commit) {
                for (int index : interleaved(CommandBatch.lanes(segment, commands))) {
                    handle(batch.get(index));
                    if (faults.get().crashBeforeCommit() > 0
                            && rnd.nextDouble() < faults.get().crashBeforeCommit()) {
                        // Died after carrying out a command and before the commit: its events may or may not have
                        // gone out, and the batch's rest from the last commit is redelivered.
                        List<ExecutorEvent> done = buffer;
                        buffer = null;
                        if (rnd.nextBoolean()) {
                            done.forEach(this::publish);
                        }
                        crash(Duration.ofSeconds(1 + rnd.nextInt(60)));
                        return;
                    }
                }
                segment.clear();
                buffer.forEach(this::publish);
                buffer = new ArrayList<>();
                position = start + commit.through() + 1;
                logs.commandsCommitted = position;
            }
        }
        buffer = null;
        busy = false;
        wake();
    }

    /** One order the lanes may run in at once: each step takes the next command of a lane drawn at random. */
    private List<Integer> interleaved(List<List<Integer>> lanes) {
        List<java.util.ArrayDeque<Integer>> left = new ArrayList<>();
        lanes.forEach(lane -> left.add(new java.util.ArrayDeque<>(lane)));
        List<Integer> order = new ArrayList<>();
        while (!left.isEmpty()) {
            int pick = laneRnd.nextInt(left.size());
            order.add(left.get(pick).removeFirst());
            if (left.get(pick).isEmpty()) {
                left.remove(pick);
            }
        }
        return order;
    }

    private void handle(ExecutorCommand command) {
        discover(command.cluster());
        Instant now = clock.instant();
        if (command instanceof ExecutorCommand.EnsureNodePool c) {
            pools.ensure(c, now);
        } else if (command instanceof ExecutorCommand.EnsureNodePoolDeleted c) {
            pools.ensureDeleted(c, now);
        } else if (command instanceof ExecutorCommand.EnsureJob c) {
            jobs.ensure(c);
        } else if (command instanceof ExecutorCommand.EnsureJobDeleted c) {
            jobs.ensureDeleted(c);
        }
    }

    private void discover(ClusterTarget cluster) {
        ClusterTarget previous = watched.put(cluster.resourceName(), cluster);
        watchedSince.putIfAbsent(cluster.resourceName(), clock.instant());
        if (previous == null || !previous.equals(cluster)) {
            inventory(cluster);
        }
    }

    private void informers() {
        for (ClusterTarget cluster : List.copyOf(watched.values())) {
            List<PodView> pods = fleet.podViews(cluster);
            List<JobView> views = fleet.jobViews(cluster);
            Map<String, JobView> now = new LinkedHashMap<>();
            for (JobView job : views) {
                now.put(job.name(), job);
                List<PodView> own = pods.stream().filter(p -> p.belongsTo(job)).toList();
                reports.evaluate(cluster, job, own, pool -> nodeCount(cluster, pool), clock.instant())
                        .filter(report -> !lost())
                        .ifPresent(this::emit);
            }
            // the delete events: Jobs the cache had that are gone, with the state last seen
            Map<String, JobView> before = seenJobs.getOrDefault(cluster.resourceName(), Map.of());
            List<PodView> podsBefore = seenPods.getOrDefault(cluster.resourceName(), List.of());
            Set<String> deleted = goneJobs.computeIfAbsent(cluster.resourceName(), k -> new LinkedHashSet<>());
            for (JobView seen : before.values()) {
                if (!now.containsKey(seen.name())) {
                    // the delete event carries the Job's last state (a watch delivers every change before it)
                    Optional<SimFleet.Tombstone> last = fleet.tombstone(cluster, seen.name())
                            .filter(t -> t.job().uid().equals(seen.uid()));
                    JobView job = last.map(SimFleet.Tombstone::job).orElse(seen);
                    List<PodView> podsThen = last.map(SimFleet.Tombstone::pods).orElse(podsBefore);
                    // judged as it was when it went (the delete event's object), on this process's clock
                    Instant then = last.map(t -> t.at().plus(Duration.between(loop.now(), clock.instant())))
                            .orElse(clock.instant());
                    reports.gone(cluster, job, podsThen, false, then)
                            .filter(report -> !goneLost())
                            .ifPresent(this::emit);
                    deleted.add(seen.name());
                }
            }
            // the last pod of a deleted Job gone: JobDeleted at once (the informers' shortcut)
            Map<String, Long> unfinished = new LinkedHashMap<>();
            for (PodView pod : pods) {
                if (JobReports.unfinished(pod)) {
                    pod.jobName().ifPresent(name -> unfinished.merge(name, 1L, Long::sum));
                }
            }
            for (String name : List.copyOf(deleted)) {
                long left = unfinished.getOrDefault(name, 0L);
                if (left == 0) {
                    deleted.remove(name);
                }
                reports.podsGone(cluster, name, left)
                        .filter(report -> !goneLost())
                        .ifPresent(this::emit);
            }
            seenJobs.put(cluster.resourceName(), now);
            seenPods.put(cluster.resourceName(), pods);
        }
    }

    /**
     * A report of a Job's deletion is lost (as {@link #lost}), drawn on a stream of its own: these reports are newer
     * than the seeds' scenarios, whose other draws stay as they were. Its send failed as any other does: the
     * producer's callback tells the executor, and the heartbeat holds back until it has reported again.
     */
    private boolean goneLost() {
        double p = faults.get().lostReport();
        boolean lost = p > 0 && goneLossRnd.nextDouble() < p;
        if (lost) {
            sendFailed();
        }
        return lost;
    }

    /**
     * The informer's report is lost: its send failed for good, and the process stays up. The producer's callback
     * tells the executor so: it reports every Job's state again before its next heartbeat.
     */
    private boolean lost() {
        double p = faults.get().lostReport();
        boolean lost = p > 0 && lossRnd.nextDouble() < p;
        if (lost) {
            sendFailed();
        }
        return lost;
    }

    /** A send failed for good: the producer's callback tells the executor (the first failure's time is kept). */
    private void sendFailed() {
        if (failedSince.isEmpty()) {
            failedSince = Optional.of(clock.instant());
        }
    }

    /**
     * As ExecutorHeartbeats does: every Job of every watched cluster is evaluated again (after a failed send, with
     * the memory of what was reported forgotten, so everything is reported again), then the heartbeat says each
     * cluster is observed through the time the pass began, or the oldest send not yet acknowledged if older.
     */
    private void heartbeat() {
        if (blindSince != null) {
            blind.add(new Instant[] {blindSince, loop.now()});
            blindSince = null;
        }
        Instant passBegan = clock.instant();
        if (failedSince.isPresent()) {
            failedSince = Optional.empty();
            reports.forgetAll();
            reports.goneAgain(clock.instant()).forEach(this::emit);
        }
        informers();
        Instant through = passBegan;
        for (Instant sentAt : unacknowledged.values()) {
            if (sentAt.isBefore(through)) {
                through = sentAt;
            }
        }
        if (failedSince.isPresent() && failedSince.get().isBefore(through)) {
            through = failedSince.get();
        }
        Instant observed = through;
        List<ExecutorEvent.ClusterObserved> clusters = watched.values().stream()
                .map(c -> new ExecutorEvent.ClusterObserved(
                        c.resourceName(), observed, watchedSince.getOrDefault(c.resourceName(), observed)))
                .toList();
        // straight onto the topic: the producer keeps order, so it follows every report sent before it
        logs.appendEvent(new ExecutorEvent.Heartbeat(
                io.falcon.events.Meta.of("executor", clock.instant()), "", "", "", "executor-0", clusters));
    }

    /** The node informer's cache (JobStatusReconciler counts from it, not with an API call). */
    private Optional<io.falcon.executor.core.EdgeApi.NodeCount> nodeCount(ClusterTarget cluster, String pool) {
        return Optional.of(fleet.nodesSeen(cluster, pool));
    }

    private void inventories() {
        registry.get().forEach(c -> {
            watched.putIfAbsent(c.resourceName(), c);
            watchedSince.putIfAbsent(c.resourceName(), clock.instant());
        });
        watched.values().forEach(this::inventory);
    }

    private void inventory(ClusterTarget cluster) {
        try {
            pools.inventory(cluster);
        } catch (RuntimeException e) {
            // an API error: the next inventory tries again
        }
        emit(reports.inventory(cluster, fleet.jobViews(cluster), fleet.podViews(cluster)));
    }

    private void emit(ExecutorEvent event) {
        if (!up) {
            return;
        }
        if (loseNext.test(event)) {
            loseNext = e -> false;
            sendFailed();
            return;
        }
        if (buffer != null) {
            sent(event);
            buffer.add(event);
        } else {
            publish(event);
        }
    }

    /** The event was handed to the producer: not acknowledged until it is on the topic. */
    private void sent(ExecutorEvent event) {
        unacknowledged.putIfAbsent(event, clock.instant());
    }

    private void acknowledged(ExecutorEvent event, int gen) {
        if (gen == generation) {
            unacknowledged.remove(event);
        }
    }

    /** Scripted: the send of the next matching event fails for good (the process stays up, its callback told). */
    void loseNext(java.util.function.Predicate<ExecutorEvent> which) {
        loseNext = which;
    }

    /** Scripted: matching events reach the topic only after the delay, overtaken by later ones. */
    void holdBack(java.util.function.Predicate<ExecutorEvent> which, Duration delay) {
        holdBack = which;
        holdFor = delay;
    }

    /** Onto the events topic, duplicated or held back (and overtaken) as the faults say. */
    private void publish(ExecutorEvent event) {
        int gen = generation;
        if (holdBack.test(event)) {
            sent(event);
            loop.after(holdFor, () -> {
                logs.appendEvent(event);
                acknowledged(event, gen);
            });
            return;
        }
        Faults f = faults.get();
        if (f.delayEvent() > 0 && rnd.nextDouble() < f.delayEvent()) {
            sent(event);
            loop.after(Duration.ofSeconds(1 + rnd.nextInt(120)), () -> {
                logs.appendEvent(event);
                acknowledged(event, gen);
            });
        } else {
            logs.appendEvent(event);
            acknowledged(event, gen);
        }
        if (f.duplicateEvent() > 0 && rnd.nextDouble() < f.duplicateEvent()) {
            loop.after(Duration.ofSeconds(rnd.nextInt(30)), () -> logs.appendEvent(event));
        }
    }

    private void every(Duration period, int gen, Runnable action) {
        loop.after(period, () -> {
            if (gen != generation) {
                return;
            }
            action.run();
            every(period, gen, action);
        });
    }
}
