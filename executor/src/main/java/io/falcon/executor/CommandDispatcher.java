package io.falcon.executor;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.executor.core.JobDriver;
import io.falcon.executor.gke.NodePoolManager;
import io.falcon.executor.k8s.JobStatusReconciler;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Routes each command to its handler. Handlers report their own failures as events; nothing here blocks long. */
public final class CommandDispatcher {
    private static final Logger log = LoggerFactory.getLogger(CommandDispatcher.class);

    private final NodePoolManager nodePools;
    private final JobDriver jobs;
    private final JobStatusReconciler reconciler;
    private final Set<String> recovered = ConcurrentHashMap.newKeySet();
    private final Map<String, ClusterTarget> targets = new ConcurrentHashMap<>();

    public CommandDispatcher(NodePoolManager nodePools, JobDriver jobs, JobStatusReconciler reconciler) {
        this.nodePools = nodePools;
        this.jobs = jobs;
        this.reconciler = reconciler;
    }

    public void handle(ExecutorCommand command) {
        try (var ignored =
                Mdc.of("job", command.jobId(), "cluster", command.cluster().clusterId())) {
            log.info(
                    "command {} eventId={}",
                    command.getClass().getSimpleName(),
                    command.meta().eventId());
        }
        watchCluster(command.cluster());
        if (command instanceof ExecutorCommand.EnsureNodePool c) {
            nodePools.ensure(c);
        } else if (command instanceof ExecutorCommand.EnsureNodePoolDeleted c) {
            nodePools.ensureDeleted(c);
        } else if (command instanceof ExecutorCommand.EnsureJob c) {
            jobs.ensure(c);
        } else if (command instanceof ExecutorCommand.EnsureJobDeleted c) {
            jobs.ensureDeleted(c);
        } else {
            throw new IllegalArgumentException(
                    "unknown command " + command.getClass().getName());
        }
    }

    /**
     * The command partitions of these clusters went to another executor (or this loop lost them): the work in memory
     * their commands started stops. Only the node pools have any (JobDriver keeps nothing between commands; the
     * informers only report, and two executors reporting the same observation is harmless).
     */
    public void revoked(Set<String> clusterIds) {
        nodePools.revoked(clusterIds);
    }

    /**
     * First time a GKE cluster is seen (a command, or the clusters registry): report its node pools at once and start
     * its job/pod informers. Per GKE cluster (projects/P/locations/L/clusters/N), not per clusters row: when a row
     * moves to another cluster, commands keep coming for both (the cleanup of what was created at the old one, the
     * new jobs at the new one), and each keeps its informers; switching them from one to the other at each command
     * left the jobs of the one not watched last unreported (simulation seed 2000401: a job that succeeded at the
     * new location ended Failed/JobFailed). Nothing in flight is resumed from here: the scheduler re-sends every
     * command it still wants, and each is carried on from what GKE and Kubernetes show. Best effort: a failure is
     * logged and retried on the next use.
     */
    public synchronized void watchCluster(ClusterTarget cluster) {
        ClusterTarget previous = targets.put(cluster.clusterId(), cluster);
        if (previous != null && !previous.resourceName().equals(cluster.resourceName())) {
            log.info(
                    "cluster {} now at {} (was {}): watching both while commands name either",
                    cluster.clusterId(),
                    cluster.resourceName(),
                    previous.resourceName());
        }
        if (recovered.add(cluster.resourceName())) {
            nodePools.discovered(cluster);
        }
        if (reconciler.isWatching(cluster)) {
            return;
        }
        try {
            reconciler.watch(cluster);
        } catch (RuntimeException e) {
            log.warn("cannot watch cluster {} yet: {}", cluster.resourceName(), e.getMessage());
        }
    }
}
