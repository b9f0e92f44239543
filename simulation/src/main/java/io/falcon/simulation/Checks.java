package io.falcon.simulation;

import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.scheduler.core.Phase;
import io.falcon.scheduler.core.QueueKey;
import io.falcon.scheduler.core.ScheduledJob;
import io.falcon.scheduler.core.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The invariants of a run. During the run, after every scheduler step: at most {@code acquirers-per-queue} jobs
 * acquiring resources per queue, and the jobs that take a queue's slots are the ones the pick rule chooses, in
 * order. From the fleet, as it happens: no
 * pool deleted under a Kubernetes Job whose task is still live, no Job created again after its deletion. At
 * quiescence: every job is terminal or waits for a reason the scenario still keeps true, at most one Kubernetes Job
 * was ever created per job, nothing of a terminal job is left in the fleet, no pool without a live holder, and each
 * job's published statuses never go backwards and never change after a terminal one.
 */
final class Checks {
    private final List<String> violations;
    private final long agingMillis;

    /** How many times a job may be run again after the fleet ended an attempt (the scheduler's retries). */
    private final int maxRetries;

    Checks(List<String> violations, Duration priorityAging) {
        this(violations, priorityAging, 0);
    }

    Checks(List<String> violations, Duration priorityAging, int maxRetries) {
        this.violations = violations;
        this.agingMillis = priorityAging.toMillis();
        this.maxRetries = maxRetries;
    }

    void violation(String what) {
        if (violations.size() < 50) {
            violations.add(what);
        }
    }

    List<String> violations() {
        return violations;
    }

    // ---- per step ----

    /** What the queues looked like before a step: each queue's slot holders and the actor served last. */
    record Before(Map<QueueKey, List<String>> holders, Map<QueueKey, Optional<String>> lastServed) {}

    Before before(Scheduler core) {
        Map<QueueKey, List<String>> holders = new HashMap<>();
        Map<QueueKey, Optional<String>> lastServed = new HashMap<>();
        for (QueueKey key : queueKeys(core)) {
            holders.put(key, core.slotHolders(key));
            lastServed.put(key, core.lastServedActor(key));
        }
        return new Before(holders, lastServed);
    }

    void after(Before before, Scheduler core, String what, Instant now) {
        Map<QueueKey, List<String>> acquiring = new HashMap<>();
        Map<QueueKey, List<ScheduledJob>> waiting = new HashMap<>();
        for (ScheduledJob job : core.jobs()) {
            if (job.queue().isEmpty()) {
                continue;
            }
            if (job.phase().holdsSlot()) {
                acquiring
                        .computeIfAbsent(job.queue().get(), k -> new ArrayList<>())
                        .add(job.id());
            } else if (job.phase() == Phase.WAITING) {
                waiting.computeIfAbsent(job.queue().get(), k -> new ArrayList<>())
                        .add(job);
            }
        }
        int allowed = core.settings().acquirersPerQueue();
        acquiring.forEach((key, ids) -> {
            if (ids.size() > allowed) {
                violation("queue " + key.asString() + " has " + ids.size() + " jobs acquiring at once " + ids
                        + " (at most " + allowed + ") after " + what + " at " + now);
            }
        });
        for (QueueKey key : queueKeys(core)) {
            List<String> was = before.holders().getOrDefault(key, List.of());
            List<ScheduledJob> takers = core.slotHolders(key).stream()
                    .filter(id -> !was.contains(id))
                    .map(id -> core.job(id).orElseThrow())
                    .toList();
            // the slots went one after another in pick order: each taker is the rule's pick among the jobs that
            // were still waiting, the actor served last being the previous taker's
            List<ScheduledJob> candidates = new ArrayList<>(waiting.getOrDefault(key, List.of()));
            candidates.addAll(takers);
            Optional<String> lastServed = before.lastServed().getOrDefault(key, Optional.empty());
            for (ScheduledJob taker : takers) {
                String expected = pick(candidates, lastServed);
                if (!expected.equals(taker.id())) {
                    violation("pick rule: queue " + key.asString() + " gave a slot to " + taker.id() + " ("
                            + taker.actor() + ") but the rule picks " + expected + " (last served "
                            + lastServed.orElse("-") + ") after " + what + " at " + now);
                    break;
                }
                candidates.remove(taker);
                lastServed = Optional.of(taker.actor());
            }
        }
    }

    /**
     * The seed's pick rule with priorities, written independently of WaitQueue. A job's effective priority is its
     * priority plus one level per aging interval since its submission; comparing two jobs' effective priorities at
     * any instant is comparing submission time minus priority times the interval (smaller first; at a tie the higher
     * priority, then the earlier submission, then the id). Each actor's first job by that order; if the first of
     * them is the actor served last and another actor's first has the same priority, that one; else the first.
     */
    String pick(List<ScheduledJob> candidates, Optional<String> lastServed) {
        Comparator<ScheduledJob> order = Comparator.comparingLong(
                        (ScheduledJob j) -> j.seq() - j.request().priority() * agingMillis)
                .thenComparing(j -> -j.request().priority())
                .thenComparingLong(ScheduledJob::seq)
                .thenComparing(ScheduledJob::id);
        Map<String, ScheduledJob> heads = new HashMap<>();
        for (ScheduledJob job : candidates) {
            heads.merge(job.actor(), job, (a, b) -> order.compare(a, b) <= 0 ? a : b);
        }
        ScheduledJob best = heads.values().stream().min(order).orElseThrow();
        if (heads.size() > 1 && lastServed.filter(best.actor()::equals).isPresent()) {
            ScheduledJob other = heads.values().stream()
                    .filter(j -> !j.actor().equals(best.actor()))
                    .min(order)
                    .orElseThrow();
            if (other.request().priority() == best.request().priority()) {
                return other.id();
            }
        }
        return best.id();
    }

    private static Set<QueueKey> queueKeys(Scheduler core) {
        // Every queue the core keeps (a queue whose jobs all finished still remembers who it served last), and
        // every queue a live job names.
        Set<QueueKey> keys = new HashSet<>(core.queueDepths().keySet());
        for (ScheduledJob job : core.jobs()) {
            job.queue().ifPresent(keys::add);
        }
        return keys;
    }

    // ---- at quiescence ----

    /**
     * @param allowedToWait why a job that is not terminal may still wait (empty: it may not)
     */
    void atQuiescence(
            Map<String, ScheduledJob> jobs,
            java.util.function.Function<ScheduledJob, Optional<String>> allowedToWait,
            SimFleet fleet,
            List<TaskStatus> statuses) {
        for (ScheduledJob job : jobs.values()) {
            if (job.phase() != Phase.DONE && allowedToWait.apply(job).isEmpty()) {
                violation("job " + job.id() + " is stuck " + job.phase() + " " + job.status() + "/"
                        + job.reason().map(Enum::name).orElse("") + ": " + job.message());
            }
            // seed section 5: a reservation without room makes a job wait ClusterBusy, it never fails it
            if (job.reason().filter(Reason.NodePoolFailed::equals).isPresent()
                    && job.message().contains("enough available capacity")) {
                violation("job " + job.id() + " failed on a reservation shortfall instead of waiting ClusterBusy: "
                        + job.message());
            }
        }
        Map<String, Integer> attempts = new HashMap<>();
        fleet.jobCreatesByName().forEach((jobAndName, n) -> {
            String jobId = jobAndName.substring(0, jobAndName.indexOf('|'));
            attempts.merge(jobId, 1, Integer::sum);
            if (n > (fleet.recreatedAfterHandDeletion().contains(jobId) ? 2 : 1)) {
                violation("job " + jobId + " had its Kubernetes Job " + jobAndName.substring(jobId.length() + 1)
                        + " created " + n + " times");
            }
        });
        attempts.forEach((jobId, n) -> {
            if (n > 1 + maxRetries) {
                violation("job " + jobId + " ran " + n + " attempts; at most " + (1 + maxRetries) + " are allowed");
            }
        });
        fleet.liveJobs().forEach((where, jobId) -> {
            ScheduledJob job = jobs.get(jobId);
            if (job == null || job.phase() == Phase.DONE) {
                violation("Kubernetes Job " + where + " of " + (job == null ? "unknown job " : "terminal job ") + jobId
                        + " is left in the fleet");
            }
        });
        Set<String> holders = new HashSet<>();
        for (ScheduledJob job : jobs.values()) {
            if (job.phase() != Phase.DONE
                    && job.nodePoolName().isPresent()
                    && job.target().isPresent()) {
                holders.add(job.target().get().resourceName() + "/"
                        + job.nodePoolName().get());
            }
        }
        fleet.livePools().forEach((where, creator) -> {
            if (!holders.contains(where)) {
                violation("node pool " + where + " (created for " + creator + ") is left without a live holder");
            }
        });
        checkStatuses(statuses);
    }

    /**
     * A job whose Kubernetes Job succeeded ends Succeeded, unless an abort came first (then it is Aborted, not
     * Failed), it overran its timeout (checkCauses judges Timeouts from the plan) or its cluster left (row deleted or
     * moved) before the success: Falcon's own outage (an executor or scheduler down, stalled, or reading a backlog)
     * is no excuse, and a report lost on its way must be reported again.
     *
     * @param clusterLeftBefore whether a cluster the job could be on left between its submission and the instant
     */
    void checkSuccessesReported(
            List<TaskStatus> statuses,
            Map<String, java.time.Instant> succeeded,
            java.util.function.BiPredicate<String, java.time.Instant> clusterLeftBefore) {
        for (TaskStatus s : statuses) {
            java.time.Instant success = succeeded.get(s.jobId());
            if (success == null
                    || s.status() != Status.Failed
                    || s.reason().filter(Reason.Timeout::equals).isPresent()
                    || clusterLeftBefore.test(s.jobId(), success)) {
                continue;
            }
            violation("job " + s.jobId() + " ended " + describe(s) + " at "
                    + s.finishedAt().orElse(null) + ", though its Kubernetes Job had succeeded at " + success);
        }
    }

    /**
     * A job whose pods could pull their image after a transient error (the kubelet's retry got it) does not fail
     * for the pull: the executor's image-pull grace counts from when the pods could first pull (bound to their
     * nodes), not from their creation, which for a flex-start pool may be long before its VMs came.
     */
    void checkPullsGotPast(Map<String, ScheduledJob> jobs, java.util.Set<String> pulledLate) {
        for (String id : pulledLate) {
            ScheduledJob job = jobs.get(id);
            if (job != null && job.status() == Status.Failed && job.message().startsWith("Pod image pull failed")) {
                violation("job " + id + " failed for a transient image pull error its pods got past: " + job.message());
            }
        }
    }

    /**
     * A job whose Kubernetes Job someone other than Falcon deleted before it finished ends within the bound (the
     * informer's delete event, else the inventory of its cluster, an orphan grace after its Job was known to exist),
     * beyond the time the executor was down meanwhile; not at its execution deadline, hours later, while its slice
     * sits idle; and its Message does not blame its pods. A Job deleted before Falcon ever saw it, and created again
     * by a command written before Falcon knew it existed, is no deletion Falcon could notice.
     */
    void checkHandDeletionsNoticed(
            List<TaskStatus> statuses,
            Map<String, Instant> deleted,
            Duration bound,
            java.util.function.BiFunction<Instant, Instant, Duration> executorDown,
            java.util.function.Predicate<String> podsFailAnyway,
            Duration dispatchDeadline,
            java.util.function.Predicate<String> deletionUnseeable) {
        Map<String, TaskStatus> ends = new HashMap<>();
        Map<String, List<TaskStatus>> retried = new HashMap<>();
        Map<String, Instant> dispatchingSince = new HashMap<>();
        for (TaskStatus s : statuses) {
            if (s.status().isTerminal()) {
                ends.putIfAbsent(s.jobId(), s);
            } else if (s.reason().filter(Reason.Retrying::equals).isPresent()) {
                retried.computeIfAbsent(s.jobId(), k -> new ArrayList<>()).add(s);
            } else if (s.reason().filter(Reason.Dispatching::equals).isPresent()) {
                dispatchingSince.putIfAbsent(s.jobId(), s.meta().occurredAt());
            }
        }
        deleted.forEach((jobId, at) -> {
            if (abandonedAttempt(statuses, jobId, at)) {
                return; // the Job of an attempt Falcon had already ended (its deletion asked for, not yet done)
            }
            if (deletionUnseeable.test(jobId)) {
                return; // a Job Falcon never saw, created again before it knew: the second one's fate is the job's
            }
            // a job run again noticed the deletion when its attempt ended (Retrying), within the same bound
            // (the scheduler's clock may be behind the world's by a few minutes)
            Optional<TaskStatus> retry = retried.getOrDefault(jobId, List.of()).stream()
                    .filter(r -> !r.meta().occurredAt().isBefore(at.minus(Duration.ofMinutes(5))))
                    .findFirst();
            if (retry.isPresent()) {
                Instant noticed = retry.get().meta().occurredAt();
                if (noticed.isAfter(at.plus(bound).plus(executorDown.apply(at, noticed)))) {
                    violation("job " + jobId + " noticed at " + noticed + " (" + describe(retry.get()) + ") that its"
                            + " Kubernetes Job was deleted by hand at " + at);
                }
                return;
            }
            TaskStatus end = ends.get(jobId);
            if (end == null || end.finishedAt().isEmpty()) {
                return; // not terminal at all: the stuck-job check says so
            }
            Instant ended = end.finishedAt().get();
            if (ended.isAfter(at.plus(bound).plus(executorDown.apply(at, ended)))) {
                violation(
                        "job " + jobId + " ended " + describe(end) + " at " + ended + ", though its Kubernetes Job was"
                                + " deleted by hand at " + at + " (the executor was down "
                                + executorDown.apply(at, ended).toMinutes() + "m meanwhile)");
            } else if (end.reason().filter(Reason.JobFailed::equals).isPresent()
                    && ended.isAfter(at.plus(Duration.ofMinutes(3)))
                    && end.message().startsWith("Pod")
                    && !podsFailAnyway.test(jobId) // pods that fail by themselves may have, before the deletion
                    && !dispatchDueBefore(dispatchingSince.get(jobId), dispatchDeadline, at)) {
                // blamed on its pods (they never ran, or failed), when their Job had been deleted by hand
                violation("job " + jobId + " ended " + describe(end) + " '" + end.message() + "' after its Kubernetes"
                        + " Job was deleted by hand at " + at + ", without saying so");
            }
        });
    }

    /**
     * Its pods had not all run by the dispatch deadline, which passed before the deletion: the deadline is the first
     * cause, and a scheduler that reads it late (a stall) still answers with it. The scheduler's clock may be a minute
     * off the fleet's, within which either answer is right.
     */
    private static boolean dispatchDueBefore(Instant dispatchingSince, Duration dispatchDeadline, Instant deleted) {
        return dispatchingSince != null
                && dispatchingSince.plus(dispatchDeadline).isBefore(deleted.plus(Duration.ofMinutes(1)));
    }

    /**
     * No job runs past its execution deadline (dispatched_at + timeout_seconds, or the default) by more than the
     * slack the scenario's scheduler downtime and tick granularity allow, plus the time the executor was down
     * meanwhile: the terminal status of a job ended by its deadline or an abort waits for the Kubernetes Job's
     * deletion to be confirmed, which a dead executor can neither do nor confirm (a crash loop of the injected
     * crashes kept it down for two hours in seed 1107191, while the scheduler re-sent the deletion every minute).
     */
    void checkDeadlines(
            List<TaskStatus> statuses,
            java.util.function.Function<String, java.time.Duration> timeout,
            java.time.Duration slack,
            java.util.function.BiFunction<java.time.Instant, java.time.Instant, java.time.Duration> executorDown) {
        for (TaskStatus s : statuses) {
            if (s.status().isTerminal()
                    && s.dispatchedAt().isPresent()
                    && s.finishedAt().isPresent()) {
                java.time.Duration ran = java.time.Duration.between(
                        s.dispatchedAt().get(), s.finishedAt().get());
                java.time.Duration limit = timeout.apply(s.jobId());
                java.time.Duration down = executorDown.apply(
                        s.dispatchedAt().get(), s.finishedAt().get());
                if (ran.compareTo(limit.plus(slack).plus(down)) > 0) {
                    violation("job " + s.jobId() + " ran " + ran.toMinutes() + "m, past its " + limit.toMinutes()
                            + "m execution deadline, and ended " + describe(s) + " (the executor was down "
                            + down.toMinutes() + "m meanwhile)");
                }
            }
        }
    }

    /**
     * A cluster that refuses every creation (Scenario.ClusterRefuses) is sent little work: the scheduler's cluster
     * health avoids it after {@code failuresToAvoid} refusals in a row, for a cool-down of {@code firstCoolDown}
     * doubled at each new trip. So the jobs refused during one outage are at most: the refusals that trip it, plus
     * one job per queue already in flight there when it tripped, plus one per queue at each cool-down's end that falls
     * in the outage (a probe round), plus the refusals that trip it again after each scheduler restart (cluster
     * health is kept in memory). A scheduler that kept sending the shortest queue every new job exceeds it. An outage
     * during which the cluster showed work going through (a pool asked for before it came up, pods started) is not
     * judged: the health count rightly starts again at a success.
     */
    void checkOutages(
            List<SimFleet.Refused> refused,
            int queuesPerCluster,
            int failuresToAvoid,
            Duration firstCoolDown,
            java.util.function.BiFunction<Instant, Instant, Integer> restartsBetween,
            java.util.function.Predicate<SimFleet.Outage> successDuring) {
        Map<SimFleet.Outage, Set<String>> jobsByOutage = new java.util.LinkedHashMap<>();
        for (SimFleet.Refused r : refused) {
            jobsByOutage
                    .computeIfAbsent(r.outage(), o -> new java.util.TreeSet<>())
                    .add(r.falconJobId());
        }
        jobsByOutage.forEach((outage, jobs) -> {
            Duration lasting = Duration.between(outage.from(), outage.until());
            int probeRounds = 0;
            Duration coolDownsEnd = firstCoolDown;
            Duration coolDown = firstCoolDown;
            while (coolDownsEnd.compareTo(lasting) < 0) {
                probeRounds++;
                coolDown = coolDown.multipliedBy(2);
                coolDownsEnd = coolDownsEnd.plus(coolDown);
            }
            if (successDuring.test(outage)) {
                return; // the cluster did work meanwhile: its health count rightly started again
            }
            int restarts = restartsBetween.apply(outage.from(), outage.until());
            int bound = failuresToAvoid * (1 + restarts) + queuesPerCluster * (1 + restarts + probeRounds);
            if (jobs.size() > bound) {
                violation("cluster " + outage.cluster() + " refused every creation from " + outage.from() + " to "
                        + outage.until() + ", and " + jobs.size() + " jobs were sent there meanwhile (at most " + bound
                        + ": " + failuresToAvoid + " to trip its avoidance, " + queuesPerCluster + " queues in flight, "
                        + probeRounds + " probe round(s), " + restarts + " scheduler restart(s)): " + jobs);
            }
        });
    }

    /**
     * The final Reason matches a cause the world injected: no job fails only because of Falcon's own outage or stall,
     * an operator's harmless edit, or a transient state of GKE or Kubernetes. Per Reason, what may explain it: the
     * job's pods (exit codes, an image that cannot be pulled, pods that never schedule, a run longer than its
     * timeout), what the fleet did to it ({@link SimFleet.Cause}), or its cluster leaving (row deleted, or moved to
     * another GKE cluster) while it was in flight. An Aborted job was aborted.
     *
     * @param disrupted whether a cluster the job could be on was deleted or moved between the two instants
     * @param aborted the jobs an abort was written for (scripted runs abort outside the plan)
     */
    void checkCauses(
            List<TaskStatus> statuses,
            Map<String, Scenario.JobPlan> plans,
            java.util.function.BiFunction<String, Optional<String>, Set<SimFleet.Cause>> fleetCauses,
            java.util.function.BiPredicate<Instant, Instant> disrupted,
            Duration defaultTimeout,
            Set<String> aborted,
            java.util.function.Predicate<String> endUnseen) {
        Map<String, TaskStatus> last = new HashMap<>();
        for (TaskStatus s : statuses) {
            last.put(s.jobId(), s);
        }
        for (TaskStatus s : last.values()) {
            Scenario.JobPlan plan = plans.get(s.jobId());
            if (plan == null || !s.status().isTerminal() || s.status() == Status.Succeeded) {
                continue;
            }
            Instant ended = s.finishedAt().orElse(Instant.MAX);
            if (s.status() == Status.Aborted) {
                if (plan.abortAt().isEmpty() && !aborted.contains(s.jobId())) {
                    violation("job " + s.jobId() + " ended " + describe(s) + " but was never aborted");
                }
                continue;
            }
            Reason reason = s.reason().orElse(null);
            Set<SimFleet.Cause> fleet = fleetCauses.apply(s.jobId(), s.nodePoolName());
            boolean clusterLeft = disrupted.test(plan.submitAt(), ended);
            Duration timeout = plan.timeoutSeconds().map(Duration::ofSeconds).orElse(defaultTimeout);
            boolean podsNeverRun =
                    plan.outcome() == Scenario.Outcome.IMAGE_PULL || plan.outcome() == Scenario.Outcome.NEVER_SCHEDULED;
            // the fleet ended an attempt and the operator switched retries off before the next began
            boolean notRunAgain = s.message().contains("not run again: retries are switched off")
                    && (!fleet.isEmpty() || clusterLeft);
            boolean explained = notRunAgain
                    || reason != null
                            && switch (reason) {
                                case JobFailed ->
                                    plan.outcome() != Scenario.Outcome.SUCCEED
                                            || fleet.contains(SimFleet.Cause.NODES_LOST)
                                            || fleet.contains(SimFleet.Cause.PODS_REFUSED)
                                            || fleet.contains(SimFleet.Cause.JOB_DELETED_BY_HAND)
                                            || fleet.contains(SimFleet.Cause.POD_EVICTED)
                                            || fleet.contains(SimFleet.Cause.HOST_LOST)
                                            || endUnseen.test(s.jobId())
                                            || clusterLeft;
                                // a run within two minutes of its timeout may meet it (clocks differ, dispatched_at is
                                // seen)
                                case Timeout ->
                                    podsNeverRun
                                            || fleet.contains(SimFleet.Cause.PODS_REFUSED)
                                            || plan.runFor().plusMinutes(2).compareTo(timeout) >= 0;
                                case NodePoolFailed ->
                                    fleet.contains(SimFleet.Cause.POOL_FAILED)
                                            || fleet.contains(SimFleet.Cause.FOREIGN_OBJECT)
                                            || clusterLeft;
                                case NodePoolTimeout ->
                                    fleet.contains(SimFleet.Cause.POOL_SLOW)
                                            || fleet.contains(SimFleet.Cause.POOL_FAILED)
                                            || fleet.contains(SimFleet.Cause.API_ERROR)
                                            || clusterLeft;
                                case JobSubmitFailed ->
                                    fleet.contains(SimFleet.Cause.SUBMIT_REFUSED)
                                            || fleet.contains(SimFleet.Cause.API_ERROR)
                                            || clusterLeft;
                                default -> false;
                            };
            if (!explained) {
                violation("job " + s.jobId() + " ended " + describe(s) + " '" + s.message() + "', which nothing the"
                        + " world did explains (pods " + plan.outcome() + ", run "
                        + plan.runFor().toMinutes()
                        + "m of a " + timeout.toMinutes() + "m timeout, fleet " + fleet
                        + (clusterLeft ? ", a cluster left" : "") + "; submitted " + plan.submitAt() + ", ended "
                        + s.finishedAt().map(Instant::toString).orElse("-") + ")");
            }
        }
    }

    /**
     * The jobs table at quiescence: every row is terminal (unless its job may still wait for a cluster) and equals
     * its job's last status (status and reason), whatever the upper components wrote over it; no row is left without
     * an answer.
     */
    void checkRows(
            Map<String, SimRows.Row> rows, List<TaskStatus> statuses, java.util.function.Predicate<String> mayWait) {
        Map<String, TaskStatus> last = new HashMap<>();
        for (TaskStatus s : statuses) {
            last.put(s.jobId(), s);
        }
        rows.forEach((id, row) -> {
            TaskStatus status = last.get(id);
            if (status == null) {
                violation("row " + id + " (" + row.status + ") was never answered");
                return;
            }
            if (!row.status.equals(status.status().name()) || !row.reason.equals(status.reason())) {
                violation("row " + id + " shows " + row.status
                        + row.reason.map(r -> "/" + r).orElse("") + " but the job's last status is "
                        + describe(status));
            }
            if (!SimRows.isTerminal(row.status) && !mayWait.test(id)) {
                violation("row " + id + " is left " + row.status + " ('" + row.message + "')");
            }
        });
    }

    /**
     * Every abort an upper component wrote is answered (Aborting, or a terminal status, or the end again) within the
     * bound, plus the time the scheduler was down or stalled meanwhile.
     */
    void checkAbortsAnswered(
            Map<String, Instant> aborts,
            List<TaskStatus> statuses,
            Duration bound,
            java.util.function.BiFunction<Instant, Instant, Duration> schedulerDown,
            Reality reality) {
        aborts.forEach((id, at) -> {
            // statuses carry the scheduler's clock
            Instant from = at.plus(reality.schedulerClockOffset()).minusSeconds(1);
            boolean answered = statuses.stream()
                    .filter(s -> s.jobId().equals(id))
                    .filter(s -> s.status() == Status.Aborting || s.status().isTerminal())
                    .map(s -> s.meta().occurredAt())
                    .anyMatch(t -> !t.isBefore(from)
                            && !t.isAfter(from.plus(bound).plus(schedulerDown.apply(at, at.plus(Duration.ofDays(3))))));
            boolean endedBefore = statuses.stream()
                    .anyMatch(s -> s.jobId().equals(id)
                            && s.status().isTerminal()
                            && s.meta().occurredAt().isBefore(from));
            if (!answered && !endedBefore) {
                violation("the abort of " + id + " at " + at + " was not answered within " + bound.toMinutes() + "m");
            }
        });
    }

    /** Per job, in the order published: versions grow, the phase never goes back, nothing follows a terminal. */
    /**
     * A node pool of another owner under the name Falcon gives a job's pool is never adopted and never deleted: the
     * job fails instead (its Reason explained by the foreign pool in {@link #checkCauses}).
     */
    /**
     * Whether, when its Kubernetes Job was deleted by hand, the job had already ended that Job's attempt: a Retrying
     * status before the deletion, and no Dispatching status of the next attempt between it and the deletion.
     */
    private static boolean abandonedAttempt(List<TaskStatus> statuses, String jobId, Instant at) {
        Optional<Instant> lastRetry = Optional.empty();
        for (TaskStatus s : statuses) {
            if (!s.jobId().equals(jobId) || s.meta().occurredAt().isAfter(at)) {
                continue;
            }
            if (s.reason().filter(Reason.Retrying::equals).isPresent()) {
                lastRetry = Optional.of(s.meta().occurredAt());
            } else if (s.reason().filter(Reason.Dispatching::equals).isPresent()) {
                lastRetry = Optional.empty();
            }
        }
        return lastRetry.isPresent();
    }

    /**
     * The operator's retry switch acts within one step: no attempt after a job's first is begun (its first
     * EnsureNodePool, under the attempt's own pool name) by a step after the one that applied "off", until one
     * applies "on" again.
     */
    void checkNoAttemptBegunWhileRetriesOff(
            List<io.falcon.events.executor.ExecutorCommand> commands, List<int[]> switches, int maxRetries) {
        if (switches.isEmpty() || maxRetries == 0) {
            return;
        }
        java.util.Set<String> begun = new java.util.HashSet<>();
        for (int i = 0; i < commands.size(); i++) {
            if (!(commands.get(i) instanceof io.falcon.events.executor.ExecutorCommand.EnsureNodePool ensure)
                    || !begun.add(ensure.nodePoolName())) {
                continue;
            }
            int attempt = attemptOf(ensure.jobId(), ensure.nodePoolName(), maxRetries);
            if (attempt > 0 && !retriesOnAt(i, switches)) {
                violation("job " + ensure.jobId() + " began attempt " + (attempt + 1) + " (pool "
                        + ensure.nodePoolName() + ") after retries were switched off");
            }
        }
    }

    /**
     * The per-cluster budget: within any hour, at most {@code budget} attempts that ended on one cluster begin to run
     * again (their first Retrying status), unless the scheduler restarted in that hour (the budget is kept in memory).
     */
    void checkClusterRetryBudget(
            List<TaskStatus> statuses,
            int budget,
            java.util.function.BiFunction<Instant, Instant, Integer> restartsBetween) {
        Map<String, List<Instant>> retriedOn = new HashMap<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (TaskStatus s : statuses) {
            if (s.reason().filter(Reason.Retrying::equals).isPresent()
                    && s.clusterId().isPresent()
                    && seen.add(s.jobId() + "#" + s.attempt())) {
                retriedOn
                        .computeIfAbsent(s.clusterId().get(), c -> new java.util.ArrayList<>())
                        .add(s.meta().occurredAt());
            }
        }
        retriedOn.forEach((cluster, times) -> {
            List<Instant> sorted = times.stream().sorted().toList();
            for (int i = 0; i < sorted.size(); i++) {
                Instant hourBefore = sorted.get(i).minus(Duration.ofHours(1));
                int from = i;
                while (from > 0 && sorted.get(from - 1).isAfter(hourBefore)) {
                    from--;
                }
                int inHour = i - from + 1;
                // the scheduler's clock may be off true time by up to a minute or two (Reality)
                if (inHour > budget
                        && restartsBetween.apply(
                                        hourBefore.minusSeconds(300),
                                        sorted.get(i).plusSeconds(300))
                                == 0) {
                    violation("cluster " + cluster + " ran " + inHour + " ended attempts again within the hour to "
                            + sorted.get(i) + "; its budget is " + budget);
                }
            }
        });
    }

    /** Which retry the pool name is the attempt of (0: the first attempt's, or not one of the job's). */
    private static int attemptOf(String jobId, String poolName, int maxRetries) {
        for (int retries = 1; retries <= maxRetries; retries++) {
            if (io.falcon.events.ResourceNames.nodePool(
                            io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, jobId, retries)
                    .equals(poolName)) {
                return retries;
            }
        }
        return 0;
    }

    /** Whether retries were on for a command logged at this index (the last switch applied before it says). */
    private static boolean retriesOnAt(int index, List<int[]> switches) {
        boolean on = true;
        for (int[] s : switches) {
            if (s[0] <= index) {
                on = s[1] == 1;
            }
        }
        return on;
    }

    void checkForeignPoolsUntouched(java.util.Set<String> foreign, java.util.Set<String> deleted) {
        for (String pool : deleted) {
            violation("Falcon deleted node pool " + pool + ", which is another owner's (no Falcon labels)");
        }
        if (!foreign.containsAll(deleted)) {
            violation("deleted pools " + deleted + " were never foreign " + foreign);
        }
    }

    void checkStatuses(List<TaskStatus> statuses) {
        Map<String, TaskStatus> last = new HashMap<>();
        for (TaskStatus s : statuses) {
            TaskStatus prev = last.get(s.jobId());
            if (prev != null) {
                if (s.version() <= prev.version()) {
                    violation("job " + s.jobId() + " status version " + s.version() + " after " + prev.version());
                }
                boolean amendment = s.status() == prev.status()
                        && s.reason().equals(prev.reason())
                        && s.message().startsWith(prev.message());
                if (prev.status().isTerminal() && !amendment) {
                    violation("job " + s.jobId() + " went " + describe(prev) + " -> " + describe(s)
                            + " after a terminal status");
                } else if (s.attempt() < prev.attempt()) {
                    violation("job " + s.jobId() + " went back from attempt " + prev.attempt() + " to " + s.attempt()
                            + ": " + describe(prev) + " -> " + describe(s));
                } else if (s.attempt() > prev.attempt()
                        && s.reason().filter(Reason.Retrying::equals).isEmpty()) {
                    violation("job " + s.jobId() + " began attempt " + s.attempt() + " without saying it retries: "
                            + describe(prev) + " -> " + describe(s));
                } else if (s.attempt() == prev.attempt()
                        && prev.reason().filter(Reason.Retrying::equals).isEmpty()
                        && rank(s) < rank(prev)) {
                    // a new attempt starts over (Retrying, then Waiting...); within one the phase never goes back
                    violation("job " + s.jobId() + " went backwards " + describe(prev) + " -> " + describe(s));
                }
            }
            last.put(s.jobId(), s);
        }
    }

    static int rank(TaskStatus s) {
        if (s.status().isTerminal()) {
            return 5;
        }
        return switch (s.status()) {
            case Aborting -> 4;
            case Running -> 3;
            default ->
                s.reason()
                        .map(r -> switch (r) {
                            // a Job on a pool that gets nodes for pending pods (flex-start) waits for them after
                            // it was submitted: Dispatching -> WaitingForNode -> Dispatching is forward
                            case Dispatching, WaitingForNode -> 2;
                            case Provisioning, ClusterBusy -> 1;
                            default -> 0;
                        })
                        .orElse(0);
        };
    }

    private static String describe(TaskStatus s) {
        return s.status() + s.reason().map(r -> "/" + r).orElse("") + " (v" + s.version() + ")";
    }
}
