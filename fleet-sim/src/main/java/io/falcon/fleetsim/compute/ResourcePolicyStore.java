package io.falcon.fleetsim.compute;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Compute resource policies the sim knows (regional; only workload policies are modelled), which the Compute
 * REST sim creates and the GKE sim resolves when a node pool names one in {@code placementPolicy.policyName}. As in
 * Compute, an insert takes a while ({@link #insertDelay}): until its operation is DONE the policy cannot be read, and
 * GKE cannot find it for a node pool, while a second insert of the name is refused as already existing.
 */
public final class ResourcePolicyStore {
    private static final Logger log = LoggerFactory.getLogger(ResourcePolicyStore.class);

    /** Compute resource names (https://cloud.google.com/compute/docs/naming-resources): RFC 1035, at most 63. */
    static final Pattern NAME = Pattern.compile("[a-z]([-a-z0-9]{0,61}[a-z0-9])?");

    /** A workload policy: its type (HIGH_THROUGHPUT or HIGH_AVAILABILITY) and accelerator topology ("" if none). */
    public record WorkloadPolicy(
            String project,
            String region,
            String name,
            long id,
            String type,
            String acceleratorTopology,
            Instant createdAt,
            Instant doneAt) {
        public String path() {
            return "projects/" + project + "/regions/" + region + "/resourcePolicies/" + name;
        }
    }

    private final ConcurrentMap<String, WorkloadPolicy> policies = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(5_000_000_000_000_000_000L);
    private final Clock clock;
    private volatile Duration insertDelay = DEFAULT_INSERT_DELAY;

    /** How long an insert's operation runs when nothing else is set: Compute takes seconds. */
    public static final Duration DEFAULT_INSERT_DELAY = Duration.ofSeconds(1);

    public ResourcePolicyStore(Clock clock) {
        this.clock = clock;
    }

    /** How long each insert from now on runs before its policy exists. */
    public void insertDelay(Duration delay) {
        insertDelay = delay;
    }

    /** Whether the policy's insert operation has finished (before then the policy cannot be read). */
    public boolean done(WorkloadPolicy policy) {
        return !clock.instant().isBefore(policy.doneAt());
    }

    private static String key(String project, String region, String name) {
        return project + "/" + region + "/" + name;
    }

    /** The policy, once its insert is done. */
    public Optional<WorkloadPolicy> get(String project, String region, String name) {
        return Optional.ofNullable(policies.get(key(project, region, name))).filter(this::done);
    }

    /**
     * Starts creating it, done after the insert delay; empty when one of that name exists or is being created (the
     * caller answers 409).
     */
    public Optional<WorkloadPolicy> create(
            String project, String region, String name, String type, String acceleratorTopology) {
        Instant now = clock.instant();
        WorkloadPolicy policy = new WorkloadPolicy(
                project, region, name, ids.incrementAndGet(), type, acceleratorTopology, now, now.plus(insertDelay));
        WorkloadPolicy earlier = policies.putIfAbsent(key(project, region, name), policy);
        if (earlier != null) {
            return Optional.empty();
        }
        log.info("workload policy created {} type={} acceleratorTopology={}", policy.path(), type, acceleratorTopology);
        return Optional.of(policy);
    }
}
