package io.falcon.bench.e2e;

import io.falcon.local.DemoFleet.DemoCluster;
import java.util.List;

/**
 * One stage of the end-to-end run ({@code --stages a,b,...}): the clusters it needs in the simulated fleet (registered
 * before Falcon starts) and a run that drives its load and adds its rows to the one table. Stages run one after the
 * other in the order given, on the same Falcon; each leaves no live job behind. A new stage is a class implementing
 * this, listed in {@link E2eMain#STAGES}.
 */
interface Stage {
    /** The name on the command line, e.g. "b2". */
    String name();

    /** The clusters of its load (ids unique across stages; a stage may share another's clusters by id). */
    List<DemoCluster> clusters(E2eOptions options);

    void run(E2e e2e, Table table) throws Exception;

    /** How many jobs the stage submits, for the CPU per job (0: none of its own). */
    default int jobs(E2eOptions options) {
        return 0;
    }

    static DemoCluster cluster(String name, String tpuType) {
        return new DemoCluster(
                "e2e-" + name,
                name,
                "falcon-e2e",
                "us-central1",
                tpuType,
                "falcon-e2e-logs",
                java.util.Optional.empty());
    }
}
