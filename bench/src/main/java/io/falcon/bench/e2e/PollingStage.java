package io.falcon.bench.e2e;

import io.falcon.local.DemoFleet.DemoCluster;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** d) The polling baseline beside the steady run, and Falcon's first hop as a ratio to it. */
final class PollingStage implements Stage {
    static final double GOAL_RATIO = 20;

    @Override
    public String name() {
        return "d";
    }

    @Override
    public List<DemoCluster> clusters(E2eOptions options) {
        return SteadyRun.clusters(options);
    }

    @Override
    public void run(E2e e2e, Table table) throws Exception {
        SteadyRun run = e2e.steady();
        Latencies poller = new Latencies();
        int missed = 0;
        for (String id : run.ids) {
            Instant picked = run.pickedUp.get(id);
            if (picked == null) {
                missed++;
            } else {
                poller.add(e2e.timeline.insertedAt(id).orElseThrow(), picked);
            }
        }
        Latencies falcon = run.firstHop(e2e, e2e.timeline.index(), new int[1]);
        table.latency(
                "d) poller every " + e2e.options.pollEvery().toSeconds() + " s: INSERT -> picked up",
                poller,
                Double.NaN,
                missed == 0 ? "" : "; " + missed + " never picked up");
        double r50 = poller.p50() / falcon.p50();
        double r99 = poller.p99() / falcon.p99();
        boolean met = r50 >= GOAL_RATIO && r99 >= GOAL_RATIO;
        table.add(new Table.Row(
                "d) poller / Falcon's first hop (INSERT -> CreateNodePool)",
                String.format(Locale.ROOT, "%.1fx", r50),
                String.format(Locale.ROOT, "%.1fx", r99),
                ">= 20x",
                falcon.size() == 0 ? "n/a" : met ? "yes" : "NO",
                "p50 over p50, p99 over p99"));
    }
}
