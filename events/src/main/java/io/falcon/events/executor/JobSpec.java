package io.falcon.events.executor;

import io.falcon.events.ResourceNames;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The validated workload of a task, parsed from the jobs.spec JSON.
 *
 * @param env variables given inline in the spec: their values travel in clear wherever the spec does
 * @param secretEnv variables whose value the kubelet takes from a Kubernetes Secret of the job's actor in the Jobs
 *     namespace ({@code "env": {"TOKEN": {"secretKeyRef": {"name": "hf-token", "key": "token"}}}}): only the
 *     reference travels, and the Secret referenced is {@link #secretName the actor's} ({@code <actor key>.<name>});
 *     records written before it existed read as none
 */
public record JobSpec(
        String image,
        List<String> command,
        List<String> args,
        Map<String, String> env,
        Map<String, SecretRef> secretEnv) {
    /** The pod's name, which the workload's log file is named after (the executor sets it from the pod). */
    public static final String POD_NAME_ENV = "POD_NAME";

    /** The job id, set by the executor in every pod. */
    public static final String JOB_ID_ENV = "FALCON_JOB_ID";

    /** Variables Falcon sets in the pod: a spec may not give them (InvalidSpec), so they cannot be overridden. */
    public static final java.util.Set<String> FALCON_ENV = java.util.Set.of(POD_NAME_ENV, JOB_ID_ENV);

    /**
     * The longest Secret name a spec may give: the Secret referenced is {@code <actor key>.<name>}, a Kubernetes
     * object name of at most 253 characters, and an actor key has at most 60.
     */
    public static final int MAX_SECRET_NAME = 253 - 61;

    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern SECRET_KEY = Pattern.compile("[-._a-zA-Z0-9]+");

    /** A key of a Kubernetes Secret, by the Secret's name as the spec gives it (the actor's prefix not included). */
    public record SecretRef(String name, String key) {}

    public JobSpec {
        command = List.copyOf(command);
        args = List.copyOf(args);
        env = Map.copyOf(env);
        secretEnv = secretEnv == null ? Map.of() : Map.copyOf(secretEnv);
    }

    /** A spec with inline variables only. */
    public JobSpec(String image, List<String> command, List<String> args, Map<String, String> env) {
        this(image, command, args, env, Map.of());
    }

    /** The Secret the actor's job gets for a reference to {@code name}: the actor's own ({@link ResourceNames}). */
    public static String secretName(String actor, String name) {
        return ResourceNames.actorSecret(actor, name);
    }

    /**
     * Why a spec's Secret name cannot be used, if it cannot: a lowercase DNS subdomain (what Kubernetes takes as a
     * Secret's name) of at most {@link #MAX_SECRET_NAME} characters.
     */
    public static Optional<String> secretNameProblem(String name) {
        if (name.isEmpty()
                || name.length() > MAX_SECRET_NAME
                || !DNS_SUBDOMAIN.matcher(name).matches()) {
            return Optional.of("must be a Kubernetes Secret name (lowercase letters, digits, '-' and '.', starting and"
                    + " ending with a letter or digit) of at most " + MAX_SECRET_NAME + " characters");
        }
        return Optional.empty();
    }

    /**
     * Why a Secret key cannot be used, if it cannot: Kubernetes' rule for Secret and ConfigMap keys (letters, digits,
     * '-', '_' and '.', at most 253, not '.' or '..' nor starting with '..').
     */
    public static Optional<String> secretKeyProblem(String key) {
        if (key.isEmpty()
                || key.length() > 253
                || !SECRET_KEY.matcher(key).matches()
                || key.equals(".")
                || key.startsWith("..")) {
            return Optional.of("must be a Secret key (letters, digits, '-', '_' and '.', at most 253 characters, not"
                    + " '.' and not starting with '..')");
        }
        return Optional.empty();
    }
}
