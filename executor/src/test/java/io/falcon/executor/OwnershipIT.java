package io.falcon.executor;

import static io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.container.v1.CreateNodePoolRequest;
import com.google.container.v1.NodePool;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.falcon.events.ResourceNames;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.gke.NodePoolSpec;
import io.falcon.executor.k8s.JobRenderer;
import io.falcon.testkit.Await;
import io.falcon.testkit.builders.ExecutorCommandBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, items 1 and 2, through the real GKE and fabric8 clients against fleet-sim: what Falcon finds under a name
 * is its own only when its labels say so (this installation, and the job it was made for). Another team's node pool,
 * Kubernetes Job or NetworkPolicy that has Falcon's name is neither adopted nor deleted, and two Falcon installations
 * on one edge cluster name a job's objects apart and never list, adopt or delete each other's.
 */
class OwnershipIT {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static ExecutorCommandBuilder command(String installation, String jobId) {
        return executorCommand(jobId)
                .cluster(SimHarness.cluster())
                .topology("2x2x2")
                .nodePoolName(ResourceNames.nodePool(installation, jobId))
                .k8sJobName(ResourceNames.k8sJob(installation, jobId))
                .spec(Fixtures.spec())
                .producer("test")
                .at(Instant.now());
    }

    private static NodePool pool(SimHarness h, String name) {
        return h.gke.getNodePool(SimHarness.cluster().resourceName() + "/nodePools/" + name);
    }

    private static boolean poolExists(SimHarness h, String name) {
        try {
            pool(h, name);
            return true;
        } catch (com.google.api.gax.rpc.NotFoundException e) {
            return false;
        }
    }

    private static Job job(SimHarness h, String name) {
        return h.edges
                .client(SimHarness.cluster())
                .batch()
                .v1()
                .jobs()
                .inNamespace(h.config.namespace())
                .withName(name)
                .get();
    }

    @Test
    void anotherTeamsPoolAndJobUnderFalconsNamesAreNeitherAdoptedNorDeleted() {
        try (SimHarness h = new SimHarness(Map.of())) {
            String jobId = "victim-7";
            ExecutorCommandBuilder mine = command(ResourceNames.DEFAULT_INSTALLATION, jobId);
            String name = ResourceNames.nodePool(ResourceNames.DEFAULT_INSTALLATION, jobId);

            // Another team's pool, created by hand with exactly the name Falcon would use, none of Falcon's labels.
            h.existingWorkloadPolicy("2x2x2");
            NodePool rendered = NodePoolSpec.render(mine.ensureNodePool());
            NodePool theirs = rendered.toBuilder()
                    .setConfig(rendered.getConfig().toBuilder()
                            .clearResourceLabels()
                            .clearLabels()
                            .clearMetadata()
                            .putResourceLabels("team", "ml-infra"))
                    .build();
            h.gke.createNodePool(CreateNodePoolRequest.newBuilder()
                    .setParent(SimHarness.cluster().resourceName())
                    .setNodePool(theirs)
                    .build());
            Await.until("their pool visible", WAIT, () -> poolExists(h, name), () -> "not yet");

            h.dispatcher.handle(mine.ensureNodePool());
            ExecutorEvent.NodePoolCreateFailed refused =
                    h.sink.await(ExecutorEvent.NodePoolCreateFailed.class, jobId, WAIT);
            assertThat(refused.message())
                    .contains("a node pool named " + name + " already exists")
                    .contains("is not this job's")
                    .contains("Falcon leaves it alone");
            h.dispatcher.handle(mine.ensureNodePoolDeleted());
            h.sink.await(ExecutorEvent.NodePoolDeleted.class, jobId, WAIT);
            assertThat(pool(h, name).getConfig().getResourceLabelsMap())
                    .as("their pool is still there, as it was")
                    .containsEntry("team", "ml-infra");

            // Another team's Kubernetes Job with Falcon's name.
            KubernetesClient edge = h.edges.client(SimHarness.cluster());
            Job renderedJob = new JobRenderer(h.config.namespace()).render(mine.ensureJob());
            renderedJob.getMetadata().setLabels(Map.of("app", "their-batch"));
            renderedJob.getMetadata().setAnnotations(Map.of());
            edge.batch()
                    .v1()
                    .jobs()
                    .inNamespace(h.config.namespace())
                    .resource(renderedJob)
                    .create();
            String k8sName = ResourceNames.k8sJob(ResourceNames.DEFAULT_INSTALLATION, jobId);
            String theirUid = job(h, k8sName).getMetadata().getUid();

            h.dispatcher.handle(mine.ensureJob());
            ExecutorEvent.JobSubmitFailed jobRefused = h.sink.await(ExecutorEvent.JobSubmitFailed.class, jobId, WAIT);
            assertThat(jobRefused.retryable()).isFalse();
            assertThat(jobRefused.message()).contains("a Kubernetes Job named " + k8sName + " already exists");
            h.dispatcher.handle(mine.ensureJobDeleted());
            h.sink.await(ExecutorEvent.JobDeleted.class, jobId, WAIT);
            assertThat(job(h, k8sName))
                    .as("their Job is still there")
                    .isNotNull()
                    .satisfies(j -> assertThat(j.getMetadata().getUid()).isEqualTo(theirUid));
            assertThat(policy(h, k8sName))
                    .as("no NetworkPolicy of this job for their Job")
                    .isNull();

            // Another team's NetworkPolicy with the name of a job's Job: the job does not run without its own.
            String otherJob = "victim-8";
            ExecutorCommandBuilder second = command(ResourceNames.DEFAULT_INSTALLATION, otherJob);
            String policyName = ResourceNames.k8sJob(ResourceNames.DEFAULT_INSTALLATION, otherJob);
            NetworkPolicy theirPolicy = new JobRenderer(h.config.namespace()).renderNetworkPolicy(second.ensureJob());
            theirPolicy.getMetadata().setLabels(Map.of("app", "their-batch"));
            theirPolicy.getMetadata().setAnnotations(Map.of());
            edge.network()
                    .v1()
                    .networkPolicies()
                    .inNamespace(h.config.namespace())
                    .resource(theirPolicy)
                    .create();
            String theirPolicyUid = policy(h, policyName).getMetadata().getUid();

            h.dispatcher.handle(second.ensureJob());
            ExecutorEvent.JobSubmitFailed policyRefused =
                    h.sink.await(ExecutorEvent.JobSubmitFailed.class, otherJob, WAIT);
            assertThat(policyRefused.retryable()).isFalse();
            assertThat(policyRefused.message())
                    .contains("a NetworkPolicy named " + policyName + " already exists")
                    .contains("is not this job's")
                    .contains("Falcon leaves it alone");
            assertThat(job(h, policyName).getSpec().getSuspend())
                    .as("the Job was made suspended and is never resumed without its own policy")
                    .isTrue();
            assertThat(edge.pods()
                            .inNamespace(h.config.namespace())
                            .withLabel("falcon-k8s-job", policyName)
                            .list()
                            .getItems())
                    .as("so no pod of it ever ran")
                    .isEmpty();
            h.dispatcher.handle(second.ensureJobDeleted());
            h.sink.await(ExecutorEvent.JobDeleted.class, otherJob, WAIT);
            assertThat(job(h, policyName)).as("the suspended Job deleted").isNull();
            assertThat(policy(h, policyName))
                    .as("their NetworkPolicy is still there")
                    .isNotNull()
                    .satisfies(p -> assertThat(p.getMetadata().getUid()).isEqualTo(theirPolicyUid));
        }
    }

    @Test
    void anotherTeamsServiceUnderAMultiHostJobsNameIsNeitherAdoptedNorDeleted() {
        try (SimHarness h = new SimHarness(Map.of())) {
            String jobId = "victim-9";
            ExecutorCommandBuilder mine = command(ResourceNames.DEFAULT_INSTALLATION, jobId);
            String name = ResourceNames.k8sJob(ResourceNames.DEFAULT_INSTALLATION, jobId);
            KubernetesClient edge = h.edges.client(SimHarness.cluster());
            // Another team's Service with exactly the name of this multi-host job's Job, none of Falcon's marks.
            Service theirs = new JobRenderer(h.config.namespace())
                    .renderService(mine.ensureJob())
                    .orElseThrow(() -> new AssertionError("a multi-host job has a headless Service"));
            theirs.getMetadata().setLabels(Map.of("app", "their-batch"));
            theirs.getMetadata().setAnnotations(Map.of());
            edge.services().inNamespace(h.config.namespace()).resource(theirs).create();
            String theirUid = service(h, name).getMetadata().getUid();

            h.dispatcher.handle(mine.ensureJob());
            ExecutorEvent.JobSubmitFailed refused = h.sink.await(ExecutorEvent.JobSubmitFailed.class, jobId, WAIT);
            assertThat(refused.retryable()).isFalse();
            assertThat(refused.message())
                    .contains("a Service named " + name + " already exists")
                    .contains("is not this job's")
                    .contains("Falcon leaves it alone");
            assertThat(job(h, name).getSpec().getSuspend())
                    .as("the Job was made suspended and is never resumed without its own Service")
                    .isTrue();

            h.dispatcher.handle(mine.ensureJobDeleted());
            h.sink.await(ExecutorEvent.JobDeleted.class, jobId, WAIT);
            assertThat(job(h, name)).as("the suspended Job deleted").isNull();
            assertThat(service(h, name))
                    .as("their Service is still there")
                    .isNotNull()
                    .satisfies(s -> assertThat(s.getMetadata().getUid()).isEqualTo(theirUid));
        }
    }

    private static Service service(SimHarness h, String name) {
        return h.edges
                .client(SimHarness.cluster())
                .services()
                .inNamespace(h.config.namespace())
                .withName(name)
                .get();
    }

    private static NetworkPolicy policy(SimHarness h, String name) {
        return h.edges
                .client(SimHarness.cluster())
                .network()
                .v1()
                .networkPolicies()
                .inNamespace(h.config.namespace())
                .withName(name)
                .get();
    }

    @Test
    void twoInstallationsOnOneClusterNeverListAdoptOrDeleteEachOthersObjects() {
        try (SimHarness a = new SimHarness(Map.of("falcon.executor.node-pool.inventory-interval", "300ms"));
                SimHarness b = SimHarness.on(
                        a.sim,
                        Map.of(
                                "falcon.installation",
                                "falcon-b",
                                "falcon.executor.node-pool.inventory-interval",
                                "300ms"))) {
            String jobId = "same-id";
            ExecutorCommandBuilder ofA = command("falcon", jobId);
            ExecutorCommandBuilder ofB = command("falcon-b", jobId);
            String poolA = ResourceNames.nodePool("falcon", jobId);
            String poolB = ResourceNames.nodePool("falcon-b", jobId);
            assertThat(poolA).isNotEqualTo(poolB);

            a.dispatcher.handle(ofA.ensureNodePool());
            b.dispatcher.handle(ofB.ensureNodePool());
            a.sink.await(ExecutorEvent.NodePoolReady.class, jobId, WAIT);
            b.sink.await(ExecutorEvent.NodePoolReady.class, jobId, WAIT);

            // each inventory (what the scheduler's orphan sweep reads) lists its own pool only
            ExecutorEvent.NodePoolInventory ofAInventory = a.sink.await(
                    ExecutorEvent.NodePoolInventory.class,
                    "",
                    e -> e.pools().stream().anyMatch(p -> p.name().equals(poolA)),
                    WAIT);
            assertThat(ofAInventory.pools())
                    .extracting(ExecutorEvent.ObservedPool::name)
                    .doesNotContain(poolB);
            ExecutorEvent.NodePoolInventory ofBInventory = b.sink.await(
                    ExecutorEvent.NodePoolInventory.class,
                    "",
                    e -> e.pools().stream().anyMatch(p -> p.name().equals(poolB)),
                    WAIT);
            assertThat(ofBInventory.pools())
                    .extracting(ExecutorEvent.ObservedPool::name)
                    .doesNotContain(poolA);

            // B told to create or delete what is A's (a command naming A's pool) touches nothing of A's
            b.dispatcher.handle(ofA.ensureNodePool());
            assertThat(b.sink.await(ExecutorEvent.NodePoolCreateFailed.class, jobId, WAIT)
                            .message())
                    .contains("is not this job's");
            b.dispatcher.handle(ofA.ensureNodePoolDeleted());
            Await.until(
                    "B answers the deletion of A's pool",
                    WAIT,
                    () -> !b.sink.of(ExecutorEvent.NodePoolDeleted.class, jobId).isEmpty(),
                    () -> "no answer");
            assertThat(pool(a, poolA).getStatus()).isEqualTo(NodePool.Status.RUNNING);

            a.dispatcher.handle(ofA.ensureJob());
            a.sink.await(ExecutorEvent.JobSubmitted.class, jobId, WAIT);
            b.dispatcher.handle(ofA.ensureJobDeleted());
            Await.until(
                    "B answers the deletion of A's Job",
                    WAIT,
                    () -> !b.sink.of(ExecutorEvent.JobDeleted.class, jobId).isEmpty(),
                    () -> "no answer");
            assertThat(job(a, ResourceNames.k8sJob("falcon", jobId)))
                    .as("A's Job is still there")
                    .isNotNull();
            assertThat(b.sink.of(ExecutorEvent.JobSubmitted.class, jobId))
                    .as("B's informers never report A's Job")
                    .isEmpty();

            // and each deletes its own as before
            a.dispatcher.handle(ofA.ensureNodePoolDeleted());
            b.dispatcher.handle(ofB.ensureNodePoolDeleted());
            Await.until(
                    "both pools gone",
                    WAIT,
                    () -> !poolExists(a, poolA) && !poolExists(b, poolB),
                    () -> "A's " + poolExists(a, poolA) + ", B's " + poolExists(b, poolB));
        }
    }
}
