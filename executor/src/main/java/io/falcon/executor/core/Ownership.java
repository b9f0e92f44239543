package io.falcon.executor.core;

import io.falcon.events.ResourceNames;
import io.falcon.executor.FalconLabels;
import java.util.Map;
import java.util.Optional;

/**
 * What proves that a node pool or Kubernetes Job found under a name is this Falcon's: never the name (another team,
 * or another Falcon installation, may have an object of that name), but its labels: managed-by falcon, this
 * installation, and the exact job id it was made for (a node metadata key on a pool, an annotation on a Job; labels
 * are sanitized). Names come from {@link ResourceNames} (64 bits of hash of the installation and the job id), so no
 * tenant can make two jobs share one; "already exists" is adopted, "not found" and a deletion are success, and an
 * inventory lists an object, only when its labels prove it this installation's; anything else is left alone.
 *
 * @param installation this Falcon's {@code falcon.installation}
 */
public record Ownership(String installation) {
    /** The installation named when none is configured, as the scheduler's default names it. */
    public static final Ownership DEFAULT = new Ownership(ResourceNames.DEFAULT_INSTALLATION);

    /** The labels this installation puts on what it creates for the job. */
    public Map<String, String> labels(String jobId, String topology) {
        return FalconLabels.of(installation, jobId, topology);
    }

    /** The label selector of this installation's objects. */
    public String selector() {
        return FalconLabels.selector(installation);
    }

    /**
     * Whether the pool is this installation's: its labels say so, and its node metadata names the job it was made
     * for (the job that holds it may be another: a pool is handed on within a queue).
     */
    public boolean ownsPool(GkeApi.PoolInfo pool) {
        return FalconLabels.ownedBy(pool.labels(), installation)
                && pool.creatorJobId().isPresent();
    }

    /** Whether the Kubernetes Job found under the name is this installation's Job of the given job. */
    public boolean ownsJob(EdgeApi.FoundJob job, String jobId) {
        return ownsJob(job) && job.jobId().filter(jobId::equals).isPresent();
    }

    /** Whether the Kubernetes Job found under the name is this installation's (of whichever job it names). */
    public boolean ownsJob(EdgeApi.FoundJob job) {
        return FalconLabels.ownedBy(job.labels(), installation) && job.jobId().isPresent();
    }

    /**
     * Whether an object Falcon makes beside a job's Kubernetes Job (its NetworkPolicy), found under the Job's name, is
     * this installation's for this job: its labels and its job-id annotation say so.
     */
    public boolean ownsJobObject(Map<String, String> labels, Optional<String> annotatedJobId, String jobId) {
        return FalconLabels.ownedBy(labels, installation)
                && annotatedJobId.filter(jobId::equals).isPresent();
    }

    /** A Message part saying whose the object seems to be instead. */
    public static String ownerOf(Map<String, String> labels, Optional<String> jobId) {
        return FalconLabels.ownerOf(labels) + ", job id "
                + jobId.map(id -> "'" + id + "'").orElse("none");
    }
}
