package io.falcon.events.executor;

import java.util.List;
import java.util.Map;

/** The validated workload of a task, parsed from the jobs.spec JSON. */
public record JobSpec(String image, List<String> command, List<String> args, Map<String, String> env) {
    /** The pod's name, which the workload's log file is named after (the executor sets it from the pod). */
    public static final String POD_NAME_ENV = "POD_NAME";

    /** The job id, set by the executor in every pod. */
    public static final String JOB_ID_ENV = "FALCON_JOB_ID";

    /** Variables Falcon sets in the pod: a spec may not give them (InvalidSpec), so they cannot be overridden. */
    public static final java.util.Set<String> FALCON_ENV = java.util.Set.of(POD_NAME_ENV, JOB_ID_ENV);

    public JobSpec {
        command = List.copyOf(command);
        args = List.copyOf(args);
        env = Map.copyOf(env);
    }
}
