package io.falcon.executor.core;

import io.falcon.events.TpuSlice;
import io.falcon.events.TpuTopology;
import io.falcon.events.TpuType;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.Backoff;
import io.falcon.executor.Events;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.DoubleSupplier;

/**
 * The node-pool lifecycle as a pure transition function: (task, what GKE and Kubernetes show now, now) -> (task,
 * effects). The shell ({@link NodePoolDriver}) looks things up, calls {@link #decide}, performs the create or delete
 * RPC an effect asks for and feeds its outcome to {@link #afterCreate} / {@link #afterDelete}.
 *
 * <p>It decides from what GKE shows, never from what it remembers alone, so a restarted executor that is handed the
 * scheduler's re-sent command carries on from where the pool is:
 * <ul>
 *   <li>absent: create it (for a reservation, only when the reservation has a free slice, else ReservationShort;
 *       either way ReservationSeen says what the reservation's count and use were read as);
 *       within the create-visibility grace of this process's own create RPC, absent is "not visible yet";</li>
 *   <li>PROVISIONING / RECONCILING: wait, until the create timeout counted from the pool's falcon-created-at label
 *       (so a restart does not reset it);</li>
 *   <li>RUNNING: a flex-start pool is NodePoolReady at once: it gets its VMs only for the Job's pending pods (GKE's
 *       flex-start creates it from zero), so the Job must be submitted first and WaitingForNode is then derived from
 *       the pods ({@link JobReports}). Any other pool: count its nodes: all Ready is NodePoolReady, fewer is
 *       NodePoolWaitingForNodes once per change and no timeout (seed section 4: GKE keeps retrying; WaitingForNode
 *       survives restarts as WaitingForNode);</li>
 *   <li>ERROR, or a failed create operation: NodePoolCreateFailed with GKE's message.</li>
 * </ul>
 * A deletion asks until GKE no longer has the pool and then reports NodePoolDeleted; it never gives up.
 */
public final class PoolReconciler {

    /**
     * Timers of the lifecycle; see ExecutorConfig for the keys.
     *
     * @param scaleDown the consolidation delay a pool of each supply mode is created with: the autoscaler takes the
     *     nodes of a pool that have been unneeded that long
     */
    public record Settings(
            Duration createTimeout,
            Duration pollInterval,
            Duration visibilityGrace,
            Duration maxBackoff,
            int deleteFailuresReported,
            java.util.Map<SupplyMode, Duration> scaleDown) {
        /** With the default threshold of failed deletions before they are reported (5). */
        public Settings(Duration createTimeout, Duration pollInterval, Duration visibilityGrace, Duration maxBackoff) {
            this(createTimeout, pollInterval, visibilityGrace, maxBackoff, 5);
        }

        /** With the catalog's default consolidation delays. */
        public Settings(
                Duration createTimeout,
                Duration pollInterval,
                Duration visibilityGrace,
                Duration maxBackoff,
                int deleteFailuresReported) {
            this(
                    createTimeout,
                    pollInterval,
                    visibilityGrace,
                    maxBackoff,
                    deleteFailuresReported,
                    java.util.Map.of(
                            SupplyMode.RESERVATION,
                            io.falcon.events.config.ExecutorKeys.SCALE_DOWN_RESERVATION.defaultValue(),
                            SupplyMode.ON_DEMAND,
                            io.falcon.events.config.ExecutorKeys.SCALE_DOWN_ON_DEMAND.defaultValue(),
                            SupplyMode.FLEX_START,
                            io.falcon.events.config.ExecutorKeys.SCALE_DOWN_FLEX_START.defaultValue()));
        }

        public Settings {
            Objects.requireNonNull(createTimeout, "createTimeout");
            Objects.requireNonNull(pollInterval, "pollInterval");
            Objects.requireNonNull(visibilityGrace, "visibilityGrace");
            Objects.requireNonNull(maxBackoff, "maxBackoff");
            scaleDown = java.util.Map.copyOf(scaleDown);
        }
    }

    /** A lookup's answer: found, absent (NOT_FOUND), or no usable answer (with the error). */
    public sealed interface Lookup<T> {
        record Found<T>(T value) implements Lookup<T> {}

        record Missing<T>() implements Lookup<T> {}

        record Failed<T>(String error) implements Lookup<T> {}
    }

    /**
     * What the shell looked up for one decision: always the pool; the operation when the task has one; the nodes
     * when the pool is RUNNING ({@link #wantsNodes}); the reservation when a reservation pool must be created
     * ({@link #wantsCapacity}).
     */
    public record Facts(
            Lookup<GkeApi.PoolInfo> pool,
            Optional<Lookup<GkeApi.OperationInfo>> operation,
            Optional<Lookup<EdgeApi.NodeCount>> nodes,
            Optional<Lookup<GkeApi.Capacity>> capacity,
            Optional<Lookup<GkeApi.PoolOperations>> poolOperations) {

        /** Facts without the create-operation lookup (the pool was found, or it was not needed). */
        public Facts(
                Lookup<GkeApi.PoolInfo> pool,
                Optional<Lookup<GkeApi.OperationInfo>> operation,
                Optional<Lookup<EdgeApi.NodeCount>> nodes,
                Optional<Lookup<GkeApi.Capacity>> capacity) {
            this(pool, operation, nodes, capacity, Optional.empty());
        }
    }

    /** What the shell must do next. */
    public sealed interface Effect {
        /** Call createPool for the task's command, then {@link #afterCreate}. */
        record CreatePool() implements Effect {}

        /** Call deletePool, then {@link #afterDelete}. */
        record DeletePool() implements Effect {}

        record Emit(ExecutorEvent event) implements Effect {}
    }

    /** An RPC's outcome: accepted with an operation name, or refused. */
    public sealed interface RpcOutcome {
        record Accepted(String operation) implements RpcOutcome {}

        record Refused(ApiException.Kind kind, String message) implements RpcOutcome {}
    }

    /** The next task (done: forget it) and what to do. */
    public record Step(PoolTask task, List<Effect> effects) {
        public Step {
            effects = List.copyOf(effects);
        }
    }

    /**
     * How often a pool GKE keeps RECONCILING is reported as still in GKE's hands (well within the scheduler's
     * provisioning backstop, 15 min by default).
     */
    static final Duration WORD_INTERVAL = Duration.ofMinutes(5);

    private final Settings settings;
    private final Events events;
    private final Backoff backoff;
    private final DoubleSupplier random;
    private final Ownership ownership;

    public PoolReconciler(Settings settings, Events events, DoubleSupplier random, Ownership ownership) {
        this.settings = settings;
        this.events = events;
        this.ownership = ownership;
        Duration max = settings.maxBackoff().compareTo(settings.pollInterval()) < 0
                ? settings.pollInterval()
                : settings.maxBackoff();
        this.backoff = new Backoff(settings.pollInterval(), max);
        this.random = random;
    }

    public Settings settings() {
        return settings;
    }

    // ---- what to look up ----

    /** The task has nothing to do before its next attempt time. */
    public static boolean due(PoolTask task, Instant now) {
        return !now.isBefore(task.nextAttempt());
    }

    public static boolean wantsNodes(PoolTask task, GkeApi.PoolInfo pool) {
        return task.kind() == PoolTask.Kind.CREATE && running(pool.status()) && !nodesForPendingPods(task);
    }

    /**
     * A flex-start pool gets its VMs only for pending pods that select it (GKE's flex-start node pools start from
     * zero and scale up for the workload): its nodes are not waited for before the Job is submitted.
     */
    static boolean nodesForPendingPods(PoolTask task) {
        return task.create().map(c -> supplyMode(c) == SupplyMode.FLEX_START).orElse(false);
    }

    /** A reservation pool about to be created: its reservation's capacity is checked first (seed section 5). */
    public boolean wantsCapacity(PoolTask task, Instant now) {
        return task.kind() == PoolTask.Kind.CREATE
                && !withinGrace(task, now)
                && task.create()
                        .map(c -> supplyMode(c) == SupplyMode.RESERVATION)
                        .orElse(false);
    }

    // ---- decisions ----

    /** What proves a pool is this installation's. */
    public Ownership ownership() {
        return ownership;
    }

    public Step decide(PoolTask task, Facts facts, Instant now) {
        return task.kind() == PoolTask.Kind.CREATE ? decideCreate(task, facts, now) : decideDelete(task, facts, now);
    }

    private Step decideCreate(PoolTask task, Facts facts, Instant now) {
        if (facts.pool() instanceof Lookup.Failed<GkeApi.PoolInfo> failed) {
            // No answer says nothing of the pool: not a timeout (seed section 4), whatever its age; look again
            // (the lookup error is kept for the message of a later timeout, should GKE then show it still creating).
            return new Step(retryLater(task, failed.error(), now), List.of());
        }
        if (facts.pool() instanceof Lookup.Found<GkeApi.PoolInfo> found) {
            if (!ownership.ownsPool(found.value())) {
                // Someone else's pool under this name (another team's, another Falcon's): never adopted. The job
                // fails with what the pool says of its owner; its deletion leaves the pool alone (decideDelete).
                return fail(
                        task.with(b -> b.lastSeen = "node pool of another owner"),
                        false,
                        "a node pool named " + task.pool() + " already exists on cluster "
                                + task.cluster().clusterId() + " and is not this job's ("
                                + Ownership.ownerOf(
                                        found.value().labels(), found.value().creatorJobId())
                                + "): Falcon leaves it alone");
            }
            return createSeen(task, found.value(), facts, now);
        }
        // Absent.
        if (withinGrace(task, now) || (!task.seen() && recentCreate(facts, now))) {
            // Seed section 5: a flex-start pool may not be readable for a while after the create RPC returned.
            return waitFor(task.with(b -> b.lastSeen = "node pool not visible yet after create"), now);
        }
        Optional<String> opError = operationError(facts);
        if (opError.isPresent()) {
            Optional<Long> shortfall = reservationShortfall(task, opError.get());
            if (shortfall.isPresent()) {
                return shortOfReservation(task, shortfall.get(), List.of());
            }
            return fail(task, false, opError.get());
        }
        if (operationRunning(facts)) {
            return timedOutOrWait(task.with(b -> b.lastSeen = "create operation running, node pool not visible"), now);
        }
        if (!task.seen()
                && task.createdAt().filter(at -> !withinTimeout(at, now)).isPresent()) {
            return fail(task, true, "node pool " + task.pool() + " never became visible (" + task.lastSeen() + ")");
        }
        // Never created, or it existed and is gone (deleted under us): ask for it (again).
        PoolTask fresh = task.seen()
                ? task.with(b -> {
                    b.seen = false;
                    b.createdAt = Optional.empty();
                    b.operation = Optional.empty();
                })
                : task;
        if (!wantsCapacity(fresh, now)) {
            return new Step(fresh, List.of(new Effect.CreatePool()));
        }
        Lookup<GkeApi.Capacity> capacity = facts.capacity().orElse(new Lookup.Failed<>("reservation not looked up"));
        String reservation = fresh.create().flatMap(EnsureNodePool::reservation).orElse("");
        if (capacity instanceof Lookup.Missing<GkeApi.Capacity>) {
            return fail(
                    fresh,
                    false,
                    "reservation " + reservation + " not found in project "
                            + fresh.cluster().project() + " (" + fresh.cluster().location() + ")");
        }
        if (capacity instanceof Lookup.Failed<GkeApi.Capacity> failed) {
            return new Step(retryLater(fresh, "reservation lookup: " + failed.error(), now), List.of());
        }
        GkeApi.Capacity cap = ((Lookup.Found<GkeApi.Capacity>) capacity).value();
        // What was read, whether the pool fits or not: the fleet's reservation figures (the console) come from it.
        Effect seen = new Effect.Emit(
                events.reservationSeen(fresh.jobId(), fresh.cluster(), reservation, cap.count(), cap.inUse()));
        int hosts = expectedHosts(fresh, Optional.empty());
        if (cap.freeSlices(hosts) >= 1) {
            return new Step(fresh, List.of(seen, new Effect.CreatePool()));
        }
        Step shortage = shortOfReservation(fresh, cap.remaining(), List.of());
        List<Effect> effects = new java.util.ArrayList<>(List.of(seen));
        effects.addAll(shortage.effects());
        return new Step(shortage.task(), effects);
    }

    private Step createSeen(PoolTask task, GkeApi.PoolInfo pool, Facts facts, Instant now) {
        PoolTask seen = task.with(b -> {
            b.seen = true;
            b.createAcceptedAt = Optional.empty(); // visible: a later NOT_FOUND means gone
            b.createdAt = task.createdAt().or(pool::createdAt);
            b.lastSeen =
                    "node pool " + pool.status() + (pool.statusMessage().isEmpty() ? "" : ": " + pool.statusMessage());
        });
        Optional<String> opError = operationError(facts);
        Optional<String> error = opError.filter(e -> !running(pool.status()))
                .or(() -> pool.status() == GkeApi.PoolStatus.ERROR
                        ? Optional.of(pool.statusMessage().isEmpty() ? "node pool in ERROR" : pool.statusMessage())
                        : Optional.empty());
        if (error.isPresent()) {
            Optional<Long> shortfall = reservationShortfall(seen, error.get());
            if (shortfall.isPresent()) {
                // The failed pool goes, so that the same deterministic name can be asked for again once the
                // reservation has room; the scheduler re-sends the command every reservation-retry.
                return shortOfReservation(seen, shortfall.get(), List.of(new Effect.DeletePool()));
            }
            return fail(seen, false, error.get());
        }
        if (pool.status() == GkeApi.PoolStatus.STOPPING) {
            // Deleted under us (a failed pool of an earlier shortfall): create it again once it is gone.
            return waitFor(seen.with(b -> b.lastSeen = "node pool being deleted; asking again once it is gone"), now);
        }
        if (pool.status() != GkeApi.PoolStatus.PROVISIONING && !running(pool.status())) {
            // RECONCILING (GKE's auto-repair, an upgrade, a resize) or a state this client does not know: GKE is
            // working on a pool it has created, which is no creation running late. Watch it, without a deadline, and
            // say so now and then: the job waits on GKE, not on a silent executor.
            PoolTask watching = seen.with(b -> b.seenCreated = true);
            if (task.lastWord()
                    .filter(at -> now.isBefore(at.plus(WORD_INTERVAL)))
                    .isPresent()) {
                return waitFor(watching, now);
            }
            return new Step(
                    waitFor(watching.with(b -> b.lastWord = Optional.of(now)), now)
                            .task(),
                    List.of(new Effect.Emit(events.nodePoolCreating(task.jobId(), task.cluster(), task.pool()))));
        }
        if (!running(pool.status()) && seen.seenCreated()) {
            // PROVISIONING again after it was RUNNING or RECONCILING (GKE re-creating nodes): no creation timeout
            return waitFor(seen, now);
        }
        if (!running(pool.status())) {
            Step waiting = timedOutOrWait(seen, now); // PROVISIONING: GKE is creating it
            if (!task.seen() && waiting.effects().isEmpty()) {
                // First sight of a pool GKE is creating whose create answer this process never had (lost, or
                // given to a process that died): say it is being created, as an accepted create does, so that the
                // scheduler does not take the executor for silent.
                return new Step(
                        waiting.task(),
                        List.of(new Effect.Emit(events.nodePoolCreating(task.jobId(), task.cluster(), task.pool()))));
            }
            return waiting;
        }
        seen = seen.with(b -> b.seenCreated = true);
        if (nodesForPendingPods(seen)) {
            return new Step(
                    seen.with(b -> b.done = true),
                    List.of(new Effect.Emit(events.nodePoolReady(seen.jobId(), seen.cluster(), seen.pool()))));
        }
        int expected = expectedHosts(seen, Optional.of(pool));
        Lookup<EdgeApi.NodeCount> nodes = facts.nodes().orElse(new Lookup.Failed<>("nodes not counted"));
        if (!(nodes instanceof Lookup.Found<EdgeApi.NodeCount> found)) {
            String why = nodes instanceof Lookup.Failed<EdgeApi.NodeCount> f ? f.error() : "no nodes";
            return waitFor(seen.with(b -> b.lastSeen = "control plane RUNNING, cannot count nodes: " + why), now);
        }
        EdgeApi.NodeCount count = found.value();
        if (scaledToZero(seen, count, now)) {
            // The autoscaler took the slice back while it waited for its last node (its nodes were unneeded, no
            // pods on them, for the consolidation delay): nothing would bring it back but pending pods. The pool is
            // ready as a flex-start one is: the Job is submitted, its pods' wait is WaitingForNode, and the slice
            // comes back for them.
            return new Step(
                    seen.with(b -> {
                        b.done = true;
                        b.lastSeen = "control plane RUNNING, its nodes scaled down to 0 while it waited";
                    }),
                    List.of(new Effect.Emit(events.nodePoolReady(seen.jobId(), seen.cluster(), seen.pool()))));
        }
        if (count.ready() >= expected) {
            return new Step(
                    seen.with(b -> b.done = true),
                    List.of(new Effect.Emit(events.nodePoolReady(seen.jobId(), seen.cluster(), seen.pool()))));
        }
        PoolTask counting = seen.with(b -> {
            b.lastSeen = "control plane RUNNING, " + count.registered() + "/" + expected + " node(s) registered, "
                    + count.ready() + " Ready";
            b.lastNodes = Optional.of(count);
            b.attempts = 0;
            b.nextAttempt = now.plus(settings.pollInterval());
        });
        if (seen.lastNodes().filter(count::equals).isPresent()) {
            return new Step(counting, List.of());
        }
        return new Step(
                counting,
                List.of(new Effect.Emit(events.nodePoolWaitingForNodes(
                        seen.jobId(), seen.cluster(), seen.pool(), count.registered(), count.ready(), expected))));
    }

    /**
     * A reservation or on-demand pool (autoscaled, total min 0) that has no node while it waits for them: scaled to
     * zero by the autoscaler, if this task had counted nodes of it before; or, after a restart, if it is older than
     * its create timeout and its supply mode's consolidation delay together (nodes that registered and sat unneeded
     * that long are gone; a pool that never got one by then waits the same way for its Job's pending pods).
     */
    boolean scaledToZero(PoolTask task, EdgeApi.NodeCount count, Instant now) {
        if (count.registered() > 0) {
            return false;
        }
        if (task.lastNodes().filter(n -> n.registered() > 0).isPresent()) {
            return true;
        }
        Duration delay = task.create()
                .map(c -> settings.scaleDown().getOrDefault(supplyMode(c), Duration.ofMinutes(10)))
                .orElse(Duration.ofMinutes(10));
        return task.createdAt()
                .filter(at -> !now.isBefore(at.plus(settings.createTimeout()).plus(delay)))
                .isPresent();
    }

    private Step decideDelete(PoolTask task, Facts facts, Instant now) {
        if (facts.pool() instanceof Lookup.Failed<GkeApi.PoolInfo> failed) {
            return new Step(retryLater(task, failed.error(), now), List.of());
        }
        if (facts.pool() instanceof Lookup.Found<GkeApi.PoolInfo> found && !ownership.ownsPool(found.value())) {
            // Not this installation's: this job's pool is not there, and the one that is stays as it is.
            return new Step(
                    task.with(b -> {
                        b.done = true;
                        b.lastSeen = "node pool of another owner ("
                                + Ownership.ownerOf(
                                        found.value().labels(), found.value().creatorJobId())
                                + "), left alone";
                    }),
                    List.of(new Effect.Emit(events.nodePoolDeleted(task.jobId(), task.cluster(), task.pool()))));
        }
        if (facts.pool() instanceof Lookup.Missing<GkeApi.PoolInfo>) {
            if (withinGrace(task, now) || (!task.seen() && recentCreate(facts, now))) {
                // Created moments ago by this process and not visible yet (flex-start): delete it once it shows.
                return waitFor(task.with(b -> b.lastSeen = "node pool not visible yet; deleting it once it is"), now);
            }
            return new Step(
                    task.with(b -> b.done = true),
                    List.of(new Effect.Emit(events.nodePoolDeleted(task.jobId(), task.cluster(), task.pool()))));
        }
        GkeApi.PoolInfo pool = ((Lookup.Found<GkeApi.PoolInfo>) facts.pool()).value();
        PoolTask seen = task.with(b -> {
            b.seen = true;
            b.createAcceptedAt = Optional.empty();
            b.lastSeen =
                    "node pool " + pool.status() + (pool.statusMessage().isEmpty() ? "" : ": " + pool.statusMessage());
        });
        if (pool.status() == GkeApi.PoolStatus.STOPPING || operationRunning(facts)) {
            return waitFor(seen, now); // our delete (or someone's) is under way
        }
        Optional<String> opError = operationError(facts);
        if (opError.isPresent()) {
            // Our delete operation failed and the pool is still there: ask again, with backoff.
            PoolTask again = retryLater(
                    seen.with(b -> b.operation = Optional.empty()), "delete operation failed: " + opError.get(), now);
            return deleteFailed(again);
        }
        return new Step(seen, List.of(new Effect.DeletePool()));
    }

    // ---- RPC outcomes ----

    public Step afterCreate(PoolTask task, RpcOutcome outcome, Instant now) {
        if (outcome instanceof RpcOutcome.Accepted accepted) {
            Step waiting = waitFor(
                    task.with(b -> {
                        b.operation = Optional.of(accepted.operation());
                        b.createAcceptedAt = Optional.of(now);
                        b.createdAt = Optional.of(task.createdAt().orElse(now));
                        b.attempts = 0;
                        b.lastSeen = "create requested (operation " + accepted.operation() + ")";
                    }),
                    now);
            return new Step(
                    waiting.task(),
                    List.of(new Effect.Emit(events.nodePoolCreating(task.jobId(), task.cluster(), task.pool()))));
        }
        RpcOutcome.Refused refused = (RpcOutcome.Refused) outcome;
        return switch (refused.kind()) {
            // Someone (an earlier delivery of the command) created it: watch it from the next look.
            case ALREADY_EXISTS -> new Step(task.with(b -> b.lastSeen = "node pool already exists"), List.of());
            case TRANSIENT, FAILED_PRECONDITION -> {
                PoolTask again = retryLater(task, refused.message(), now);
                if (refused.kind() == ApiException.Kind.TRANSIENT
                        && task.create()
                                .map(c -> supplyMode(c) == SupplyMode.FLEX_START)
                                .orElse(false)) {
                    // No answer is not "no": GKE may have accepted the create, and a flex-start pool can stay
                    // invisible for a while. Until the grace is over, its absence proves nothing (a delete waits).
                    // A FAILED_PRECONDITION is a refusal: nothing was created.
                    again = again.with(b -> b.createAcceptedAt = Optional.of(b.createAcceptedAt.orElse(now)));
                }
                yield timedOutOrWait(again, now);
            }
            default ->
                reservationShortfall(task, refused.message())
                        .map(remaining -> shortOfReservation(task, remaining, List.of()))
                        .orElseGet(() -> fail(task, false, refused.message()));
        };
    }

    public Step afterDelete(PoolTask task, RpcOutcome outcome, Instant now) {
        if (outcome instanceof RpcOutcome.Accepted accepted) {
            return waitFor(
                    task.with(b -> {
                        b.operation = Optional.of(accepted.operation());
                        b.attempts = 0;
                        b.lastSeen = "delete requested (operation " + accepted.operation() + ")";
                    }),
                    now);
        }
        RpcOutcome.Refused refused = (RpcOutcome.Refused) outcome;
        if (refused.kind() == ApiException.Kind.NOT_FOUND) {
            // Gone already, or not visible yet: the next look decides.
            return new Step(task.with(b -> b.lastSeen = "not found on delete"), List.of());
        }
        // Being created or deleted by another operation, an outage, or a refusal: a pool must not leak, so keep
        // asking, with backoff.
        PoolTask again = retryLater(task, refused.message(), now);
        return refused.kind() == ApiException.Kind.FAILED_PRECONDITION
                ? new Step(again, List.of())
                : deleteFailed(again);
    }

    /**
     * One more failed deletion; when the count reaches the threshold it is reported once (seed error table: retry,
     * and if it finally fails append to the Message). The retries go on.
     */
    private Step deleteFailed(PoolTask task) {
        PoolTask counted = task.with(b -> b.deleteFailures = b.deleteFailures + 1);
        if (counted.deleteFailures() != settings.deleteFailuresReported()) {
            return new Step(counted, List.of());
        }
        return new Step(
                counted,
                List.of(new Effect.Emit(events.nodePoolDeleteFailing(
                        counted.jobId(),
                        counted.cluster(),
                        counted.pool(),
                        counted.deleteFailures(),
                        counted.lastSeen()))));
    }

    // ---- helpers ----

    /**
     * GKE refused or failed a reservation pool because the reservation had no room when the VMs were to come up (the
     * capacity read before the create can be stale: another queue's pool took the slice in between). That is the
     * seed's ClusterBusy, not a failure: the remaining slices it names, if any.
     */
    static Optional<Long> reservationShortfall(PoolTask task, String error) {
        boolean reservationPool =
                task.create().map(c -> supplyMode(c) == SupplyMode.RESERVATION).orElse(false);
        String lower = error.toLowerCase(java.util.Locale.ROOT);
        if (!reservationPool
                || !lower.contains("reservation")
                || lower.contains("quota")
                || !(lower.contains("enough available capacity")
                        || lower.contains("insufficient capacity")
                        || lower.contains("resource_exhausted"))) {
            return Optional.empty();
        }
        java.util.regex.Matcher available = AVAILABLE.matcher(error);
        return Optional.of(available.find() ? Long.parseLong(available.group(1)) : 0L);
    }

    private static final java.util.regex.Pattern AVAILABLE = java.util.regex.Pattern.compile("available (\\d+)");

    /** ReservationShort for the scheduler (ClusterBusy), then {@code more}; the task is done. */
    private Step shortOfReservation(PoolTask task, long remaining, List<Effect> more) {
        String reservation = task.create().flatMap(EnsureNodePool::reservation).orElse("");
        ExecutorEvent shortage = events.reservationShort(
                task.jobId(),
                task.cluster(),
                task.pool(),
                reservation,
                (int) Math.min(Integer.MAX_VALUE, remaining),
                expectedHosts(task, Optional.empty()),
                task.create().map(c -> c.meta().eventId()).orElse(""));
        List<Effect> effects = new java.util.ArrayList<>(more);
        effects.add(0, new Effect.Emit(shortage));
        return new Step(task.with(b -> b.done = true), effects);
    }

    private Step fail(PoolTask task, boolean timedOut, String message) {
        ExecutorEvent failed = events.nodePoolCreateFailed(
                task.jobId(),
                task.cluster(),
                task.pool(),
                timedOut,
                timedOut ? settings.createTimeout().toSeconds() : 0,
                message);
        return new Step(task.with(b -> b.done = true), List.of(new Effect.Emit(failed)));
    }

    /** Creation not RUNNING within the create timeout, counted from when the pool was asked for. */
    private Step timedOutOrWait(PoolTask task, Instant now) {
        Optional<Instant> asked = task.createdAt();
        if (asked.isPresent() && !withinTimeout(asked.get(), now)) {
            return fail(task, true, "node pool " + task.pool() + " not RUNNING (" + task.lastSeen() + ")");
        }
        return waitFor(task, now);
    }

    private boolean withinTimeout(Instant asked, Instant now) {
        return now.isBefore(asked.plus(settings.createTimeout()));
    }

    private Step waitFor(PoolTask task, Instant now) {
        Instant next = now.plus(settings.pollInterval());
        return new Step(task.with(b -> b.nextAttempt = b.nextAttempt.isAfter(next) ? b.nextAttempt : next), List.of());
    }

    private PoolTask retryLater(PoolTask task, String error, Instant now) {
        int attempts = task.attempts() + 1;
        Duration delay = backoff.delay(attempts, random);
        return task.with(b -> {
            b.attempts = attempts;
            b.nextAttempt = now.plus(delay);
            b.lastSeen = error;
        });
    }

    private boolean withinGrace(PoolTask task, Instant now) {
        return task.createAcceptedAt()
                .filter(at -> now.isBefore(at.plus(settings.visibilityGrace())))
                .isPresent();
    }

    /**
     * GKE lists a create operation of the pool started within the visibility grace (an unknown answer counts as
     * one: better to look again than to report a pool gone that is only invisible). Only asked about a pool this
     * task has not seen: once seen (or deleted by it), its absence means it is gone.
     */
    private boolean recentCreate(Facts facts, Instant now) {
        return facts.poolOperations()
                .map(lookup -> {
                    if (lookup instanceof Lookup.Found<GkeApi.PoolOperations> found) {
                        return found.value().createdRecently(now, settings.visibilityGrace());
                    }
                    return lookup instanceof Lookup.Failed<GkeApi.PoolOperations>;
                })
                .orElse(false);
    }

    private static Optional<String> operationError(Facts facts) {
        return facts.operation()
                .flatMap(op ->
                        op instanceof Lookup.Found<GkeApi.OperationInfo> f ? Optional.of(f.value()) : Optional.empty())
                .filter(GkeApi.OperationInfo::done)
                .flatMap(GkeApi.OperationInfo::error);
    }

    private static boolean operationRunning(Facts facts) {
        return facts.operation()
                .filter(op -> op instanceof Lookup.Found<GkeApi.OperationInfo> f
                        && !f.value().done())
                .isPresent();
    }

    static boolean running(GkeApi.PoolStatus status) {
        return status == GkeApi.PoolStatus.RUNNING || status == GkeApi.PoolStatus.RUNNING_WITH_ERROR;
    }

    /** VMs (nodes) of the slice: from the command's TPU type and topology, else the pool's node count, else 1. */
    static int expectedHosts(PoolTask task, Optional<GkeApi.PoolInfo> pool) {
        return task.create()
                .flatMap(c -> TpuType.fromWire(c.tpuType())
                        .flatMap(type -> TpuTopology.parse(c.topology()).flatMap(type::slice)))
                .map(TpuSlice::vms)
                .or(() -> pool.map(GkeApi.PoolInfo::expectedHosts).filter(n -> n > 0))
                .orElse(1);
    }

    static SupplyMode supplyMode(EnsureNodePool command) {
        return command.supplyMode() == null ? SupplyMode.FLEX_START : command.supplyMode();
    }
}
