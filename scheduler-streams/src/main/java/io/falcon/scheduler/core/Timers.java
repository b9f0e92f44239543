package io.falcon.scheduler.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The index of every deadline and re-drive of jobs, pools and Job deletions, earliest first (design: timers are
 * punctuators over an index of deadlines, not scans of every job). An entry names what to look at, not what to do:
 * when it fires, the owner of that kind looks at the current state, so an entry made stale by a later change is
 * harmless and an entry leaves the index by firing, or when its job finishes and leaves the scheduler's memory (so
 * that the index holds the timers of live jobs only, not a day's worth of finished jobs' execution deadlines).
 */
final class Timers {
    enum Kind {
        JOB,
        POOL,
        DELETION
    }

    record Due(Instant at, Kind kind, String key) {}

    private final SchedulerSettings settings;
    private final TreeSet<Due> index =
            new TreeSet<>(Comparator.comparing(Due::at).thenComparing(Due::kind).thenComparing(Due::key));
    /** The JOB entries of the index per job, so that a finished job's can be dropped without a scan. */
    private final Map<String, List<Due>> byJob = new HashMap<>();
    /** The one pending entry of each pool and deletion (kind + key). */
    private final Map<String, Due> single = new HashMap<>();

    Timers(SchedulerSettings settings) {
        this.settings = settings;
    }

    /** The deadlines of the job's phase and its re-drive time, if any (what fires is in {@link JobTimers}). */
    void arm(ScheduledJob job) {
        if (job.phase() == Phase.DONE) {
            return;
        }
        deadlines(job).forEach(at -> armJob(at, job.id()));
        job.wakeAt().ifPresent(at -> armJob(at, job.id()));
    }

    private void armJob(Instant at, String jobId) {
        Due due = new Due(at, Kind.JOB, jobId);
        if (index.add(due)) {
            byJob.computeIfAbsent(jobId, k -> new ArrayList<>(2)).add(due);
        }
    }

    /** Drops every timer of a job that has left the scheduler. */
    void disarm(String jobId) {
        List<Due> armed = byJob.remove(jobId);
        if (armed != null) {
            armed.forEach(index::remove);
        }
    }

    /** How many entries the index holds (for tests of its bound). */
    int size() {
        return index.size();
    }

    /** How many job timers the index holds (for tests of its bound). */
    int jobTimers() {
        return byJob.values().stream().mapToInt(List::size).sum();
    }

    void arm(NodePool.PoolKey pool, Instant at) {
        armOnce(new Due(at, Kind.POOL, pool.asString()));
    }

    void arm(JobDeletion.Key deletion, Instant at) {
        armOnce(new Due(at, Kind.DELETION, deletion.asString()));
    }

    /**
     * A pool or deletion keeps one entry, the earliest asked for: whatever fires re-derives the next time from the
     * state (linger end, re-ask interval), so a later entry adds nothing but another chain of re-asks that would
     * re-arm itself for as long as the pool is being deleted.
     */
    private void armOnce(Due due) {
        String key = due.kind() + due.key();
        Due pending = single.get(key);
        if (pending != null) {
            if (!due.at().isBefore(pending.at())) {
                return;
            }
            index.remove(pending);
        }
        single.put(key, due);
        index.add(due);
    }

    Optional<Instant> next() {
        return index.isEmpty() ? Optional.empty() : Optional.of(index.first().at());
    }

    /** Takes the earliest entry off the index if it is due by now. */
    Optional<Due> pollDue(Instant now) {
        if (index.isEmpty() || index.first().at().isAfter(now)) {
            return Optional.empty();
        }
        Due due = index.pollFirst();
        if (due.kind() == Kind.JOB) {
            List<Due> armed = byJob.get(due.key());
            if (armed != null && armed.remove(due) && armed.isEmpty()) {
                byJob.remove(due.key());
            }
        } else {
            single.remove(due.kind() + due.key(), due);
        }
        return Optional.of(due);
    }

    /** The deadlines of the job's phase, from the phase table of docs/architecture.md. */
    private List<Instant> deadlines(ScheduledJob job) {
        List<Instant> at = new ArrayList<>(2);
        Instant since = job.phaseSince().orElse(Instant.EPOCH);
        switch (job.phase()) {
            case PROVISIONING -> at.add(since.plus(settings.provisioningBackstop()));
            case DISPATCHING -> {
                if (job.awaitingNodes()) {
                    // no deadline while GKE brings the nodes up (seed section 4); the re-drive is the wake time; a Job
                    // never confirmed has the submit deadline
                    if (!job.jobSeen()) {
                        at.add(since.plus(settings.submitDeadline()));
                    }
                } else if (job.submitted()) {
                    job.dispatchedAt().ifPresent(d -> at.add(d.plus(settings.dispatchDeadline())));
                    job.executionDeadline(settings.defaultExecutionTimeout()).ifPresent(at::add);
                } else {
                    at.add(since.plus(settings.submitDeadline()));
                }
            }
            case RUNNING ->
                job.executionDeadline(settings.defaultExecutionTimeout()).ifPresent(at::add);
            case CANCELLING -> at.add(since.plus(settings.dispatchDeadline()));
            default -> {}
        }
        return at;
    }
}
