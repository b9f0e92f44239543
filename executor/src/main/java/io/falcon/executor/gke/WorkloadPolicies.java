package io.falcon.executor.gke;

import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.compute.v1.InsertResourcePolicyRequest;
import com.google.cloud.compute.v1.ResourcePoliciesClient;
import com.google.cloud.compute.v1.ResourcePolicy;
import com.google.cloud.compute.v1.ResourcePolicyWorkloadPolicy;
import io.falcon.events.TpuSlice;
import io.falcon.events.executor.ClusterTarget;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the Compute workload policy a TPU7x multi-host node pool names exists in the cluster's project and
 * region before the pool is created: GKE answers INVALID_ARGUMENT for a placement policy it cannot find. The policy
 * is HIGH_THROUGHPUT with the slice's accelerator topology, as GKE's Ironwood pages create it
 * (https://cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood; {@code gcloud compute resource-policies
 * create workload-policy NAME --type=HIGH_THROUGHPUT --accelerator-topology=TOPOLOGY --region=REGION}). Its name is
 * deterministic per topology ({@link NodePoolSpec#workloadPolicyName}), "already exists" is success, and a policy
 * seen once is not asked for again by this process (they are never deleted by Falcon).
 */
public final class WorkloadPolicies {
    private static final Logger log = LoggerFactory.getLogger(WorkloadPolicies.class);

    private final ResourcePoliciesClient policies;
    private final Set<String> known = ConcurrentHashMap.newKeySet();

    public WorkloadPolicies(ResourcePoliciesClient policies) {
        this.policies = policies;
    }

    private boolean exists(String project, String region, String name) {
        try {
            policies.get(project, region, name);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Creates the policy unless it exists; throws what the Compute client throws otherwise. */
    public void ensure(ClusterTarget cluster, TpuSlice slice) {
        String region = ReservationLookup.region(cluster.location());
        String name = NodePoolSpec.workloadPolicyName(slice);
        String key = cluster.project() + "/" + region + "/" + name;
        if (known.contains(key)) {
            return;
        }
        try {
            policies.get(cluster.project(), region, name);
            known.add(key);
            return;
        } catch (RuntimeException e) {
            if (!GkeErrors.is(e, StatusCode.Code.NOT_FOUND)) {
                throw e;
            }
        }
        ResourcePolicy policy = ResourcePolicy.newBuilder()
                .setName(name)
                .setDescription("Falcon: placement of " + slice.type().wireName() + " "
                        + slice.topology().text() + " multi-host TPU slices")
                .setWorkloadPolicy(ResourcePolicyWorkloadPolicy.newBuilder()
                        .setType(ResourcePolicyWorkloadPolicy.Type.HIGH_THROUGHPUT.name())
                        .setAcceleratorTopology(slice.topology().text()))
                .build();
        try {
            policies.insertAsync(InsertResourcePolicyRequest.newBuilder()
                            .setProject(cluster.project())
                            .setRegion(region)
                            .setResourcePolicyResource(policy)
                            .build())
                    .get(2, TimeUnit.MINUTES);
            log.info(
                    "workload policy created cluster={} policy={} topology={}",
                    cluster.name(),
                    key,
                    slice.topology().text());
        } catch (ExecutionException e) {
            // a concurrent creator (another executor, a redelivered command) or 409: if it is there now, it is ours
            if (!exists(cluster.project(), region, name)) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException("creating workload policy " + key + " did not finish in 2 minutes", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating workload policy " + key, e);
        }
        known.add(key);
    }
}
