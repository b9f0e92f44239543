package io.falcon.bench.e2e;

import io.falcon.fleetsim.FleetMilestones.Milestone;
import io.falcon.fleetsim.FleetMilestones.Type;
import io.falcon.local.DemoFleet.DemoCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * c) Idle TPU time: a backlog of short jobs on four queues, so a job ending usually leaves its pool to a waiting job
 * (job end -> that job's Job POST on the pool) and the last ones leave it to nobody (job end -> DeleteNodePool); the
 * steady run's jobs, when it ran, add their ends with nothing waiting.
 */
final class ReuseStage implements Stage {
    static final double GOAL_MS = 200;

    @Override
    public String name() {
        return "c";
    }

    @Override
    public int jobs(E2eOptions options) {
        return options.reuseJobs();
    }

    @Override
    public List<DemoCluster> clusters(E2eOptions options) {
        return QueueRun.clusters();
    }

    @Override
    public void run(E2e e2e, Table table) throws Exception {
        int n = e2e.options.reuseJobs();
        String prefix = "e2ec-" + E2eMain.RUN + "-";
        e2e.log("reuse: %d jobs on 4 queues, running %.1f s each", n, e2e.options.reuseRunSeconds());
        QueueRun run = QueueRun.insert(e2e, prefix, n, e2e.options.reuseRunSeconds());
        boolean done = e2e.awaitFinal(run.ids, Duration.ofMinutes(Math.max(3, n / 40)));
        Thread.sleep(500); // the last pools' deletions
        e2e.log("reuse: all final: %s %s", done, e2e.rows.statusCounts(run.ids));
        List<String> jobs = new ArrayList<>(run.ids);
        SteadyRun steady = e2e.steadyIfRan();
        if (steady != null) {
            jobs.addAll(steady.ids);
        }
        Timeline.Index all = e2e.timeline.index();
        Latencies reused = new Latencies();
        Latencies deleted = new Latencies();
        for (String id : jobs) {
            Optional<Milestone> finished = all.first(id, Type.K8S_JOB_FINISHED);
            Optional<Milestone> posted = all.first(id, Type.K8S_JOB_POSTED);
            if (finished.isEmpty() || posted.isEmpty() || posted.get().pool().isEmpty()) {
                continue;
            }
            Milestone end = finished.get();
            all.pool(posted.get().cluster(), posted.get().pool().get()).stream()
                    .filter(m -> m.at().isAfter(end.at())
                            && (m.type() == Type.NODE_POOL_DELETED
                                    || m.type() == Type.K8S_JOB_POSTED
                                            && !m.job().equals(end.job())))
                    .findFirst()
                    .ifPresent(next ->
                            (next.type() == Type.NODE_POOL_DELETED ? deleted : reused).add(end.at(), next.at()));
        }
        String with = steady == null ? "" : "; this stage's and the steady run's jobs";
        table.latency("c) job end -> next job's Job POST on the reused pool", reused, GOAL_MS, with);
        table.latency("c) job end -> DeleteNodePool (nothing waits)", deleted, GOAL_MS, with);
        if (!done) {
            table.add(new Table.Row("c) (not every job ended in time)", "", "", "", "NO", ""));
        }
    }
}
