package io.falcon.executor.gke;

import com.google.api.core.ApiFuture;
import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.compute.v1.InsertResourcePolicyRequest;
import com.google.cloud.compute.v1.Operation;
import com.google.cloud.compute.v1.ResourcePoliciesClient;
import com.google.cloud.compute.v1.ResourcePolicy;
import com.google.cloud.compute.v1.ResourcePolicyWorkloadPolicy;
import io.falcon.events.TpuSlice;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.core.ApiException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
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
 *
 * <p>It never waits for Compute: the insert's operation runs on the client's own threads while {@link #ensure}
 * answers "not yet" ({@link ApiException.Kind#FAILED_PRECONDITION}), which the pool's reconciler retries with its
 * backoff; when the insert finishes, each pool that asked is named to {@link #onInsertDone}, so its creation goes on
 * at once rather than at its next attempt. Waiting here would hold the executor's command loop for as long as
 * Compute takes.
 */
public final class WorkloadPolicies {
    private static final Logger log = LoggerFactory.getLogger(WorkloadPolicies.class);

    private final ResourcePoliciesClient policies;
    private final Set<String> known = ConcurrentHashMap.newKeySet();
    /** Inserts started by this process whose outcome has not been looked at yet, by project/region/name. */
    private final Map<String, Insert> inserting = new ConcurrentHashMap<>();

    private volatile BiConsumer<ClusterTarget, String> insertDone = (cluster, pool) -> {};

    /** An insert in flight and the pools waiting for it (each told once when it finishes). */
    private record Insert(ApiFuture<Operation> future, Set<String> waiters) {}

    public WorkloadPolicies(ResourcePoliciesClient policies) {
        this.policies = policies;
    }

    /** Told (cluster, node pool) when an insert the pool waited for finishes, whatever its outcome. */
    public void onInsertDone(BiConsumer<ClusterTarget, String> listener) {
        this.insertDone = listener;
    }

    /**
     * Returns when the policy exists. Otherwise starts its insert (once) and throws FAILED_PRECONDITION until the
     * insert is done; throws what the Compute client throws for anything else.
     *
     * @param pool the node pool that names the policy, told to {@link #onInsertDone} when the insert finishes
     */
    public void ensure(ClusterTarget cluster, TpuSlice slice, String pool) {
        String region = ReservationLookup.region(cluster.location());
        String name = NodePoolSpec.workloadPolicyName(slice);
        String key = cluster.project() + "/" + region + "/" + name;
        if (known.contains(key)) {
            return;
        }
        Insert insert = inserting.get(key);
        if (insert != null) {
            if (!insert.future().isDone()) {
                waitFor(insert, cluster, pool);
                throw notYet(key);
            }
            inserting.remove(key, insert);
            outcome(insert.future(), cluster, region, name, key, slice);
            known.add(key);
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
        Insert started = new Insert(
                policies.insertAsync(InsertResourcePolicyRequest.newBuilder()
                        .setProject(cluster.project())
                        .setRegion(region)
                        .setResourcePolicyResource(policy)
                        .build()),
                ConcurrentHashMap.newKeySet());
        inserting.put(key, started);
        waitFor(started, cluster, pool);
        log.info(
                "workload policy insert started cluster={} policy={} topology={}",
                cluster.name(),
                key,
                slice.topology().text());
        throw notYet(key);
    }

    /** A finished insert: created, or refused by one that exists (a concurrent creator, a redelivery): both fine. */
    private void outcome(
            Future<Operation> insert, ClusterTarget cluster, String region, String name, String key, TpuSlice slice) {
        try {
            insert.get();
            log.info(
                    "workload policy created cluster={} policy={} topology={}",
                    cluster.name(),
                    key,
                    slice.topology().text());
        } catch (ExecutionException e) {
            if (!exists(cluster.project(), region, name)) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the insert of workload policy " + key, e);
        }
    }

    private void waitFor(Insert insert, ClusterTarget cluster, String pool) {
        if (insert.waiters().add(pool)) {
            // run by the thread that completes the future, or at once if it is done: the listener only schedules
            insert.future().addListener(() -> insertDone.accept(cluster, pool), Runnable::run);
        }
    }

    private boolean exists(String project, String region, String name) {
        try {
            policies.get(project, region, name);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static ApiException notYet(String key) {
        return new ApiException(
                ApiException.Kind.FAILED_PRECONDITION,
                "workload policy " + key + " is being created; the node pool is created once it exists");
    }
}
