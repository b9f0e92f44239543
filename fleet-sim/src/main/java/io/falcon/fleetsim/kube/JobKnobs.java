package io.falcon.fleetsim.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How a simulated Job's pods behave, read from the Job's own spec so that the caller's spec drives the sim:
 * env vars of the first container, and the images.
 *
 * @param runFor FALCON_SIM_DURATION_SECONDS (default 2, decimals allowed: "0.2")
 * @param exitCode FALCON_SIM_EXIT_CODE (default 0)
 * @param oomKilled FALCON_SIM_OOM=true: terminated reason OOMKilled, exit code 137
 * @param imageMissing some container image contains "does-not-exist": ErrImagePull / ImagePullBackOff forever
 * @param pullFailsFor FALCON_SIM_PULL_FAILS_SECONDS: the image cannot be pulled for this long after the pod is bound
 *     to its node (ErrImagePull, then ImagePullBackOff: a registry's transient error), then the kubelet's retry gets
 *     it and the container runs (default 0)
 */
public record JobKnobs(Duration runFor, int exitCode, boolean oomKilled, boolean imageMissing, Duration pullFailsFor) {

    public static final String DURATION_ENV = "FALCON_SIM_DURATION_SECONDS";
    public static final String EXIT_CODE_ENV = "FALCON_SIM_EXIT_CODE";
    public static final String OOM_ENV = "FALCON_SIM_OOM";
    public static final String PULL_FAILS_ENV = "FALCON_SIM_PULL_FAILS_SECONDS";
    public static final String MISSING_IMAGE_MARKER = "does-not-exist";
    static final Duration DEFAULT_DURATION = Duration.ofSeconds(2);

    public static JobKnobs of(Job job) {
        PodSpec spec = job.getSpec() == null || job.getSpec().getTemplate() == null
                ? null
                : job.getSpec().getTemplate().getSpec();
        List<Container> containers = spec == null || spec.getContainers() == null ? List.of() : spec.getContainers();
        List<EnvVar> env = containers.isEmpty() || containers.get(0).getEnv() == null
                ? List.of()
                : containers.get(0).getEnv();
        Duration runFor = env(env, DURATION_ENV)
                .map(v -> Duration.ofNanos(Math.round(Double.parseDouble(v) * 1e9)))
                .orElse(DEFAULT_DURATION);
        int exitCode = env(env, EXIT_CODE_ENV).map(Integer::parseInt).orElse(0);
        boolean oom = env(env, OOM_ENV).map(Boolean::parseBoolean).orElse(false);
        boolean imageMissing = containers.stream()
                .anyMatch(c -> c.getImage() != null && c.getImage().contains(MISSING_IMAGE_MARKER));
        Duration pullFailsFor = env(env, PULL_FAILS_ENV)
                .map(v -> Duration.ofNanos(Math.round(Double.parseDouble(v) * 1e9)))
                .orElse(Duration.ZERO);
        return new JobKnobs(runFor, exitCode, oom, imageMissing, pullFailsFor);
    }

    private static Optional<String> env(List<EnvVar> env, String name) {
        return env.stream()
                .filter(e -> name.equals(e.getName())
                        && e.getValue() != null
                        && !e.getValue().isBlank())
                .map(e -> e.getValue().trim())
                .findFirst();
    }

    /** Exit code the container terminates with. */
    int effectiveExitCode() {
        return oomKilled ? 137 : exitCode;
    }

    /** Container termination reason, as the kubelet reports it. */
    String terminationReason() {
        if (oomKilled) {
            return "OOMKilled";
        }
        return exitCode == 0 ? "Completed" : "Error";
    }
}
