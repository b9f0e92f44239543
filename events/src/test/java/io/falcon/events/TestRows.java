package io.falcon.events;

import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.cdc.SourcePosition;
import java.time.Instant;
import java.util.Optional;

/** Builders of rows and row changes for tests of every module (shipped in the events test-jar). */
public final class TestRows {
    public static final String SPEC = "{\"image\":\"us-docker.pkg.dev/p/r/train:1\",\"command\":[\"python\",\"train.py\"]}";
    private static final SourcePosition SOURCE = new SourcePosition("mysql-bin.000001", 4, 0, 0);

    private TestRows() {
    }

    public static JobRow job(String id, String actor, String tpuType, String topology, String spec) {
        return new JobRow(id, actor, "name-" + id, tpuType, topology, spec, Optional.empty(), Optional.empty(),
                "Pending", Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.of(Instant.parse("2026-12-02T09:00:00Z")), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    public static JobRow withStatus(JobRow row, String status) {
        return new JobRow(row.id(), row.actor(), row.name(), row.tpuType(), row.topology(), row.spec(),
                row.supplyMode(), row.timeoutSeconds(), status, row.reason(), row.message(), row.clusterId(),
                row.nodePoolName(), row.k8sJobName(), row.jobUid(), row.createdAt(), row.dispatchedAt(),
                row.finishedAt(), "Aborting".equals(status) ? Optional.of(Instant.parse("2026-12-02T09:30:00Z"))
                        : row.abortingAt(), row.abortedAt(), row.updatedAt());
    }

    public static JobChange inserted(JobRow row) {
        return new JobChange(Meta.of("test", Instant.EPOCH), ChangeOp.CREATE, Optional.empty(), Optional.of(row),
                SOURCE);
    }

    public static JobChange updated(JobRow before, JobRow after) {
        return new JobChange(Meta.of("test", Instant.EPOCH), ChangeOp.UPDATE, Optional.of(before), Optional.of(after),
                SOURCE);
    }

    public static ClusterRow cluster(String id, String tpuType, String status) {
        return new ClusterRow(id, "edge-" + id, "proj-" + id, "us-central1", tpuType, "bucket-" + id,
                Optional.empty(), ClusterStatus.fromWire(status), Optional.empty());
    }

    public static ClusterChange clusterInserted(ClusterRow row) {
        return new ClusterChange(Meta.of("test", Instant.EPOCH), ChangeOp.CREATE, Optional.empty(), Optional.of(row),
                SOURCE);
    }
}
