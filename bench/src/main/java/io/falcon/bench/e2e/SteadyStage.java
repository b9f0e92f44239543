package io.falcon.bench.e2e;

import io.falcon.fleetsim.FleetMilestones.Milestone;
import io.falcon.fleetsim.FleetMilestones.Type;
import io.falcon.local.DemoFleet.DemoCluster;
import java.util.List;
import java.util.Optional;

/** b) Falcon's added latency per hop at a steady rate, each hop from the fleet's or the row's side. */
final class SteadyStage implements Stage {
    static final double GOAL_MS = 200;

    @Override
    public String name() {
        return "b";
    }

    @Override
    public int jobs(E2eOptions options) {
        return (int) Math.round(options.rate() * options.steadyFor().toMillis() / 1000.0);
    }

    @Override
    public List<DemoCluster> clusters(E2eOptions options) {
        return SteadyRun.clusters(options);
    }

    @Override
    public void run(E2e e2e, Table table) throws Exception {
        SteadyRun run = e2e.steady();
        Timeline.Index all = e2e.timeline.index();
        int[] queued = {0};
        Latencies first = run.firstHop(e2e, all, queued);
        Latencies ready = new Latencies();
        Latencies running = new Latencies();
        Latencies succeeded = new Latencies();
        for (String id : run.ids) {
            Optional<Milestone> created = all.first(id, Type.NODE_POOL_CREATED);
            Optional<Milestone> posted = all.first(id, Type.K8S_JOB_POSTED);
            if (created.isPresent()
                    && posted.isPresent()
                    && posted.get().pool().equals(created.get().pool())) {
                all.first(id, Type.NODES_READY)
                        .ifPresent(r -> ready.add(r.at(), posted.get().at()));
            }
            all.first(id, Type.PODS_RUNNING)
                    .ifPresent(r -> e2e.rows
                            .first(id, ch -> "Running".equals(ch.status()))
                            .ifPresent(ch -> running.add(r.at(), ch.seenAt())));
            all.first(id, Type.K8S_JOB_FINISHED)
                    .ifPresent(f -> e2e.rows
                            .first(id, ch -> "Succeeded".equals(ch.status()))
                            .ifPresent(ch -> succeeded.add(f.at(), ch.seenAt())));
        }
        String rate = String.format(" at %.0f jobs/s", e2e.options.rate());
        table.latency(
                "b) INSERT -> first CreateNodePool",
                first,
                GOAL_MS,
                rate + "; jobs whose queue was free (" + queued[0] + " queued behind another are left out)");
        table.latency("b) last node Ready -> Job POST", ready, GOAL_MS, rate);
        table.latency(
                "b) all pods Running -> row shows Running",
                running,
                GOAL_MS,
                rate + "; row read every " + e2e.options.rowPoll().toMillis() + " ms");
        table.latency(
                "b) Job complete -> row shows Succeeded",
                succeeded,
                GOAL_MS,
                rate + "; row read every " + e2e.options.rowPoll().toMillis() + " ms");
        if (!run.allFinal) {
            table.add(new Table.Row("b) (not every job ended in time)", "", "", "", "NO", ""));
        }
    }
}
