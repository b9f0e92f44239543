package io.falcon.executor;

import io.falcon.events.Meta;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Commands for tests. */
public final class Fixtures {
    public static final Instant T0 = Instant.parse("2026-04-15T10:00:00Z");

    private Fixtures() {}

    public static Meta meta() {
        return Meta.of("test", T0);
    }

    public static ClusterTarget cluster() {
        return new ClusterTarget("c-1", "tpuv7x-64-node", "poc-tpu-partner", "us-central1", "v7x", "bucket-a");
    }

    public static ExecutorCommand.EnsureJob ensureJob(String jobId, String topology, JobSpec spec) {
        return new ExecutorCommand.EnsureJob(
                meta(), jobId, cluster(), "falcon-" + jobId, "falcon-" + jobId, "v7x", topology, spec);
    }

    public static JobSpec spec() {
        return new JobSpec(
                "us-docker.pkg.dev/p/r/train:1",
                List.of("python", "train.py"),
                List.of("--steps", "it's 10"),
                Map.of("B", "2", "A", "1"));
    }

    public static ExecutorCommand.EnsureNodePool ensurePool(
            String jobId, String topology, SupplyMode mode, String reservation) {
        return new ExecutorCommand.EnsureNodePool(
                meta(), jobId, cluster(), "falcon-" + jobId, "v7x", topology, mode, Optional.ofNullable(reservation));
    }

    public static ExecutorCommand.EnsureJobDeleted deleteJob(String jobId) {
        return new ExecutorCommand.EnsureJobDeleted(meta(), jobId, cluster(), "falcon-" + jobId);
    }

    public static ExecutorCommand.EnsureNodePoolDeleted deletePool(String jobId) {
        return new ExecutorCommand.EnsureNodePoolDeleted(meta(), jobId, cluster(), "falcon-" + jobId);
    }
}
