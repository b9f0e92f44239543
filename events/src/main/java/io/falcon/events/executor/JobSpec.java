package io.falcon.events.executor;

import java.util.List;
import java.util.Map;

/** The validated workload of a task, parsed from the jobs.spec JSON. */
public record JobSpec(String image, List<String> command, List<String> args, Map<String, String> env) {
    public JobSpec {
        command = List.copyOf(command);
        args = List.copyOf(args);
        env = Map.copyOf(env);
    }
}
