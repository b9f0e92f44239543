package io.falcon.local;

import io.falcon.cli.JobSubmission;
import java.util.List;
import java.util.Optional;

/**
 * The jobs the local demo submits. The FALCON_SIM_* variables steer the simulated fleet (run time, OOM); a real
 * cluster ignores them.
 */
public final class DemoJobs {
    private DemoJobs() {}

    public static List<JobSubmission.Request> requests(String prefix) {
        return List.of(
                request(prefix + "-1", "alice", "profiling-v6e", "2x2", spec(3, "")),
                request(prefix + "-2", "bob", "benchmark-v6e", "2x4", spec(4, "")),
                request(prefix + "-3", "alice", "accuracy-v6e", "2x2", spec(2, "")),
                request(prefix + "-4", "carol", "oom-repro", "2x2", spec(2, ",\"FALCON_SIM_OOM\":\"true\"")),
                request(prefix + "-5", "dave", "bad-spec", "2x2", "{\"command\":[\"python\",\"train.py\"]}"));
    }

    private static JobSubmission.Request request(String id, String actor, String name, String topology, String spec) {
        return new JobSubmission.Request(id, actor, name, "v6e", topology, spec, Optional.empty(), Optional.of(600L));
    }

    private static String spec(int seconds, String extraEnv) {
        return "{\"image\":\"us-docker.pkg.dev/falcon-demo/jobs/train:1\",\"command\":[\"python\",\"train.py\"],"
                + "\"env\":{\"FALCON_SIM_DURATION_SECONDS\":\"" + seconds + "\"" + extraEnv + "}}";
    }
}
