package io.falcon.executor;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.executor.core.JobDriver;
import io.falcon.executor.gke.NodePoolManager;
import io.falcon.executor.k8s.EdgeClusterClients;
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
    private final EdgeClusterClients edges;
    private final Set<String> recovered = ConcurrentHashMap.newKeySet();
    private final Map<String, ClusterTarget> targets = new ConcurrentHashMap<>();

    public CommandDispatcher(
            NodePoolManager nodePools, JobDriver jobs, JobStatusReconciler reconciler, EdgeClusterClients edges) {
        this.nodePools = nodePools;
        this.jobs = jobs;
        this.reconciler = reconciler;
        this.edges = edges;
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
     * First time a cluster is seen (a command, or the clusters registry): report its node pools at once and start
     * its job/pod informers. Nothing in flight is resumed from here: the scheduler re-sends every command it still
     * wants, and each is carried on from what GKE and Kubernetes show. Best effort: a failure is logged and retried
     * on the next use.
     */
    public synchronized void watchCluster(ClusterTarget cluster) {
        ClusterTarget previous = targets.put(cluster.clusterId(), cluster);
        if (previous != null && !previous.equals(cluster)) {
            // The clusters row changed (name, project, location...): rebuild the client from getCluster and restart
            // the informers on it, and look at the (possibly other) cluster's pools again.
            log.info(
                    "cluster {} changed from {} to {}: rebuilding its clients",
                    cluster.clusterId(),
                    previous.resourceName(),
                    cluster.resourceName());
            reconciler.unwatch(cluster.clusterId());
            edges.evict(cluster.clusterId());
            recovered.remove(cluster.clusterId());
        }
        if (recovered.add(cluster.clusterId())) {
            nodePools.discovered(cluster);
        }
        if (reconciler.isWatching(cluster.clusterId())) {
            return;
        }
        try {
            reconciler.watch(cluster);
        } catch (RuntimeException e) {
            log.warn("cannot watch cluster {} yet: {}", cluster.clusterId(), e.getMessage());
        }
    }
}
