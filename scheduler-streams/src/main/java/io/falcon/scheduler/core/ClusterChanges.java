package io.falcon.scheduler.core;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A clusters row inserted, changed or deleted (recovery rule 4: no handler assumes a cluster row exists). Waiting
 * jobs follow the clusters that can start them; jobs whose resources Falcon can no longer reach where they are end;
 * pools of a cluster that is gone are deleted where they were created.
 */
final class ClusterChanges {
    private final SchedulerState state;
    private final Placement placement;
    private final PoolLifecycle pools;
    private final JobEnding ending;
    private final Orphans orphans;

    private final Retrying retrying;

    ClusterChanges(
            SchedulerState state,
            Placement placement,
            PoolLifecycle pools,
            JobEnding ending,
            Orphans orphans,
            Retrying retrying) {
        this.state = state;
        this.placement = placement;
        this.pools = pools;
        this.ending = ending;
        this.orphans = orphans;
        this.retrying = retrying;
    }

    /**
     * A cluster that now names another GKE cluster (name, project or location changed) loses its active jobs, which
     * are ended and whose resources at the old location are deleted; a cluster that leaves active has its waiting
     * jobs re-routed; one that becomes active takes its share of the backlog.
     */
    void upserted(ClusterRow cluster, Instant now, Decisions out) {
        out.clusterChanged(cluster.id());
        ClusterRow previous = state.clusters.put(cluster.id(), cluster);
        if (previous != null && !previous.tpuType().equals(cluster.tpuType())) {
            // Its queues hold jobs of the old type: they are placed again like those of a deleted cluster.
            lose(previous, previous.name() + " (" + previous.id() + ") changed tpu_type", now, out);
            state.clusters.put(cluster.id(), cluster);
            placement.rebalanceWaitingJobs(cluster.tpuType(), now, out);
            return;
        }
        if (previous != null && !SchedulerState.target(previous).sameCluster(SchedulerState.target(cluster))) {
            state.health.forget(cluster.id(), now); // another GKE cluster: what the old one refused says nothing of it
            endActiveJobsOf(
                    cluster.id(),
                    job -> Messages.clusterMoved(
                            cluster.id(),
                            SchedulerState.target(previous).resourceName(),
                            SchedulerState.target(cluster).resourceName(),
                            phaseWord(job)),
                    now,
                    out);
        }
        boolean lostReservation = previous != null
                && previous.defaultReservation().filter(r -> !r.isBlank()).isPresent()
                && cluster.defaultReservation().filter(r -> !r.isBlank()).isEmpty();
        if (lostReservation && cluster.isActive()) {
            // its waiting jobs that ask for supply_mode=reservation cannot start here any more: they move (or wait
            // for a cluster with one); a job already short of room here waits for a reservation to be set again
            placement.rerouteWaitingJobsOf(
                    cluster.id(),
                    job -> job.request()
                            .supplyMode()
                            .filter(SupplyMode.RESERVATION::equals)
                            .isPresent(),
                    now,
                    out);
        }
        boolean lostActive = previous != null && previous.isActive() && !cluster.isActive();
        if (lostActive) {
            placement.rerouteWaitingJobsOf(cluster.id(), now, out);
        }
        boolean gainedActive = cluster.isActive() && (previous == null || !previous.isActive());
        if (gainedActive) {
            placement.rebalanceWaitingJobs(cluster.tpuType(), now, out);
        }
        if (previous != null && !previous.status().equals(cluster.status())) {
            noteClusterStatusOnRunningJobs(cluster, now, out);
        }
    }

    /**
     * A clusters row was deleted: its waiting jobs are placed again (another active cluster of the type, else they
     * wait for one), its active jobs end (Failed, or Aborted if they were aborting) with a Message naming the
     * cluster, and its node pools and Kubernetes Jobs are deleted where they were created.
     */
    void removed(String clusterId, Instant now, Decisions out) {
        out.clusterChanged(clusterId);
        Optional<ClusterRow> removed = Optional.ofNullable(state.clusters.get(clusterId));
        String name = removed.map(r -> r.name() + " (" + clusterId + ")").orElse(clusterId);
        if (removed.isPresent()) {
            lose(removed.get(), name, now, out);
        } else {
            // Nothing was known of it; still end anything that refers to it (a restored, inconsistent state).
            endActiveJobsOf(clusterId, job -> Messages.clusterRemoved(name, phaseWord(job)), now, out);
        }
    }

    /** Running jobs of a cluster that is not active say so in their Message, and stop saying it when it is again. */
    private void noteClusterStatusOnRunningJobs(ClusterRow cluster, Instant now, Decisions out) {
        for (ScheduledJob job : List.copyOf(state.jobs.values())) {
            if (job.phase() == Phase.RUNNING
                    && job.clusterId().filter(cluster.id()::equals).isPresent()) {
                String message = state.runningMessage(Messages.withoutClusterNote(job.message()), cluster.id());
                if (!job.shows(message)) {
                    state.publish(job, Status.Running, Optional.empty(), message, now, out);
                }
            }
        }
    }

    /**
     * The cluster is gone for this scheduler (row deleted, or moved to another TPU type): its active jobs end, its
     * waiting jobs are placed elsewhere, its pools are deleted and its queues forgotten.
     */
    private void lose(ClusterRow lost, String name, Instant now, Decisions out) {
        String clusterId = lost.id();
        state.clusters.remove(clusterId); // first, so that nothing below starts a job or reuses a pool there
        endActiveJobsOf(clusterId, job -> Messages.clusterRemoved(name, phaseWord(job)), now, out);
        List<ScheduledJob> waiting = new ArrayList<>();
        List<QueueKey> affected = state.queues.keySet().stream()
                .filter(k -> k.clusterId().equals(clusterId))
                .toList();
        for (QueueKey key : affected) {
            WaitQueue queue = state.queues.remove(key);
            out.queueChanged(key);
            for (WaitQueue.Entry entry : queue.pickOrder(Integer.MAX_VALUE)) {
                waiting.add(state.jobs.get(entry.jobId()));
            }
        }
        placement.placeAll(waiting, now, out);
        for (NodePool pool : List.copyOf(state.pools.values())) {
            if (pool.clusterId().equals(clusterId)
                    && pool.state() != NodePool.State.DELETING
                    && !keptUntilItsJobIsGone(pool)) {
                pools.delete(pool, now, out);
            }
        }
        orphans.forgetCluster(clusterId);
        state.health.forget(clusterId, now);
    }

    /**
     * A pool its job keeps while that job's Kubernetes Job is being deleted (the job waits to run again, or is
     * aborting): the job deletes it once the Job is gone, so that no pool goes from under a Job's terminating pods.
     */
    private boolean keptUntilItsJobIsGone(NodePool pool) {
        return pool.heldBy()
                .map(state.jobs::get)
                .filter(job -> job.phase() == Phase.RETRYING || job.phase().aborting())
                .filter(job -> job.nodePoolName().filter(pool.name()::equals).isPresent())
                .isPresent();
    }

    /**
     * Ends the jobs of a cluster whose resources Falcon can no longer reach where they are: slot holders first (so
     * that their queue does not hand a released pool to another of them), then running and aborting jobs.
     */
    private void endActiveJobsOf(String clusterId, Function<ScheduledJob, String> message, Instant now, Decisions out) {
        List<ScheduledJob> affected = state.jobs.values().stream()
                .filter(j -> j.clusterId().filter(clusterId::equals).isPresent())
                .filter(j -> j.phase() == Phase.PROVISIONING
                        || j.phase() == Phase.DISPATCHING
                        || j.phase() == Phase.RUNNING
                        || j.phase().aborting())
                .sorted(Comparator.comparing((ScheduledJob j) -> !j.phase().holdsSlot())
                        .thenComparing(ScheduledJob::id))
                .toList();
        for (ScheduledJob stale : affected) {
            ScheduledJob job = state.jobs.get(stale.id());
            if (job.phase() == Phase.DONE) {
                continue;
            }
            switch (job.phase()) {
                case ABORTING, CANCELLING ->
                    ending.end(job, Status.Aborted, Optional.empty(), Messages.aborted(), now, out);
                // the cluster went away under the attempt: the fleet's doing, so it may run again on another
                case PROVISIONING ->
                    retrying.retryOrEnd(
                            job,
                            io.falcon.events.executor.FailureCause.infrastructure("ClusterLeft"),
                            Reason.NodePoolFailed,
                            Messages.nodePoolFailed(message.apply(job)),
                            false,
                            now,
                            out);
                default ->
                    retrying.retryOrEnd(
                            job,
                            io.falcon.events.executor.FailureCause.infrastructure("ClusterLeft"),
                            Reason.JobFailed,
                            message.apply(job),
                            false,
                            now,
                            out);
            }
        }
    }

    private static String phaseWord(ScheduledJob job) {
        return switch (job.phase()) {
            case PROVISIONING -> "provisioning";
            case DISPATCHING -> "dispatching";
            case RUNNING -> "running";
            case ABORTING, CANCELLING -> "aborting";
            default -> "waiting";
        };
    }
}
