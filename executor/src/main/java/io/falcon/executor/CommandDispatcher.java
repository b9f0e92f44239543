package io.falcon.executor;

import io.falcon.events.executor.ExecutorCommand;
import io.falcon.executor.gke.NodePoolManager;
import io.falcon.executor.k8s.JobStatusReconciler;
import io.falcon.executor.k8s.JobSubmitter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Routes each command to its handler. Handlers report their own failures as events; nothing here blocks long. */
public final class CommandDispatcher {
    private static final Logger log = LoggerFactory.getLogger(CommandDispatcher.class);

    private final NodePoolManager nodePools;
    private final JobSubmitter jobs;
    private final JobStatusReconciler reconciler;

    public CommandDispatcher(NodePoolManager nodePools, JobSubmitter jobs, JobStatusReconciler reconciler) {
        this.nodePools = nodePools;
        this.jobs = jobs;
        this.reconciler = reconciler;
    }

    public void handle(ExecutorCommand command) {
        try (var ignored = Mdc.of("job", command.jobId(), "cluster", command.cluster().clusterId())) {
            log.info("command {} eventId={}", command.getClass().getSimpleName(), command.meta().eventId());
        }
        if (command instanceof ExecutorCommand.EnsureNodePool c) {
            nodePools.ensure(c);
        } else if (command instanceof ExecutorCommand.EnsureNodePoolDeleted c) {
            nodePools.ensureDeleted(c);
        } else if (command instanceof ExecutorCommand.EnsureJob c) {
            jobs.ensure(c);
        } else if (command instanceof ExecutorCommand.EnsureJobDeleted c) {
            jobs.ensureDeleted(c);
        } else {
            throw new IllegalArgumentException("unknown command " + command.getClass().getName());
        }
    }

    /** Starts the status informers of the cluster (best effort: a failure is logged and retried on next use). */
    public void watchCluster(io.falcon.events.executor.ClusterTarget cluster) {
        try {
            reconciler.watch(cluster);
        } catch (RuntimeException e) {
            log.warn("cannot watch cluster {} yet: {}", cluster.clusterId(), e.getMessage());
        }
    }
}
