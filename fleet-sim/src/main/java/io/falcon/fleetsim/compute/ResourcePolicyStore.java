package io.falcon.fleetsim.compute;

import java.time.Clock;
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
 * REST sim creates and the GKE sim resolves when a node pool names one in {@code placementPolicy.policyName}.
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
            Instant createdAt) {
        public String path() {
            return "projects/" + project + "/regions/" + region + "/resourcePolicies/" + name;
        }
    }

    private final ConcurrentMap<String, WorkloadPolicy> policies = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(5_000_000_000_000_000_000L);
    private final Clock clock;

    public ResourcePolicyStore(Clock clock) {
        this.clock = clock;
    }

    private static String key(String project, String region, String name) {
        return project + "/" + region + "/" + name;
    }

    public Optional<WorkloadPolicy> get(String project, String region, String name) {
        return Optional.ofNullable(policies.get(key(project, region, name)));
    }

    /** Creates it; empty when one of that name exists already (the caller answers 409). */
    public Optional<WorkloadPolicy> create(
            String project, String region, String name, String type, String acceleratorTopology) {
        WorkloadPolicy policy = new WorkloadPolicy(
                project, region, name, ids.incrementAndGet(), type, acceleratorTopology, clock.instant());
        WorkloadPolicy earlier = policies.putIfAbsent(key(project, region, name), policy);
        if (earlier != null) {
            return Optional.empty();
        }
        log.info("workload policy created {} type={} acceleratorTopology={}", policy.path(), type, acceleratorTopology);
        return Optional.of(policy);
    }
}
