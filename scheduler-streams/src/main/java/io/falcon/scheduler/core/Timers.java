package io.falcon.scheduler.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The index of every deadline and re-drive of jobs, pools and Job deletions, earliest first (design: timers are
 * punctuators over an index of deadlines, not scans of every job). An entry names what to look at, not what to do:
 * when it fires, the owner of that kind looks at the current state, so an entry made stale by a later change is
 * harmless and nothing is ever removed from the index but by firing.
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

    Timers(SchedulerSettings settings) {
        this.settings = settings;
    }

    /** The deadlines of the job's phase and its re-drive time, if any (what fires is in {@link JobTimers}). */
    void arm(ScheduledJob job) {
        if (job.phase() == Phase.DONE) {
            return;
        }
        deadlines(job).forEach(at -> index.add(new Due(at, Kind.JOB, job.id())));
        job.wakeAt().ifPresent(at -> index.add(new Due(at, Kind.JOB, job.id())));
    }

    void arm(NodePool.PoolKey pool, Instant at) {
        index.add(new Due(at, Kind.POOL, pool.asString()));
    }

    void arm(JobDeletion.Key deletion, Instant at) {
        index.add(new Due(at, Kind.DELETION, deletion.asString()));
    }

    Optional<Instant> next() {
        return index.isEmpty() ? Optional.empty() : Optional.of(index.first().at());
    }

    /** Takes the earliest entry off the index if it is due by now. */
    Optional<Due> pollDue(Instant now) {
        return index.isEmpty() || index.first().at().isAfter(now) ? Optional.empty() : Optional.of(index.pollFirst());
    }

    /** The deadlines of the job's phase, from the phase table of docs/architecture.md. */
    private List<Instant> deadlines(ScheduledJob job) {
        List<Instant> at = new ArrayList<>(2);
        Instant since = job.phaseSince().orElse(Instant.EPOCH);
        switch (job.phase()) {
            case PROVISIONING -> at.add(since.plus(settings.provisioningBackstop()));
            case DISPATCHING -> {
                if (job.submitted()) {
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
