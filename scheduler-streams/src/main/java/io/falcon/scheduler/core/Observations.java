package io.falcon.scheduler.core;

import io.falcon.events.executor.ExecutorEvent;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How far the executor has reported what it sees, per GKE cluster, from its heartbeats (recovery rule: a deadline
 * fires only after Falcon has read the events that could have met it). A job's deadline that is due by the
 * scheduler's clock but not yet covered by its cluster's observation is held, and looked at again when a heartbeat
 * moves that cluster on; so a scheduler that was stalled or restarted, reading a backlog, first reads the successes
 * and runs that met the deadline, and an executor that was down, or could not read the cluster, holds the deadline
 * until it has looked again. Nothing here is persisted: a restarted scheduler reads the next heartbeat (every few
 * seconds) before any deadline fires, which is exactly the point.
 */
final class Observations {
    /** Per GKE cluster resource name, the latest time the executor reported it observed through (its clock). */
    private final Map<String, Instant> observedThrough = new HashMap<>();
    /** Per GKE cluster resource name, since when the executor of the latest heartbeat has watched it without a gap. */
    private final Map<String, Instant> observingSince = new HashMap<>();
    /** Jobs whose deadline was due but not yet covered, by GKE cluster resource name. */
    private final Map<String, Set<String>> held = new HashMap<>();

    /** Whether everything the executor saw on the job's cluster up to the deadline plus the slack has been read. */
    boolean covers(ScheduledJob job, Instant deadline, java.time.Duration slack) {
        if (job.target().isEmpty()) {
            return false;
        }
        String cluster = job.target().get().resourceName();
        Instant through = observedThrough.get(cluster);
        if (through == null) {
            return false;
        }
        // A deadline that passed while nobody watched the cluster (the executor down, a watch broken) is judged by
        // the state the executor reports once it watches again: as if it fell when the watching began.
        Instant since = observingSince.getOrDefault(cluster, Instant.EPOCH);
        Instant judged = deadline.isBefore(since) ? since : deadline;
        return !through.isBefore(judged.plus(slack));
    }

    /** The deadline is held for the job until its cluster is observed through it. */
    void hold(ScheduledJob job) {
        job.target()
                .ifPresent(t -> held.computeIfAbsent(t.resourceName(), k -> new LinkedHashSet<>())
                        .add(job.id()));
    }

    /** When the job's cluster was last observed through, if ever (for Messages). */
    Optional<Instant> observedThrough(ScheduledJob job) {
        return job.target().map(t -> observedThrough.get(t.resourceName()));
    }

    /**
     * Takes the heartbeat's times (never moving a cluster back: heartbeats of two executor replicas, or one
     * delayed, may come out of order) and returns the held jobs of the clusters it moved on, to be looked at again.
     */
    List<String> heartbeat(ExecutorEvent.Heartbeat heartbeat) {
        List<String> again = new java.util.ArrayList<>();
        for (ExecutorEvent.ClusterObserved cluster : heartbeat.clusters()) {
            Instant before = observedThrough.get(cluster.clusterResource());
            if (before == null || cluster.observedThrough().isAfter(before)) {
                observedThrough.put(cluster.clusterResource(), cluster.observedThrough());
                observingSince.put(cluster.clusterResource(), cluster.observingSince());
                Set<String> jobs = held.remove(cluster.clusterResource());
                if (jobs != null) {
                    again.addAll(jobs);
                }
            }
        }
        return again;
    }

    /** A job that left the scheduler's memory holds nothing. */
    void forget(String jobId) {
        held.values().forEach(jobs -> jobs.remove(jobId));
    }

    /** How many deadlines are held (for tests and a gauge). */
    int held() {
        return held.values().stream().mapToInt(Set::size).sum();
    }
}
