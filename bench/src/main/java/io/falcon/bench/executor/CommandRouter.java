package io.falcon.bench.executor;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.executor.CommandDispatcher;
import io.falcon.executor.Mdc;
import io.falcon.executor.core.JobDriver;
import io.falcon.executor.gke.NodePoolManager;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link CommandDispatcher#handle} does with a command, without the job informers: the real dispatcher needs a
 * JobStatusReconciler, which watches the edge clusters through fabric8 and so has no in-memory side. Everything else
 * is kept, because it costs the command loop time: the command's log line, the inventory of a cluster at its first
 * sight (a listNodePools call, made under the dispatcher's lock as {@code CommandDispatcher.watchCluster} makes it),
 * and the routing to the NodePoolManager and the JobDriver.
 */
final class CommandRouter {
    private static final Logger log = LoggerFactory.getLogger(CommandDispatcher.class);

    private final NodePoolManager nodePools;
    private final JobDriver jobs;
    private final Set<String> seenClusters = ConcurrentHashMap.newKeySet();

    CommandRouter(NodePoolManager nodePools, JobDriver jobs) {
        this.nodePools = nodePools;
        this.jobs = jobs;
    }

    void handle(ExecutorCommand command) {
        try (var ignored =
                Mdc.of("job", command.jobId(), "cluster", command.cluster().clusterId())) {
            log.info(
                    "command {} eventId={}",
                    command.getClass().getSimpleName(),
                    command.meta().eventId());
        }
        firstSight(command.cluster());
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

    /** As CommandDispatcher.watchCluster: synchronized, so every lane waits while a new cluster is inventoried. */
    private synchronized void firstSight(ClusterTarget cluster) {
        if (seenClusters.add(cluster.resourceName())) {
            nodePools.discovered(cluster);
        }
    }
}
