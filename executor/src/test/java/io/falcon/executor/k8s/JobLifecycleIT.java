package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.falcon.events.Meta;
import io.falcon.events.ResourceNames;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.ExecutorCommand.EnsureJobDeleted;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.SimHarness;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** EnsureJob through the real fabric8 client against the simulated edge cluster, statuses via informers. */
class JobLifecycleIT {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String POOL_JOB = "pool-owner";
    private static SimHarness h;

    @BeforeAll
    static void start() {
        h = new SimHarness(Map.of("falcon.executor.image-pull-grace", "500ms"));
        // A 2-host pool (2x2x2) that every job of this class runs on, one job at a time.
        h.dispatcher.handle(new EnsureNodePool(
                Meta.of("test", Instant.now()),
                POOL_JOB,
                SimHarness.cluster(),
                "falcon-pool",
                "v7x",
                "2x2x2",
                SupplyMode.ON_DEMAND,
                Optional.empty()));
        h.sink.await(ExecutorEvent.NodePoolReady.class, POOL_JOB, WAIT);
    }

    @AfterAll
    static void stop() {
        h.close();
    }

    private static EnsureJob ensureJob(String jobId, String image, Map<String, String> env) {
        return new EnsureJob(
                Meta.of("test", Instant.now()),
                jobId,
                SimHarness.cluster(),
                "falcon-pool",
                "falcon-" + jobId,
                "v7x",
                "2x2x2",
                new JobSpec(image, List.of("python", "train.py"), List.of(), env));
    }

    private static KubernetesClient kube() {
        return h.sim.kubernetesClient(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER);
    }

    private static void deleteJob(String jobId) {
        h.dispatcher.handle(
                new EnsureJobDeleted(Meta.of("test", Instant.now()), jobId, SimHarness.cluster(), "falcon-" + jobId));
        h.sink.await(ExecutorEvent.JobDeleted.class, jobId, WAIT);
    }

    private static NetworkPolicy policy(String name) {
        return kube().network()
                .v1()
                .networkPolicies()
                .inNamespace("default")
                .withName(name)
                .get();
    }

    @Test
    void jobIsSubmittedRunsAndSucceeds() {
        // the actor's Secret the spec references (its value never in the spec, the command or the Job)
        kube().secrets()
                .inNamespace("default")
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName(ResourceNames.actorSecret("team-a", "hf-token"))
                        .endMetadata()
                        .withStringData(Map.of("token", "s3cr3t"))
                        .build())
                .create();
        EnsureJob command = new EnsureJob(
                        Meta.of("test", Instant.now()),
                        "ok-1",
                        SimHarness.cluster(),
                        "falcon-pool",
                        "falcon-ok-1",
                        "v7x",
                        "2x2x2",
                        new JobSpec(
                                "img:1",
                                List.of("python", "train.py"),
                                List.of(),
                                Map.of("FALCON_SIM_DURATION_SECONDS", "0.8"),
                                Map.of("HF_TOKEN", new JobSpec.SecretRef("hf-token", "token"))))
                .withActor("team-a");
        h.dispatcher.handle(command);

        ExecutorEvent.JobSubmitted submitted = h.sink.await(ExecutorEvent.JobSubmitted.class, "ok-1", WAIT);
        assertThat(submitted.k8sJobName()).isEqualTo("falcon-ok-1");
        Job job = kube().batch()
                .v1()
                .jobs()
                .inNamespace("default")
                .withName("falcon-ok-1")
                .get();
        assertThat(submitted.jobUid()).isEqualTo(job.getMetadata().getUid());
        assertThat(job.getSpec().getCompletions()).isEqualTo(2);
        assertThat(job.getMetadata().getLabels()).containsEntry("managed-by", "falcon");
        assertThat(job.getSpec().getSuspend())
                .as("created suspended, resumed once its NetworkPolicy exists")
                .isFalse();
        var template = job.getSpec().getTemplate().getSpec();
        assertThat(template.getAutomountServiceAccountToken()).isFalse();
        assertThat(template.getContainers().get(0).getEnv())
                .filteredOn(v -> v.getName().equals("HF_TOKEN"))
                .singleElement()
                .satisfies(v -> {
                    assertThat(v.getValue()).isNull();
                    assertThat(v.getValueFrom().getSecretKeyRef().getName())
                            .isEqualTo(ResourceNames.actorSecret("team-a", "hf-token"));
                });

        // its NetworkPolicy: made with it, Falcon's (labels, job id), owned by the Job so that it goes with it
        NetworkPolicy policy = policy("falcon-ok-1");
        assertThat(policy).as("the job's NetworkPolicy").isNotNull();
        assertThat(policy.getMetadata().getLabels())
                .containsEntry("managed-by", "falcon")
                .containsEntry("falcon-installation", "falcon");
        assertThat(policy.getMetadata().getAnnotations()).containsEntry("falcon.io/job-id", "ok-1");
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).containsEntry("falcon-k8s-job", "falcon-ok-1");
        assertThat(policy.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getKind()).isEqualTo("Job");
            assertThat(owner.getName()).isEqualTo("falcon-ok-1");
            assertThat(owner.getUid()).isEqualTo(job.getMetadata().getUid());
        });

        ExecutorEvent.JobRunning running = h.sink.await(ExecutorEvent.JobRunning.class, "ok-1", WAIT);
        assertThat(running.active()).isEqualTo(2);
        assertThat(running.expected()).isEqualTo(2);
        assertThat(kube().pods()
                        .inNamespace("default")
                        .withLabel("falcon-k8s-job", "falcon-ok-1")
                        .list()
                        .getItems())
                .as("the pods Kubernetes made from the template mount no API token")
                .hasSize(2)
                .allSatisfy(pod -> assertThat(pod.getSpec().getAutomountServiceAccountToken())
                        .isFalse());
        h.sink.await(ExecutorEvent.JobSucceeded.class, "ok-1", WAIT);

        // redelivered EnsureJob: already exists = success, same uid, nothing created twice
        h.dispatcher.handle(command);
        assertThat(h.sink.await(ExecutorEvent.JobSubmitted.class, "ok-1", e -> e != submitted, WAIT)
                        .jobUid())
                .isEqualTo(submitted.jobUid());
        assertThat(h.sink.of(ExecutorEvent.JobRunning.class, "ok-1")).hasSize(1);
        assertThat(h.sink.of(ExecutorEvent.JobSucceeded.class, "ok-1")).hasSize(1);
        assertThat(policy("falcon-ok-1").getMetadata().getUid())
                .as("the same policy, kept")
                .isEqualTo(policy.getMetadata().getUid());
        deleteJob("ok-1");
        assertThat(policy("falcon-ok-1")).as("deleted with the Job").isNull();
        // deleted again (the scheduler re-sends until it hears JobDeleted): nothing left to delete is success
        ExecutorEvent.JobDeleted first =
                h.sink.of(ExecutorEvent.JobDeleted.class, "ok-1").get(0);
        h.dispatcher.handle(
                new EnsureJobDeleted(Meta.of("test", Instant.now()), "ok-1", SimHarness.cluster(), "falcon-ok-1"));
        h.sink.await(ExecutorEvent.JobDeleted.class, "ok-1", e -> e != first, WAIT);
    }

    @Test
    void aJobDeletedByHandWhileItRunsIsReportedAsDeletedOutsideFalcon() {
        h.dispatcher.handle(ensureJob("hand-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "60")));
        h.sink.await(ExecutorEvent.JobRunning.class, "hand-1", WAIT);

        // an operator's kubectl delete job, not Falcon's
        kube().batch()
                .v1()
                .jobs()
                .inNamespace("default")
                .withName("falcon-hand-1")
                .delete();

        ExecutorEvent.JobFailed failed = h.sink.await(ExecutorEvent.JobFailed.class, "hand-1", WAIT);
        assertThat(failed.k8sJobName()).isEqualTo("falcon-hand-1");
        assertThat(failed.message()).startsWith("the Kubernetes Job falcon-hand-1 was deleted outside Falcon");
        assertThat(failed.cause()).isEqualTo(io.falcon.events.executor.FailureCause.infrastructure("JobGone"));
        assertThat(h.sink.of(ExecutorEvent.JobSucceeded.class, "hand-1")).isEmpty();
        deleteJob("hand-1");
    }

    @Test
    void aFinishedJobRemovedIsReportedWithItsEndAgainNotAsDeleted() {
        h.dispatcher.handle(ensureJob("ttl-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "0.3")));
        h.sink.await(ExecutorEvent.JobSucceeded.class, "ttl-1", WAIT);

        // removed as ttlSecondsAfterFinished would: its end is reported from the last state, in case the first
        // report was lost
        kube().batch()
                .v1()
                .jobs()
                .inNamespace("default")
                .withName("falcon-ttl-1")
                .delete();
        io.falcon.testkit.Await.until(
                "the end reported again",
                WAIT,
                () -> h.sink.of(ExecutorEvent.JobSucceeded.class, "ttl-1").size() == 2,
                () -> "events " + h.sink.all());
        assertThat(h.sink.of(ExecutorEvent.JobFailed.class, "ttl-1")).isEmpty();
        deleteJob("ttl-1");
    }

    @Test
    void aDeletedJobIsConfirmedOnlyOnceItsTerminatingPodsAreGone() {
        var knobs = h.sim.kubernetesKnobs(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER);
        knobs.podExitTime(Duration.ofSeconds(3)); // the workload takes 3 s to exit after SIGTERM
        try {
            h.dispatcher.handle(ensureJob("term-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "60")));
            h.sink.await(ExecutorEvent.JobRunning.class, "term-1", WAIT);

            h.dispatcher.handle(new EnsureJobDeleted(
                    Meta.of("test", Instant.now()), "term-1", SimHarness.cluster(), "falcon-term-1"));
            assertThat(h.sink.of(ExecutorEvent.JobDeleted.class, "term-1"))
                    .as("not while its pods terminate, holding the chips the next job would get")
                    .isEmpty();

            h.sink.await(ExecutorEvent.JobDeleted.class, "term-1", WAIT);
            assertThat(kube().pods()
                            .inNamespace("default")
                            .withLabel("falcon-k8s-job", "falcon-term-1")
                            .list()
                            .getItems())
                    .as("reported once the informers saw the last pod go")
                    .isEmpty();
            // the scheduler's re-sent deletion is confirmed at once now
            h.dispatcher.handle(new EnsureJobDeleted(
                    Meta.of("test", Instant.now()), "term-1", SimHarness.cluster(), "falcon-term-1"));
            assertThat(h.sink.of(ExecutorEvent.JobDeleted.class, "term-1")).hasSize(2);
        } finally {
            knobs.podExitTime(Duration.ZERO);
        }
    }

    /**
     * A node of the slice goes away under the running Job (a VM reclaimed, GKE's repair): the pod GC marks the pod
     * Failed with DisruptionTarget before deleting it, and the failure is reported as the fleet's, not the program's,
     * though the workload's container ended with an error exit.
     */
    @Test
    void aJobWhoseNodeIsLostFailsAsTheFleetsDoing() {
        h.dispatcher.handle(ensureJob("lost-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "60")));
        h.sink.await(ExecutorEvent.JobRunning.class, "lost-1", WAIT);
        String nodeName = kube().pods().inNamespace("default").list().getItems().stream()
                .filter(p -> p.getMetadata().getName().startsWith("falcon-lost-1"))
                .map(p -> p.getSpec().getNodeName())
                .filter(n -> n != null)
                .findFirst()
                .orElseThrow();
        io.fabric8.kubernetes.api.model.Node node =
                kube().nodes().withName(nodeName).get();
        kube().nodes().withName(nodeName).delete();
        try {
            ExecutorEvent.JobFailed failed = h.sink.await(ExecutorEvent.JobFailed.class, "lost-1", WAIT);
            assertThat(failed.cause())
                    .isEqualTo(
                            io.falcon.events.executor.FailureCause.infrastructure("DisruptionTarget: DeletionByPodGC"));
            assertThat(failed.message()).startsWith("Pod disrupted: DisruptionTarget: DeletionByPodGC");
            // and the Job itself says so (its podFailurePolicy), so the evidence outlives the deleted pod; the Job
            // controller writes its condition on its next pass, which may come after the executor saw the pod fail
            io.fabric8.kubernetes.api.model.batch.v1.JobCondition condition = io.falcon.testkit.Await.present(
                    "the Failed condition of the lost Job",
                    WAIT,
                    () -> kube().batch().v1().jobs().inNamespace("default").list().getItems().stream()
                            .filter(j -> j.getMetadata().getName().startsWith("falcon-lost-1"))
                            .filter(j -> j.getStatus() != null && j.getStatus().getConditions() != null)
                            .flatMap(j -> j.getStatus().getConditions().stream())
                            .filter(c -> "Failed".equals(c.getType()))
                            .findFirst(),
                    () -> "no Failed condition yet");
            assertThat(condition.getReason()).isEqualTo("PodFailurePolicy");
            assertThat(condition.getMessage())
                    .contains("has condition DisruptionTarget matching FailJob rule at index 0");
            deleteJob("lost-1");
        } finally {
            // the node comes back, for the class's other jobs
            node.getMetadata().setResourceVersion(null);
            node.getMetadata().setUid(null);
            kube().nodes().resource(node).create();
        }
    }

    @Test
    void nonZeroExitFailsTheJob() {
        h.dispatcher.handle(ensureJob(
                "exit-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "0.3", "FALCON_SIM_EXIT_CODE", "3")));

        ExecutorEvent.JobFailed failed = h.sink.await(ExecutorEvent.JobFailed.class, "exit-1", WAIT);
        assertThat(failed.message()).isEqualTo("Pod terminated: Error (exit code 3)");
        assertThat(failed.cause()).isEqualTo(io.falcon.events.executor.FailureCause.exited("exit code 3", 3));
        assertThat(h.sink.of(ExecutorEvent.JobSucceeded.class, "exit-1")).isEmpty();
        deleteJob("exit-1");
    }

    @Test
    void oomKillIsReportedWithItsReason() {
        h.dispatcher.handle(
                ensureJob("oom-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "0.3", "FALCON_SIM_OOM", "true")));

        ExecutorEvent.JobFailed failed = h.sink.await(ExecutorEvent.JobFailed.class, "oom-1", WAIT);
        assertThat(failed.message()).isEqualTo("Pod terminated: OOMKilled (exit code 137)");
        assertThat(failed.cause()).isEqualTo(io.falcon.events.executor.FailureCause.exited("OOMKilled", 137));
        deleteJob("oom-1");
    }

    @Test
    void missingImageFailsAfterTheGrace() {
        h.dispatcher.handle(ensureJob("pull-1", "registry/does-not-exist:1", Map.of()));

        ExecutorEvent.JobFailed failed = h.sink.await(ExecutorEvent.JobFailed.class, "pull-1", WAIT);
        assertThat(failed.message()).containsAnyOf("ErrImagePull", "ImagePullBackOff");
        deleteJob("pull-1");
    }

    @Test
    void aSecretTheSpecReferencesThatIsNotThereFailsTheJobAfterTheGraceNamingIt() {
        // the actor has no Secret of that name: the kubelet cannot make the container (CreateContainerConfigError)
        h.dispatcher.handle(new EnsureJob(
                        Meta.of("test", Instant.now()),
                        "nosecret-1",
                        SimHarness.cluster(),
                        "falcon-pool",
                        "falcon-nosecret-1",
                        "v7x",
                        "2x2x2",
                        new JobSpec(
                                "img:1",
                                List.of("python", "train.py"),
                                List.of(),
                                Map.of(),
                                Map.of("HF_TOKEN", new JobSpec.SecretRef("never-made", "token"))))
                .withActor("team-a"));

        ExecutorEvent.JobFailed failed = h.sink.await(ExecutorEvent.JobFailed.class, "nosecret-1", WAIT);
        assertThat(failed.message())
                .isEqualTo("Pod container cannot be configured: CreateContainerConfigError (secret \""
                        + ResourceNames.actorSecret("team-a", "never-made") + "\" not found)");
        assertThat(h.sink.of(ExecutorEvent.JobRunning.class, "nosecret-1")).isEmpty();
        deleteJob("nosecret-1");
    }

    @Test
    void invalidSpecIsASubmitFailure() {
        h.dispatcher.handle(new EnsureJob(
                Meta.of("test", Instant.now()),
                "bad-1",
                SimHarness.cluster(),
                "falcon-pool",
                "falcon-bad-1",
                "v7x",
                "2x2x2",
                new JobSpec("img", List.of(), List.of(), Map.of())));

        ExecutorEvent.JobSubmitFailed failed = h.sink.await(ExecutorEvent.JobSubmitFailed.class, "bad-1", WAIT);
        assertThat(failed.message()).startsWith("invalid job:").contains("command");
    }

    @Test
    void aMultiHostJobGetsItsHeadlessServiceOwnedByTheJobAndLosesItWithTheJob() {
        h.dispatcher.handle(ensureJob("svc-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "30")));
        ExecutorEvent.JobSubmitted submitted = h.sink.await(ExecutorEvent.JobSubmitted.class, "svc-1", WAIT);
        var services = kube().services().inNamespace("default");
        var service = services.withName("falcon-svc-1").get();
        assertThat(service).isNotNull();
        assertThat(service.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(service.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("Job");
            assertThat(o.getUid()).isEqualTo(submitted.jobUid());
        });

        // a restart between the Job and its Service: the redelivered EnsureJob completes the pair
        services.withName("falcon-svc-1").delete();
        h.dispatcher.handle(ensureJob("svc-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "30")));
        h.sink.await(ExecutorEvent.JobSubmitted.class, "svc-1", e -> e != submitted, WAIT);
        assertThat(services.withName("falcon-svc-1").get()).isNotNull();

        deleteJob("svc-1");
        assertThat(services.withName("falcon-svc-1").get()).isNull();
    }

    @Test
    void deleteIsIdempotent() {
        h.dispatcher.handle(ensureJob("del-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "30")));
        h.sink.await(ExecutorEvent.JobSubmitted.class, "del-1", WAIT);

        deleteJob("del-1");
        assertThat(kube().batch()
                        .v1()
                        .jobs()
                        .inNamespace("default")
                        .withName("falcon-del-1")
                        .get())
                .isNull();
        int before = h.sink.of(ExecutorEvent.JobDeleted.class, "del-1").size();
        h.dispatcher.handle(new EnsureJobDeleted(
                Meta.of("test", Instant.now()), "del-1", SimHarness.cluster(), "falcon-del-1")); // not found = success
        // at once, or (pods the Job controller created as the Job went still terminating) once they are gone
        io.falcon.testkit.Await.until(
                "a JobDeleted for the repeated deletion",
                WAIT,
                () -> h.sink.of(ExecutorEvent.JobDeleted.class, "del-1").size() == before + 1,
                () -> h.sink.of(ExecutorEvent.JobDeleted.class, "del-1").toString());
    }

    @Test
    void apiRefusalIsAJobSubmitFailedWithTheApiMessage() {
        String denial = "admission webhook \"policy.falcon.test\" denied the request: image registry not allowed";
        h.sim.kubernetesKnobs(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER)
                .rejectNextJobCreations(1, 403, "Forbidden", denial);
        h.dispatcher.handle(ensureJob("deny-1", "img:1", Map.of()));

        ExecutorEvent.JobSubmitFailed failed = h.sink.await(ExecutorEvent.JobSubmitFailed.class, "deny-1", WAIT);
        assertThat(failed.message()).isEqualTo(denial);
        assertThat(failed.k8sJobName()).isEqualTo("falcon-deny-1");
        assertThat(kube().batch()
                        .v1()
                        .jobs()
                        .inNamespace("default")
                        .withName("falcon-deny-1")
                        .get())
                .isNull();
        assertThat(h.sink.of(ExecutorEvent.JobSubmitted.class, "deny-1")).isEmpty();
    }

    @Test
    void aBrieflyOverloadedApiServerIsRetriedByTheClient() {
        h.sim.kubernetesKnobs(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER)
                .rejectNextJobCreations(
                        2, 503, "ServiceUnavailable", "the server is currently unable to handle the request");
        h.dispatcher.handle(ensureJob("busy-1", "img:1", Map.of("FALCON_SIM_DURATION_SECONDS", "0.2")));

        h.sink.await(ExecutorEvent.JobSubmitted.class, "busy-1", WAIT);
        assertThat(h.sink.of(ExecutorEvent.JobSubmitFailed.class, "busy-1")).isEmpty();
        h.sink.await(ExecutorEvent.JobSucceeded.class, "busy-1", WAIT);
        deleteJob("busy-1");
    }
}
