package io.falcon.cdc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Row maps shaped like what {@link RecordAdapter} produces from Debezium's jobs/clusters records. */
final class Rows {
    private Rows() {}

    static Map<String, Object> job(String id) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", id);
        r.put("actor", "alice");
        r.put("name", "train-" + id);
        r.put("tpu_type", "v5e");
        r.put("topology", "2x4");
        r.put("spec", "{\"image\":\"gcr.io/x/y:1\",\"command\":[\"python\",\"train.py\"]}");
        r.put("supply_mode", null);
        r.put("timeout_seconds", null);
        r.put("priority", null);
        r.put("status", "Pending");
        r.put("reason", null);
        r.put("message", null);
        r.put("cluster_id", null);
        r.put("node_pool_name", null);
        r.put("k8s_job_name", null);
        r.put("job_uid", null);
        r.put("created_at", "2025-03-01T10:15:30.123Z");
        r.put("dispatched_at", null);
        r.put("finished_at", null);
        r.put("aborting_at", null);
        r.put("aborted_at", null);
        r.put("updated_at", "2025-03-01T10:15:30.123Z");
        return r;
    }

    static Map<String, Object> with(Map<String, Object> row, Object... kv) {
        Map<String, Object> r = new LinkedHashMap<>(row);
        for (int i = 0; i < kv.length; i += 2) {
            r.put((String) kv[i], kv[i + 1]);
        }
        return r;
    }

    static Map<String, Object> without(Map<String, Object> row, String column) {
        Map<String, Object> r = new LinkedHashMap<>(row);
        r.remove(column);
        return r;
    }

    static Map<String, Object> cluster(String id) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", id);
        r.put("name", "edge-" + id);
        r.put("project", "proj-1");
        r.put("location", "us-central2-b");
        r.put("tpu_type", "v5e");
        r.put("gcs_bucket", "gs://bucket-" + id);
        r.put("default_reservation", null);
        r.put("status", "active");
        r.put("created_at", "2025-01-02T03:04:05.006Z");
        return r;
    }

    static RawChange.Source binlog(long pos, long row) {
        return new RawChange.Source("mysql-bin.000003", pos, row, 1_740_824_130_000L, false);
    }

    static RawChange.Source snapshot() {
        return new RawChange.Source("mysql-bin.000003", 4711, 0, 1_740_824_000_000L, true);
    }

    static RawChange change(
            String table, String op, Map<String, Object> before, Map<String, Object> after, RawChange.Source source) {
        return new RawChange(
                "falcon",
                table,
                op,
                Optional.ofNullable(before),
                Optional.ofNullable(after),
                source,
                1_740_824_131_000L);
    }
}
