package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.falcon.events.executor.JobSpec;
import io.falcon.executor.Fixtures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobRendererTest {
    private final JobRenderer renderer = new JobRenderer("falcon-jobs");

    @Test
    void singleHost2x2() {
        Job job = renderer.render(Fixtures.ensureJob("job-1", "2x2x1", Fixtures.spec()));

        assertThat(job.getMetadata().getName()).isEqualTo("falcon-job-1");
        assertThat(job.getMetadata().getNamespace()).isEqualTo("falcon-jobs");
        assertThat(job.getMetadata().getLabels())
                .containsEntry("managed-by", "falcon")
                .containsEntry("falcon-job", "job-1")
                .containsEntry("falcon-topology", "2x2x1");
        assertThat(job.getMetadata().getAnnotations())
                .containsEntry("falcon.io/job-id", "job-1")
                .containsEntry("falcon.io/cluster-id", "c-1")
                .containsEntry("falcon.io/tpu-type", "v7x")
                .containsEntry("falcon.io/expected-pods", "1");
        assertThat(job.getSpec().getCompletionMode()).isEqualTo("Indexed");
        assertThat(job.getSpec().getCompletions()).isEqualTo(1);
        assertThat(job.getSpec().getParallelism()).isEqualTo(1);
        assertThat(job.getSpec().getBackoffLimit()).isZero();
        // a pod the fleet disrupted fails the Job with evidence on the Job itself (JobObservation reads it)
        assertThat(job.getSpec().getPodFailurePolicy().getRules())
                .singleElement()
                .satisfies(rule -> {
                    assertThat(rule.getAction()).isEqualTo("FailJob");
                    assertThat(rule.getOnPodConditions()).singleElement().satisfies(p -> {
                        assertThat(p.getType()).isEqualTo("DisruptionTarget");
                        assertThat(p.getStatus()).isEqualTo("True");
                    });
                });
        assertThat(job.getSpec().getTemplate().getSpec().getRestartPolicy())
                .as("a podFailurePolicy requires it")
                .isEqualTo("Never");
        assertThat(job.getSpec().getSuspend())
                .as("no pod before the executor has made its NetworkPolicy and resumed it")
                .isTrue();

        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertThat(pod.getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getNodeSelector())
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "cloud.google.com/gke-tpu-accelerator", "tpu7x",
                        "cloud.google.com/gke-tpu-topology", "2x2x1",
                        "cloud.google.com/gke-nodepool", "falcon-job-1"));
        assertThat(pod.getTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getKey()).isEqualTo("google.com/tpu");
            assertThat(t.getOperator()).isEqualTo("Exists");
            assertThat(t.getEffect()).isEqualTo("NoSchedule");
        });
        Container c = pod.getContainers().get(0);
        assertThat(c.getImage()).isEqualTo("us-docker.pkg.dev/p/r/train:1");
        assertThat(c.getResources().getRequests()).containsEntry("google.com/tpu", new Quantity("4"));
        assertThat(c.getResources().getLimits()).containsEntry("google.com/tpu", new Quantity("4"));
        assertThat(c.getVolumeMounts())
                .extracting(m -> m.getName() + " at " + m.getMountPath())
                .containsExactly("gcs at /gcs", "falcon-log at /falcon-log");
        assertThat(pod.getVolumes().get(1).getEmptyDir())
                .as("the local log the script copies")
                .isNotNull();
        Volume v = pod.getVolumes().get(0);
        assertThat(v.getName()).isEqualTo("gcs");
        assertThat(v.getCsi().getDriver()).isEqualTo("gcsfuse.csi.storage.gke.io");
        assertThat(v.getCsi().getVolumeAttributes())
                .containsEntry("bucketName", "bucket-a")
                .containsEntry("mountOptions", "implicit-dirs");
        assertThat(job.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry("gke-gcsfuse/volumes", "true");
        assertThat(job.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("managed-by", "falcon")
                .containsEntry("falcon-job", "job-1")
                .containsEntry("falcon-k8s-job", "falcon-job-1");
    }

    @Test
    void commandRunsThroughShellWithLogRedirectedToGcs() {
        Job job = renderer.render(Fixtures.ensureJob("job-1", "2x2x1", Fixtures.spec()));
        Container c = job.getSpec().getTemplate().getSpec().getContainers().get(0);

        assertThat(c.getCommand()).containsExactly("/bin/sh", "-c");
        // the whole script is run by LogCopyScriptTest; here: where it logs, how often it copies, what it runs
        assertThat(c.getArgs())
                .singleElement()
                .satisfies(script -> assertThat(script)
                        .contains("log='/falcon-log'/\"${POD_NAME}.log\"")
                        .contains("dst='/gcs/logs/job-1'/\"${POD_NAME}.log\"")
                        .contains("while sleep 30; do cp \"$log\" \"$dst\"; done")
                        .contains("'python' 'train.py' '--steps' 'it'\"'\"'s 10' >>\"$log\" 2>&1 &")
                        .endsWith("exit \"$rc\"\n"));
        EnvVar podName = c.getEnv().get(0);
        assertThat(podName.getName()).isEqualTo("POD_NAME");
        assertThat(podName.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
        assertThat(c.getEnv()).extracting(EnvVar::getName).containsExactly("POD_NAME", "FALCON_JOB_ID", "A", "B");
        assertThat(c.getEnv())
                .filteredOn(e -> e.getName().equals("A"))
                .singleElement()
                .extracting(EnvVar::getValue)
                .isEqualTo("1");
    }

    private static io.falcon.events.executor.ClusterTarget clusterWithAccount(String account) {
        var base = Fixtures.cluster();
        return new io.falcon.events.executor.ClusterTarget(
                base.clusterId(),
                base.name(),
                base.project(),
                base.location(),
                base.tpuType(),
                base.gcsBucket(),
                java.util.Optional.of(account));
    }

    @Test
    void podsRunAsTheClustersServiceAccountWhenItHasOneAndABadNameIsRefused() {
        var command = io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand("job-sa")
                .cluster(clusterWithAccount("falcon-jobs-bucket"))
                .topology("2x2x1")
                .spec(Fixtures.spec())
                .ensureJob();
        assertThat(renderer.render(command).getSpec().getTemplate().getSpec().getServiceAccountName())
                .isEqualTo("falcon-jobs-bucket");
        assertThat(renderer.render(Fixtures.ensureJob("job-1", "2x2x1", Fixtures.spec()))
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getServiceAccountName())
                .as("no account on the row: the namespace's default")
                .isNull();

        var bad = io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand("job-sa")
                .cluster(clusterWithAccount("Bad_Name"))
                .topology("2x2x1")
                .spec(Fixtures.spec())
                .ensureJob();
        assertThatThrownBy(() -> renderer.render(bad))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("k8s_service_account 'Bad_Name'");
    }

    @Test
    void noPodMountsAKubernetesApiTokenAndThePolicyRefusesOneThatWould() {
        Job job = renderer.render(Fixtures.ensureJob("job-1", "2x2x4", Fixtures.spec()));
        assertThat(job.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken())
                .isFalse();
        for (Boolean mounted : new Boolean[] {true, null}) {
            Job tokened = withPod(job, pod -> pod.setAutomountServiceAccountToken(mounted));
            assertThatThrownBy(() -> JobRenderer.validate(tokened))
                    .as("automountServiceAccountToken " + mounted)
                    .isInstanceOf(InvalidJobException.class)
                    .hasMessageContaining("must not mount a Kubernetes API token");
        }
    }

    private static final JobRenderer PER_ACTOR = new JobRenderer(
            "falcon-jobs",
            JobRenderer.DEFAULT_TTL,
            JobRenderer.DEFAULT_LOG_COPY_INTERVAL,
            io.falcon.executor.core.Ownership.DEFAULT,
            JobRenderer.Identity.ACTOR);

    @Test
    void withActorIdentityThePodsRunAsTheActorsAccountAndMountOnlyTheActorsFolder() {
        String key = io.falcon.events.ResourceNames.actorKey("Team A");
        assertThat(key).matches("falcon-actor-team-a-[0-9a-f]{16}");
        var command = io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand("job-7")
                .cluster(clusterWithAccount("falcon-jobs-bucket"))
                .topology("2x2x1")
                .spec(Fixtures.spec())
                .ensureJob()
                .withActor("Team A");
        PodSpec pod = PER_ACTOR.render(command).getSpec().getTemplate().getSpec();

        assertThat(pod.getServiceAccountName())
                .as("the actor's, not the cluster row's shared account")
                .isEqualTo(key);
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getVolumes().get(0).getCsi().getVolumeAttributes())
                .containsEntry("bucketName", "bucket-a")
                .containsEntry("mountOptions", "implicit-dirs,only-dir=actors/" + key);
        // the pod sees the same layout: gs://bucket-a/actors/<key>/logs/job-7/<pod>.log
        assertThat(pod.getContainers().get(0).getArgs().get(0)).contains("dst='/gcs/logs/job-7'/");
        assertThat(JobRenderer.actorFolder("Team A")).isEqualTo("actors/" + key);

        // another actor's job on the same cluster: another account, another folder
        PodSpec other = PER_ACTOR
                .render(command.withActor("team-b"))
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(other.getServiceAccountName()).isNotEqualTo(key);
        assertThat(other.getVolumes().get(0).getCsi().getVolumeAttributes().get("mountOptions"))
                .doesNotContain(key);

        // the cluster identity (the default) keeps the row's account and the whole bucket
        PodSpec shared = renderer.render(command).getSpec().getTemplate().getSpec();
        assertThat(shared.getServiceAccountName()).isEqualTo("falcon-jobs-bucket");
        assertThat(shared.getVolumes().get(0).getCsi().getVolumeAttributes())
                .containsEntry("mountOptions", "implicit-dirs");
    }

    @Test
    void withActorIdentityACommandWithoutAnActorIsRefused() {
        // a command written before commands carried the actor: run as no one rather than as the shared account
        assertThatThrownBy(() -> PER_ACTOR.render(Fixtures.ensureJob("job-1", "2x2x1", Fixtures.spec())))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("falcon.executor.job.identity is actor");
    }

    @Test
    void everyJobGetsANetworkPolicyAdmittingOnlyItsOwnPods() {
        for (String topology : List.of("2x2x1", "2x2x4")) {
            var command = Fixtures.ensureJob("job-2", topology, Fixtures.spec());
            Job job = renderer.render(command);
            var policy = renderer.renderNetworkPolicy(command);

            assertThat(policy.getMetadata().getName()).isEqualTo("falcon-job-2");
            assertThat(policy.getMetadata().getNamespace()).isEqualTo("falcon-jobs");
            assertThat(policy.getMetadata().getLabels())
                    .as("Falcon's ownership labels, as on the Job")
                    .isEqualTo(job.getMetadata().getLabels());
            assertThat(policy.getMetadata().getAnnotations()).containsEntry("falcon.io/job-id", "job-2");
            Map<String, String> pods =
                    Map.of("managed-by", "falcon", "falcon-installation", "falcon", "falcon-k8s-job", "falcon-job-2");
            assertThat(policy.getSpec().getPodSelector().getMatchLabels()).isEqualTo(pods);
            assertThat(job.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(pods);
            assertThat(policy.getSpec().getPolicyTypes())
                    .as("ingress only: egress (DNS, GCS, images) as it was")
                    .containsExactly("Ingress");
            assertThat(policy.getSpec().getIngress()).singleElement().satisfies(rule -> {
                assertThat(rule.getPorts()).as("any port").isNullOrEmpty();
                assertThat(rule.getFrom()).singleElement().satisfies(peer -> {
                    assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(pods);
                    assertThat(peer.getNamespaceSelector())
                            .as("this namespace only")
                            .isNull();
                    assertThat(peer.getIpBlock()).isNull();
                });
            });
        }
        // another installation's job of the same name is not admitted
        var other = new JobRenderer(
                "falcon-jobs",
                JobRenderer.DEFAULT_TTL,
                JobRenderer.DEFAULT_LOG_COPY_INTERVAL,
                new io.falcon.executor.core.Ownership("falcon-b"));
        assertThat(other.renderNetworkPolicy(Fixtures.ensureJob("job-2", "2x2x4", Fixtures.spec()))
                        .getSpec()
                        .getPodSelector()
                        .getMatchLabels())
                .containsEntry("falcon-installation", "falcon-b");
    }

    @Test
    void aSecretReferenceRendersAsValueFromTheActorsSecretAndNeverAsAValue() {
        JobSpec spec = new JobSpec(
                "img",
                List.of("python"),
                List.of(),
                Map.of("MODE", "fast"),
                Map.of("HF_TOKEN", new JobSpec.SecretRef("hf-token", "token")));
        var command = Fixtures.ensureJob("job-1", "2x2x1", spec).withActor("team-a");
        Container c = renderer.render(command)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0);

        assertThat(c.getEnv())
                .extracting(EnvVar::getName)
                .containsExactly("POD_NAME", "FALCON_JOB_ID", "HF_TOKEN", "MODE");
        EnvVar token = c.getEnv().get(2);
        assertThat(token.getValue()).isNull();
        assertThat(token.getValueFrom().getSecretKeyRef().getName())
                .isEqualTo(io.falcon.events.ResourceNames.actorKey("team-a") + ".hf-token");
        assertThat(token.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("token");
        assertThat(c.getEnv().get(3).getValue()).isEqualTo("fast");

        assertThatThrownBy(() -> renderer.render(Fixtures.ensureJob("job-1", "2x2x1", spec)))
                .as("no actor: no one's Secret")
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("spec.env.HF_TOKEN references a Secret");
        JobSpec twice = new JobSpec(
                "img",
                List.of("python"),
                List.of(),
                Map.of("T", "x"),
                Map.of("T", new JobSpec.SecretRef("hf-token", "token")));
        assertThatThrownBy(() -> renderer.render(
                        Fixtures.ensureJob("job-1", "2x2x1", twice).withActor("team-a")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("both inline and from a Secret");
        JobSpec badKey = new JobSpec(
                "img", List.of("python"), List.of(), Map.of(), Map.of("T", new JobSpec.SecretRef("s", "a/b")));
        assertThatThrownBy(() -> renderer.render(
                        Fixtures.ensureJob("job-1", "2x2x1", badKey).withActor("team-a")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("spec.env.T secretKeyRef");
    }

    @Test
    void aTwoByFourSliceOnAnEightChipVmIsOnePodAskingForAllEightChipsWithoutAService() {
        var command = io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand("job-8")
                .cluster(Fixtures.cluster())
                .tpuType("v6e")
                .topology("2x4")
                .spec(Fixtures.spec())
                .ensureJob();
        Job job = renderer.render(command);

        assertThat(job.getSpec().getCompletions()).isEqualTo(1);
        assertThat(job.getSpec().getParallelism()).isEqualTo(1);
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertThat(pod.getContainers().get(0).getResources().getLimits())
                .containsEntry("google.com/tpu", new Quantity("8"));
        assertThat(pod.getNodeSelector()).containsEntry("cloud.google.com/gke-tpu-topology", "2x4");
        assertThat(pod.getSubdomain()).isNull();
        assertThat(renderer.renderService(command)).isEmpty();
    }

    @Test
    void multiHost2x2x4() {
        Job job = renderer.render(Fixtures.ensureJob("job-2", "2x2x4", Fixtures.spec()));

        assertThat(job.getSpec().getCompletionMode()).isEqualTo("Indexed");
        assertThat(job.getSpec().getCompletions()).isEqualTo(4);
        assertThat(job.getSpec().getParallelism()).isEqualTo(4);
        assertThat(job.getMetadata().getAnnotations()).containsEntry("falcon.io/expected-pods", "4");
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector())
                .containsEntry("cloud.google.com/gke-tpu-topology", "2x2x4")
                .containsEntry("cloud.google.com/gke-nodepool", "falcon-job-2");
        assertThat(pod.getContainers().get(0).getResources().getLimits())
                .containsEntry("google.com/tpu", new Quantity("4"));
        assertThat(pod.getContainers().get(0).getArgs().get(0)).contains("/gcs/logs/job-2");
        // worker discovery: <job>-<index>.<subdomain> through the headless Service of the same name
        assertThat(pod.getSubdomain()).isEqualTo("falcon-job-2");
        var service = renderer.renderService(Fixtures.ensureJob("job-2", "2x2x4", Fixtures.spec()))
                .orElseThrow();
        assertThat(service.getMetadata().getName()).isEqualTo("falcon-job-2");
        assertThat(service.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(service.getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(service.getSpec().getSelector())
                .containsExactly(java.util.Map.entry("falcon-k8s-job", "falcon-job-2"));
        assertThat(job.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(service.getSpec().getSelector());
    }

    @Test
    void aSingleHostJobNeedsNoWorkerDiscovery() {
        var command = Fixtures.ensureJob("job-3", "2x2x1", Fixtures.spec());
        assertThat(renderer.render(command).getSpec().getTemplate().getSpec().getSubdomain())
                .isNull();
        assertThat(renderer.renderService(command)).isEmpty();
    }

    @Test
    void refusesPrivilegedContainer() {
        Job job = withPod(renderer.render(Fixtures.ensureJob("job-1", "2x2x1", Fixtures.spec())), pod -> {
            Container c = new ContainerBuilder(pod.getContainers().get(0))
                    .withNewSecurityContext()
                    .withPrivileged(true)
                    .endSecurityContext()
                    .build();
            pod.setContainers(List.of(c));
        });
        assertThatThrownBy(() -> JobRenderer.validate(job))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("privileged");
    }

    @Test
    void refusesHostPath() {
        Job job = withPod(
                renderer.render(Fixtures.ensureJob("job-1", "2x2x1", Fixtures.spec())),
                pod -> pod.getVolumes()
                        .add(new VolumeBuilder()
                                .withName("host")
                                .withNewHostPath()
                                .withPath("/")
                                .endHostPath()
                                .build()));
        assertThatThrownBy(() -> JobRenderer.validate(job))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("hostPath");
    }

    @Test
    void refusesHostNetwork() {
        Job job = withPod(
                renderer.render(Fixtures.ensureJob("job-1", "2x2x1", Fixtures.spec())),
                pod -> pod.setHostNetwork(true));
        assertThatThrownBy(() -> JobRenderer.validate(job))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("hostNetwork");
    }

    @Test
    void refusesBadInput() {
        assertThatThrownBy(() -> renderer.render(Fixtures.ensureJob("job-1", "3x3", Fixtures.spec())))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("topology");
        assertThatThrownBy(() -> renderer.render(
                        Fixtures.ensureJob("job-1", "2x2x1", new JobSpec("img", List.of(), List.of(), Map.of()))))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("command");
        assertThatThrownBy(() -> renderer.render(Fixtures.ensureJob(
                        "job-1", "2x2x1", new JobSpec("img", List.of("x"), List.of(), Map.of("POD_NAME", "x")))))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("POD_NAME");
        assertThatThrownBy(() -> renderer.render(Fixtures.ensureJob("../etc", "2x2x1", Fixtures.spec())))
                .isInstanceOf(InvalidJobException.class);
    }

    @Test
    void renderingIsDeterministic() {
        var cmd = Fixtures.ensureJob("job-1", "2x2x4", Fixtures.spec());
        assertThat(renderer.render(cmd)).isEqualTo(renderer.render(cmd));
    }

    private static Job withPod(Job job, java.util.function.Consumer<PodSpec> change) {
        Job copy = new JobBuilder(job).build();
        PodSpec pod = copy.getSpec().getTemplate().getSpec();
        pod.setVolumes(new java.util.ArrayList<>(pod.getVolumes()));
        change.accept(pod);
        return copy;
    }
}
