package io.falcon.simulation;

import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.TaskStatus;
import io.falcon.scheduler.core.Decisions;
import io.falcon.scheduler.core.Scheduler;
import io.falcon.scheduler.core.SchedulerSettings;
import io.falcon.scheduler.core.SchedulerStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * The scheduler's stream task in the simulation, with Kafka Streams' exactly-once semantics: the real {@link
 * Scheduler} reads the input and executor-event logs (interleaved at random, each in order), writes its changes to a
 * working copy of its stores, and its outputs become visible only when the transaction commits, together with the
 * stores and the input positions. A crash before the commit loses all three; the restarted task is rebuilt from
 * the committed stores through {@link SchedulerStore#restore}, as SchedulerProcessor rebuilds from its changelogs.
 */
final class SimScheduler {
    static final Duration TICK = Duration.ofSeconds(1);

    private final Loop loop;
    private final Random rnd;
    private final Logs logs;
    private final SchedulerSettings settings;
    private final Checks checks;

    private MapStore committed = new MapStore();
    private MapStore working = new MapStore();
    private Scheduler core;
    private boolean up;
    private int generation;
    private boolean inTransaction;
    private int inputsCommitted;
    private int eventsCommitted;
    private int inputs;
    private int events;
    private final List<ExecutorCommand> outCommands = new ArrayList<>();
    private final List<TaskStatus> outStatuses = new ArrayList<>();
    private Instant tickAt = Instant.MAX;
    /** How far the scheduler's clock is off true time: every time the core is given is on its clock. */
    private final Duration clockOffset;

    SimScheduler(Loop loop, Random rnd, Logs logs, SchedulerSettings settings, Checks checks, Duration clockOffset) {
        this.clockOffset = clockOffset;
        this.loop = loop;
        this.rnd = rnd;
        this.logs = logs;
        this.settings = settings;
        this.checks = checks;
    }

    /** When the task went down or stalled, while it is; and the periods it was, for the checks. */
    private Instant downSince;

    private final List<Instant[]> downtime = new ArrayList<>();

    /** How long the task was down or stalled between the two instants (true time). */
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

    /** How many times the task went down or stalled between the two instants (each restart forgets its memory). */
    int restartsBetween(Instant from, Instant to) {
        List<Instant> starts = new ArrayList<>(downtime.stream().map(p -> p[0]).toList());
        if (downSince != null) {
            starts.add(downSince);
        }
        return (int) starts.stream()
                .filter(at -> !at.isBefore(from) && !at.isAfter(to))
                .count();
    }

    /** The committed state (what a restart would see): for the checks. */
    MapStore committed() {
        return committed;
    }

    Scheduler core() {
        return core;
    }

    boolean up() {
        return up;
    }

    /** Everything committed has been read and nothing is in flight. */
    boolean idle() {
        return up && !inTransaction && inputsCommitted == logs.inputs.size() && eventsCommitted == logs.events.size();
    }

    void start() {
        start(false);
    }

    private void start(boolean timersFirst) {
        if (downSince != null) {
            downtime.add(new Instant[] {downSince, loop.now()});
            downSince = null;
        }
        up = true;
        generation++;
        // The core reads and writes its retired store directly (as the processor does its window store): it must be
        // the working copy's, so that what it retires is committed with the transaction.
        working = committed.roundTrip();
        core = SchedulerStore.restore(working.store(), settings);
        inputs = inputsCommitted;
        events = eventsCommitted;
        inTransaction = false;
        tickAt = Instant.MAX;
        if (timersFirst) {
            tickFirst(); // its commit reads on
            return;
        }
        scheduleTick();
        wake();
    }

    /** The task dies: its open transaction is aborted, and it comes back after the downtime. */
    void crash(Duration down) {
        if (!up) {
            return;
        }
        up = false;
        downSince = loop.now();
        generation++;
        outCommands.clear();
        pendingSwitches.clear();
        outStatuses.clear();
        inTransaction = false;
        loop.after(down, this::start);
    }

    /**
     * The task stops for a while (a long pause, a broker it cannot reach, a crash loop): its open transaction is
     * aborted, and when it comes back it fires its due timers before it reads anything, as a Kafka Streams thread
     * may punctuate before it has processed the backlog its first poll did not return.
     */
    void stall(Duration stalled) {
        if (!up) {
            return;
        }
        up = false;
        downSince = loop.now();
        generation++;
        outCommands.clear();
        pendingSwitches.clear();
        outStatuses.clear();
        inTransaction = false;
        loop.after(stalled, () -> start(true));
    }

    /** One tick before any input is read; its commit goes on to read. */
    private void tickFirst() {
        int gen = generation;
        inTransaction = true;
        step("tick", () -> core.tick(now()));
        loop.after(Duration.ofMillis(10 + rnd.nextInt(100)), () -> {
            if (gen == generation) {
                commit();
            }
        });
    }

    /** Something new to read: start a transaction soon, unless one is open. */
    void wake() {
        if (!up || inTransaction || (inputs == logs.inputs.size() && events == logs.events.size())) {
            return;
        }
        inTransaction = true;
        int gen = generation;
        loop.after(Duration.ofMillis(1 + rnd.nextInt(50)), () -> {
            if (gen == generation) {
                processBatch(gen);
            }
        });
    }

    private void processBatch(int gen) {
        int batch = 1 + rnd.nextInt(5);
        for (int i = 0; i < batch; i++) {
            boolean haveInput = inputs < logs.inputs.size();
            boolean haveEvent = events < logs.events.size();
            if (!haveInput && !haveEvent) {
                break;
            }
            boolean takeInput = haveInput && (!haveEvent || inputFirst());
            if (takeInput) {
                Logs.Input input = logs.inputs.get(inputs++);
                step("input " + input, () -> apply(input));
            } else {
                ExecutorEvent event = logs.events.get(events++);
                step(
                        "event " + event.getClass().getSimpleName() + " " + event.jobId(),
                        () -> core.observe(event, now()));
            }
        }
        // commit.interval: the transaction commits a moment later (a crash before then aborts it)
        loop.after(Duration.ofMillis(10 + rnd.nextInt(100)), () -> {
            if (gen == generation) {
                commit();
            }
        });
    }

    /** The scheduler's clock. */
    private Instant now() {
        return loop.now().plus(clockOffset);
    }

    /**
     * Both topics have records waiting: a Kafka Streams task takes the one with the smaller timestamp, so a backlog
     * is read in the order it was written; records within the fetch jitter of each other come in either order.
     */
    private boolean inputFirst() {
        Instant input = logs.inputTimes.get(inputs);
        Instant event = logs.eventTimes.get(events);
        Duration apart = Duration.between(input, event).abs();
        return apart.compareTo(FETCH_JITTER) > 0 ? input.isBefore(event) : rnd.nextBoolean();
    }

    /** How far apart two records' timestamps may be and still come in either order (what each fetch returned). */
    static final Duration FETCH_JITTER = Duration.ofSeconds(2);

    /**
     * Each retry switch as a step applied it: the number of commands logged before it, and whether retries were on
     * after it; committed with the transaction that applied it (a crash before loses it, as it loses the store).
     */
    final java.util.List<int[]> retrySwitches = new java.util.ArrayList<>();

    private final java.util.List<int[]> pendingSwitches = new java.util.ArrayList<>();

    private Decisions apply(Logs.Input input) {
        Instant now = now();
        if (input instanceof Logs.Submit s) {
            return core.submit(s.request(), now);
        } else if (input instanceof Logs.Rewrite r) {
            return core.rewrite(r.jobId(), r.written(), now);
        } else if (input instanceof Logs.Reprioritize r) {
            return core.reprioritize(r.jobId(), r.priority(), now);
        } else if (input instanceof Logs.Abort a) {
            return core.abort(a.jobId(), now);
        } else if (input instanceof Logs.ClusterUpsert u) {
            return core.clusterUpserted(u.row(), now);
        } else if (input instanceof Logs.FaultNoted f) {
            return core.faultNoted(f.verdict(), now);
        } else if (input instanceof Logs.RetriesSwitched r) {
            // from the next command on, decided with the switch as it now is (the checks read where it began)
            pendingSwitches.add(new int[] {
                logs.commands.size() + outCommands.size(), r.value().enabled() ? 1 : 0
            });
            return core.retriesSwitched(r.value(), now);
        }
        return core.clusterRemoved(((Logs.ClusterRemove) input).clusterId(), now);
    }

    private interface Step {
        Decisions run();
    }

    /** One processor call: the checks before and after, and on an exception a dead letter and a rebuild. */
    private void step(String what, Step step) {
        Checks.Before before = checks.before(core);
        Decisions decisions;
        try {
            decisions = step.run();
        } catch (RuntimeException e) {
            if (System.getenv("FALCON_SIM_TRACE_THROWS") != null) {
                e.printStackTrace();
            }
            checks.violation("scheduler threw on " + what + " at " + loop.now() + ": " + e);
            core = SchedulerStore.restore(working.store(), settings); // as SchedulerProcessor.rebuild()
            return;
        }
        SchedulerStore.persist(core, decisions, working.store());
        outCommands.addAll(decisions.commands());
        outStatuses.addAll(decisions.statuses());
        checks.after(before, core, what, loop.now());
    }

    private void commit() {
        committed = working.copy();
        inputsCommitted = inputs;
        eventsCommitted = events;
        logs.commit(List.copyOf(outCommands), List.copyOf(outStatuses));
        retrySwitches.addAll(pendingSwitches);
        pendingSwitches.clear();
        outCommands.clear();
        outStatuses.clear();
        inTransaction = false;
        scheduleTick();
        wake();
    }

    /** The wall-clock punctuator, run only when a timer is due (it would find nothing to do otherwise). */
    private void scheduleTick() {
        if (!up) {
            return;
        }
        Optional<Instant> due = core.nextTimer();
        if (due.isEmpty()) {
            return;
        }
        Instant next = due.get().minus(clockOffset); // the core's timers are on the scheduler's clock
        Instant at = next.isBefore(loop.now()) ? loop.now() : next;
        long ms = at.toEpochMilli();
        at = Instant.ofEpochMilli(ms - Math.floorMod(ms, TICK.toMillis()) + TICK.toMillis());
        if (!at.isBefore(tickAt) && tickAt.isAfter(loop.now())) {
            return;
        }
        tickAt = at;
        int gen = generation;
        loop.at(at, () -> {
            if (gen != generation) {
                return;
            }
            tickAt = Instant.MAX;
            if (inTransaction) {
                loop.after(Duration.ofMillis(200), this::scheduleTick);
                return;
            }
            inTransaction = true;
            step("tick", () -> core.tick(now()));
            loop.after(Duration.ofMillis(10 + rnd.nextInt(100)), () -> {
                if (gen == generation) {
                    commit();
                }
            });
        });
    }
}
