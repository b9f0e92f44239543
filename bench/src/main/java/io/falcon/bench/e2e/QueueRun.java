package io.falcon.bench.e2e;

import io.falcon.local.DemoFleet.DemoCluster;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A backlog on four queues (two v5p clusters x two topologies), INSERTed at once in multi-row batches. */
final class QueueRun {
    static final String TPU = "v5p";
    static final List<String> TOPOLOGIES = List.of("2x2x1", "2x2x2");

    final List<String> ids = new ArrayList<>();
    final Map<String, String> topology = new HashMap<>();
    Instant firstInsert;

    static List<DemoCluster> clusters() {
        return List.of(Stage.cluster("queue-1", TPU), Stage.cluster("queue-2", TPU));
    }

    static QueueRun insert(E2e e2e, String prefix, int jobs, double runSeconds) throws Exception {
        QueueRun run = new QueueRun();
        List<E2e.JobRow> rows = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            String id = prefix + String.format("%05d", i);
            String topo = TOPOLOGIES.get(i % TOPOLOGIES.size());
            rows.add(new E2e.JobRow(id, "actor-" + (i % 4), TPU, topo, runSeconds));
            run.ids.add(id);
            run.topology.put(id, topo);
        }
        try (Connection c = e2e.connect()) {
            for (int from = 0; from < rows.size(); from += 500) {
                List<E2e.JobRow> batch = rows.subList(from, Math.min(rows.size(), from + 500));
                e2e.insertBatch(c, batch);
                if (run.firstInsert == null) {
                    run.firstInsert = e2e.timeline.insertedAt(batch.get(0).id()).orElseThrow();
                }
            }
        }
        return run;
    }
}
