package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.decision.Decision;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Intake and placement (seed section 3): a submitted request is validated (an invalid one fails at once, naming the
 * field), and a valid job is given a cluster of its TPU type ({@link ClusterChoice}) and put in that (cluster,
 * topology) queue, or parked until an active cluster offers its type. Jobs that have not started are placed again
 * when clusters come, go or change.
 */
final class Placement {
    private final SchedulerState state;
    private final QueueSlots slots;

    private final UpperWrites upperWrites;

    Placement(SchedulerState state, QueueSlots slots, UpperWrites upperWrites) {
        this.upperWrites = upperWrites;
        this.state = state;
        this.slots = slots;
    }

    void submit(JobRequest request, boolean rowWrittenByFalcon, Instant now, Decisions out) {
        if (state.known(request.id(), now)) {
            // a redelivered or snapshotted submission of a job already known (live, or finished and retained) is a
            // duplicate; a different request under the id is answered with the job's status, saying the id is taken
            upperWrites.reusedId(request, now, out);
            return;
        }
        if (rowWrittenByFalcon) {
            // Falcon took this job and has forgotten it, which it does only to jobs that ended: it is never run
            // again. The answer is version 1, so the status-sink writes it only over a row it holds no newer status
            // of; the lagging sink's own writes finish any other row.
            upperWrites.forgottenJobSnapshotted(request.id(), now, out);
            return;
        }
        RequestValidator.Result result = RequestValidator.validate(request, state.settings.admission());
        if (result instanceof RequestValidator.Invalid invalid) {
            out.publish(new TaskStatus(
                    SchedulerState.meta(now),
                    request.id(),
                    1,
                    Status.Failed,
                    Optional.of(Reason.InvalidSpec),
                    invalid.message(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of(now),
                    Optional.empty(),
                    Optional.empty()));
        } else if (result instanceof RequestValidator.Valid valid) {
            Optional<String> overCap = state.overLiveJobCap(request.actor());
            if (overCap.isPresent()) {
                // ended at once, and retired like any finished job: a redelivery of its INSERT, once the count has
                // dropped, is a duplicate and does not run a job whose row says Failed
                ScheduledJob refused = ScheduledJob.accepted(valid.request()).enter(Phase.DONE, now);
                state.publishEnd(refused, Status.Failed, Optional.of(Reason.TooManyJobs), overCap.get(), now, out);
                return;
            }
            ScheduledJob job = ScheduledJob.accepted(valid.request());
            state.put(job);
            place(job, now, out);
        }
    }

    /** Places one job; the queue it joins may start it at once, and it is told its position. */
    private void place(ScheduledJob job, Instant now, Decisions out) {
        placeOnly(job, now, out).ifPresent(key -> {
            boolean told = slots.refreshPositions(key, now, out).contains(job.id());
            slots.startNext(key, now, out);
            if (!told && state.jobs.get(job.id()).phase() == Phase.WAITING) {
                slots.tellDeepPosition(state.jobs.get(job.id()), key, now, out);
            }
        });
    }

    /**
     * Places many jobs (oldest first), then gives each touched queue's free slot by the pick rule over everything
     * now waiting there, so that the order the jobs were placed in does not decide who starts.
     */
    void placeAll(List<ScheduledJob> waiting, Instant now, Decisions out) {
        waiting.sort(ScheduledJob.SUBMISSION_ORDER);
        Map<QueueKey, List<String>> placedIn = new HashMap<>();
        for (ScheduledJob job : waiting) {
            placeOnly(state.jobs.get(job.id()), now, out)
                    .ifPresent(key -> placedIn.computeIfAbsent(key, k -> new ArrayList<>())
                            .add(job.id()));
        }
        startPlaced(placedIn, now, out);
    }

    /** Tells the jobs just placed in the queue, still waiting there and not told by the refresh, where they stand. */
    private void tellTheRest(QueueKey key, List<String> placed, Set<String> told, Instant now, Decisions out) {
        List<ScheduledJob> deep = new ArrayList<>();
        for (String jobId : placed) {
            ScheduledJob current = state.jobs.get(jobId);
            if (current.phase() == Phase.WAITING
                    && current.queue().filter(key::equals).isPresent()
                    && !told.contains(jobId)) {
                deep.add(current);
            }
        }
        slots.tellDeepPositions(deep, key, now, out);
    }

    /**
     * Starts what the jobs placed in these queues (by {@link #placeOnly}, earlier in the step) may start, by the pick
     * rule over everything waiting there, and tells the ones still waiting where they stand.
     */
    void startPlaced(Map<QueueKey, List<String>> placedIn, Instant now, Decisions out) {
        for (Map.Entry<QueueKey, List<String>> entry : new TreeMap<>(placedIn).entrySet()) {
            slots.startNext(entry.getKey(), now, out);
            tellTheRest(entry.getKey(), entry.getValue(), slots.refreshPositions(entry.getKey(), now, out), now, out);
        }
    }

    /** Chooses the job's cluster and puts it in that queue (or parks it); returns the queue. */
    Optional<QueueKey> placeOnly(ScheduledJob job, Instant now, Decisions out) {
        ClusterChoice.Result choice = ClusterChoice.choose(
                job.request().tpuType().wireName(),
                job.request().supplyMode(),
                state.clusters.values(),
                cluster -> state.idlePool(cluster, job.request().topology().text(), job)
                        .isPresent(),
                cluster -> state.queueDepth(
                        new QueueKey(cluster.id(), job.request().topology().text())),
                cluster -> slots.estimates()
                        .expectedWait(
                                job,
                                new QueueKey(
                                        cluster.id(), job.request().topology().text()),
                                now),
                cluster -> state.health.avoided(cluster.id(), now),
                now);
        if (choice instanceof ClusterChoice.Chosen chosen) {
            String clusterId = chosen.cluster().id();
            // A job placed again on the cluster it was on (a rebalance) is no new decision for the ledger.
            if (job.clusterId().filter(clusterId::equals).isEmpty()) {
                Decision.Kind kind =
                        job.clusterId().isPresent() ? Decision.Kind.REROUTED : Decision.Kind.CLUSTER_CHOSEN;
                String why = chosen.candidates().stream()
                        .filter(c -> c.outcome() == Decision.Outcome.CHOSEN)
                        .map(Decision.Candidate::why)
                        .findFirst()
                        .orElse("");
                out.record(Ledger.placement(
                        job,
                        kind,
                        Optional.of(clusterId),
                        chosen,
                        (kind == Decision.Kind.REROUTED
                                        ? "moved from cluster "
                                                + job.clusterId().get() + " to "
                                        : "placed on ")
                                + "cluster " + clusterId + ", queue " + clusterId + "/"
                                + job.request().topology().text()
                                + ": " + why,
                        now));
            }
            ScheduledJob queued = job.withCluster(Optional.of(clusterId)).enter(Phase.WAITING, now);
            state.store(queued, out);
            QueueKey key = queued.queue().orElseThrow();
            state.queue(key).add(state.entry(queued));
            if (job.clusterId().isEmpty()) {
                state.noteArrival(key, now); // a new job (or a parked one), not one moved between clusters
            }
            out.queueChanged(key);
            return Optional.of(key);
        }
        ClusterChoice.NoneEligible none = (ClusterChoice.NoneEligible) choice;
        ScheduledJob parked = job.withCluster(Optional.empty()).withPhase(Phase.UNPLACED);
        state.unplaced.add(parked.id());
        String message = Messages.noCluster(job.request().tpuType().wireName(), none.why());
        if (job.shows(message)) {
            state.store(parked, out);
        } else {
            out.record(Ledger.placement(job, Decision.Kind.NO_CLUSTER_ELIGIBLE, Optional.empty(), none, message, now));
            state.publish(parked, Status.Pending, Optional.of(Reason.Waiting), message, now, out);
        }
        return Optional.empty();
    }

    /**
     * Every job parked for want of an eligible cluster is placed again: after a restart, which forgets which clusters
     * were avoided (cluster health is not kept), no cool-down's end would otherwise wake a job parked by one.
     */
    void placeUnplaced(Instant now, Decisions out) {
        List<ScheduledJob> parked = new ArrayList<>();
        for (String jobId : List.copyOf(state.unplaced)) {
            state.unplaced.remove(jobId);
            parked.add(state.jobs.get(jobId));
        }
        placeAll(parked, now, out);
    }

    /**
     * A cluster that becomes active takes its share of the backlog: every job of its TPU type that has not started
     * is placed again, oldest first, so queues even out and each queue keeps its FIFO order.
     */
    void rebalanceWaitingJobs(String tpuType, Instant now, Decisions out) {
        List<ScheduledJob> waiting = new ArrayList<>();
        for (String jobId : List.copyOf(state.unplaced)) {
            ScheduledJob job = state.jobs.get(jobId);
            if (job.request().tpuType().wireName().equals(tpuType)) {
                state.unplaced.remove(jobId);
                waiting.add(job);
            }
        }
        for (Map.Entry<QueueKey, WaitQueue> queue : state.queues.entrySet()) {
            ClusterRow owner = state.clusters.get(queue.getKey().clusterId());
            if (owner != null && owner.tpuType().equals(tpuType)) {
                for (WaitQueue.Entry entry : queue.getValue().pickOrder(Integer.MAX_VALUE)) {
                    queue.getValue().remove(entry);
                    waiting.add(state.jobs.get(entry.jobId()));
                }
            }
        }
        placeAll(waiting, now, out);
    }

    /**
     * Waiting jobs of priority above 0 that would start sooner on another cluster of their type move there (issue
     * 17): only when the gain exceeds the move gain (so an estimate's noise moves nothing), at most once per move
     * interval per job (so two queues cannot toss a job back and forth), and only the first position-updates jobs
     * of each queue are looked at (the jobs whose expected start is known). Where to: cluster choice over the other
     * clusters, as for a new job. Returns the queues it changed.
     */
    Set<QueueKey> moveToSooner(Instant now, Decisions out) {
        List<Move> moves = new ArrayList<>();
        for (QueueKey key : new TreeSet<>(state.queues.keySet())) {
            WaitQueue queue = state.queues.get(key);
            if (queue.isEmpty()) {
                continue;
            }
            StartEstimates estimates = slots.estimates();
            Optional<StartEstimates.SlotChain> slots = estimates.slots(key, now);
            for (WaitQueue.Entry entry : queue.pickOrder(state.settings.positionUpdates())) {
                ScheduledJob job = state.jobs.get(entry.jobId());
                Optional<QueueHistory.Spread> hold = estimates.holdOf(job, key);
                Optional<QueueHistory.Spread> untilStart = slots.isPresent() && hold.isPresent()
                        ? Optional.of(slots.get().take(hold.get()))
                        : Optional.empty();
                if (untilStart.isEmpty()) {
                    break; // nothing further down this queue can be estimated either
                }
                boolean movedLately = job.movedAt()
                        .filter(at -> at.plus(state.settings.moveInterval()).isAfter(now))
                        .isPresent();
                if (job.request().priority() > 0 && !movedLately) {
                    moves.add(new Move(job.id(), key, untilStart.get().mean()));
                }
            }
        }
        Set<QueueKey> touched = new TreeSet<>();
        List<String> movedJobs = new ArrayList<>();
        for (Move move : moves) {
            ScheduledJob job = state.jobs.get(move.jobId());
            if (job == null
                    || job.phase() != Phase.WAITING
                    || !job.queue().filter(move.from()::equals).isPresent()) {
                continue; // an earlier move this round changed its queue
            }
            String topology = job.request().topology().text();
            ClusterChoice.Result choice = ClusterChoice.choose(
                    job.request().tpuType().wireName(),
                    job.request().supplyMode(),
                    state.clusters.values().stream()
                            .filter(c -> !c.id().equals(move.from().clusterId()))
                            .toList(),
                    cluster -> state.idlePool(cluster, topology, job).isPresent(),
                    cluster -> state.queueDepth(new QueueKey(cluster.id(), topology)),
                    cluster -> slots.estimates().expectedWait(job, new QueueKey(cluster.id(), topology), now),
                    cluster -> state.health.avoided(cluster.id(), now),
                    now);
            if (!(choice instanceof ClusterChoice.Chosen chosen)) {
                continue;
            }
            QueueKey to = new QueueKey(chosen.cluster().id(), topology);
            java.util.OptionalDouble there = slots.estimates().expectedWait(job, to, now);
            boolean idleThere = state.idlePool(chosen.cluster(), topology, job).isPresent();
            double gain = move.expectedWaitMillis() - (idleThere ? 0 : there.orElse(Double.MAX_VALUE));
            if ((idleThere || there.isPresent())
                    && gain > state.settings.moveGain().toMillis()) {
                state.queue(move.from()).remove(state.entry(job));
                out.queueChanged(move.from());
                out.record(Ledger.placement(
                        job,
                        Decision.Kind.REROUTED,
                        Optional.of(chosen.cluster().id()),
                        chosen,
                        "moved from cluster " + move.from().clusterId() + " to "
                                + chosen.cluster().id()
                                + ": expected to start about " + Math.round(gain / 60_000) + " min sooner there"
                                + " (priority " + job.request().priority() + ")",
                        now));
                ScheduledJob moved = job.withCluster(
                                Optional.of(chosen.cluster().id()))
                        .enter(Phase.WAITING, now)
                        .withMovedAt(now);
                state.store(moved, out);
                state.queue(to).add(state.entry(moved));
                out.queueChanged(to);
                touched.add(move.from());
                touched.add(to);
                movedJobs.add(job.id());
            }
        }
        for (QueueKey key : touched) {
            slots.startNext(key, now, out);
            tellTheRest(key, movedJobs, slots.refreshPositions(key, now, out), now, out);
        }
        return touched;
    }

    /** A waiting job that may move, the queue it waits in and how long it is expected to wait there. */
    private record Move(String jobId, QueueKey from, double expectedWaitMillis) {}

    /** The waiting jobs of a cluster that left active go where they can start. */
    void rerouteWaitingJobsOf(String clusterId, Instant now, Decisions out) {
        rerouteWaitingJobsOf(clusterId, job -> true, now, out);
    }

    /** The same, for the waiting jobs the filter picks. */
    void rerouteWaitingJobsOf(
            String clusterId, java.util.function.Predicate<ScheduledJob> which, Instant now, Decisions out) {
        List<ScheduledJob> waiting = new ArrayList<>();
        List<QueueKey> affected = state.queues.keySet().stream()
                .filter(k -> k.clusterId().equals(clusterId))
                .toList();
        for (QueueKey key : affected) {
            WaitQueue queue = state.queues.get(key);
            boolean changed = false;
            for (WaitQueue.Entry entry : queue.pickOrder(Integer.MAX_VALUE)) {
                ScheduledJob job = state.jobs.get(entry.jobId());
                if (which.test(job)) {
                    queue.remove(entry);
                    waiting.add(job);
                    changed = true;
                }
            }
            if (changed) {
                out.queueChanged(key);
            }
        }
        placeAll(waiting, now, out);
        for (QueueKey key : affected) {
            if (state.queues.containsKey(key) && !state.queues.get(key).isEmpty()) {
                slots.refreshPositions(key, now, out); // those left behind moved up
            }
        }
    }
}
