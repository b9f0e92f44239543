package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.falcon.executor.Fixtures;
import io.falcon.executor.core.JobObservation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class JobObservationTest {
    /** The pure observation over the views the informers build from fabric8's objects. */
    private static JobObservation observe(Job job, List<Pod> pods, Instant now, Duration grace) {
        return JobObservation.observe(
                Fabric8Views.job(job), pods.stream().map(Fabric8Views::pod).toList(), now, grace);
    }

    private static final Instant NOW = Instant.parse("2026-04-15T10:05:00Z");
    private static final Duration GRACE = Duration.ofMinutes(2);
    private final Job job = new JobRenderer("default").render(Fixtures.ensureJob("job-1", "2x2x4", Fixtures.spec()));

    @Test
    void pendingUntilAllExpectedPodsRun() {
        List<Pod> pods = List.of(running("p0"), running("p1"), running("p2"), pending("p3"));
        assertThat(observe(job, pods, NOW, GRACE)).isInstanceOf(JobObservation.Pending.class);
    }

    @Test
    void runningWhenAllExpectedPodsRun() {
        List<Pod> pods = List.of(running("p0"), running("p1"), running("p2"), running("p3"));
        // these pods do not say when they were bound: the time the slice had its capacity is unknown
        assertThat(observe(job, pods, NOW, GRACE)).isEqualTo(new JobObservation.Running(4, 4, Optional.empty()));
    }

    @Test
    void runningSaysWhenTheLastPodWasBoundToItsNode() {
        // the pods waited for their nodes (a pool scaled to zero): the last one bound is when the slice was there
        Instant last = NOW.minusSeconds(40);
        List<Pod> pods = List.of(
                bound("p0", NOW.minusSeconds(90)),
                bound("p1", last),
                bound("p2", NOW.minusSeconds(60)),
                bound("p3", NOW.minusSeconds(75)));
        assertThat(observe(job, pods, NOW, GRACE)).isEqualTo(new JobObservation.Running(4, 4, Optional.of(last)));
    }

    @Test
    void succeededOnCompleteCondition() {
        Job done = new JobBuilder(job)
                .withNewStatus()
                .addNewCondition()
                .withType("Complete")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build();
        assertThat(observe(done, List.of(), NOW, GRACE)).isInstanceOf(JobObservation.Succeeded.class);
    }

    @Test
    void failedWithThePodsTerminationReason() {
        Job failed = new JobBuilder(job)
                .withNewStatus()
                .addNewCondition()
                .withType("Failed")
                .withStatus("True")
                .withReason("BackoffLimitExceeded")
                .endCondition()
                .endStatus()
                .build();
        Pod oom = new PodBuilder(running("p0"))
                .editStatus()
                .withPhase("Failed")
                .withContainerStatuses()
                .addNewContainerStatus()
                .withName("workload")
                .withNewState()
                .withNewTerminated()
                .withExitCode(137)
                .withReason("OOMKilled")
                .endTerminated()
                .endState()
                .endContainerStatus()
                .endStatus()
                .build();
        assertThat(observe(failed, List.of(oom, running("p1")), NOW, GRACE))
                .isEqualTo(new JobObservation.Failed(
                        "Pod terminated: OOMKilled (exit code 137)",
                        io.falcon.events.executor.FailureCause.exited("OOMKilled", 137)));
    }

    @Test
    void aJobItsPodFailurePolicyFailedForADisruptedPodIsTheFleetsEvenWithItsPodsGone() {
        // an evicted pod is deleted; the Job's condition (its FailJob rule on DisruptionTarget) is what remains
        String match = "Pod default/falcon-j1-0-x7k2p has condition DisruptionTarget matching FailJob rule at index 0";
        Job failed = new JobBuilder(job)
                .withNewStatus()
                .addNewCondition()
                .withType("Failed")
                .withStatus("True")
                .withReason("PodFailurePolicy")
                .withMessage(match)
                .endCondition()
                .endStatus()
                .build();

        JobObservation seen = observe(failed, List.of(), NOW, GRACE);

        assertThat(seen).isInstanceOfSatisfying(JobObservation.Failed.class, f -> {
            assertThat(f.cause().infrastructure()).isTrue();
            assertThat(f.cause().signal()).contains("DisruptionTarget").contains(match);
        });
        // the same Job failed by its backoff limit, the pods gone, says nothing of the fleet: the program's
        Job byBackoff = new JobBuilder(failed)
                .editStatus()
                .editFirstCondition()
                .withReason("BackoffLimitExceeded")
                .withMessage("Job has reached the specified backoff limit")
                .endCondition()
                .endStatus()
                .build();
        assertThat(observe(byBackoff, List.of(), NOW, GRACE))
                .isInstanceOfSatisfying(
                        JobObservation.Failed.class,
                        f -> assertThat(f.cause().infrastructure()).isFalse());
    }

    /** A pod of the Job that failed with exit code {@code code}, and, if given, Kubernetes' DisruptionTarget reason. */
    private static Pod exited(String name, int code, String disruption) {
        PodBuilder pod = new PodBuilder(running(name))
                .editStatus()
                .withPhase("Failed")
                .withContainerStatuses()
                .addNewContainerStatus()
                .withName("workload")
                .withNewState()
                .withNewTerminated()
                .withExitCode(code)
                .withReason("Error")
                .endTerminated()
                .endState()
                .endContainerStatus()
                .endStatus();
        if (!disruption.isEmpty()) {
            pod = pod.editStatus()
                    .addNewCondition()
                    .withType("DisruptionTarget")
                    .withStatus("True")
                    .withReason(disruption)
                    .endCondition()
                    .endStatus();
        }
        return pod.build();
    }

    /** The Job, failed as the Job controller marks it when a pod fails (backoffLimit 0). */
    private Job failed() {
        return new JobBuilder(job)
                .withNewStatus()
                .addNewCondition()
                .withType("Failed")
                .withStatus("True")
                .withReason("BackoffLimitExceeded")
                .endCondition()
                .endStatus()
                .build();
    }

    @Test
    void aNonZeroExitIsTheProgramsFailureWithItsExitCode() {
        JobObservation seen = observe(failed(), List.of(exited("p0", 3, ""), running("p1")), NOW, GRACE);
        assertThat(seen)
                .isEqualTo(new JobObservation.Failed(
                        "Pod terminated: Error (exit code 3)",
                        io.falcon.events.executor.FailureCause.exited("exit code 3", 3)));
    }

    @Test
    void aPodKubernetesDisruptedIsTheFleetsFailureEvenWhenASiblingExitedWithAnError() {
        // one host of the slice preempted (its pod exits 143 on SIGTERM); its sibling's collective lost a peer: exit 1
        JobObservation seen =
                observe(failed(), List.of(exited("p0", 1, ""), exited("p1", 143, "PreemptionByScheduler")), NOW, GRACE);
        assertThat(seen).isInstanceOfSatisfying(JobObservation.Failed.class, failed -> {
            assertThat(failed.cause())
                    .isEqualTo(io.falcon.events.executor.FailureCause.infrastructure(
                            "DisruptionTarget: PreemptionByScheduler"));
            assertThat(failed.message()).startsWith("Pod disrupted: DisruptionTarget: PreemptionByScheduler");
        });
    }

    @Test
    void aPodEvictedOrWhoseNodeShutDownIsTheFleetsFailure() {
        for (String reason : List.of("Evicted", "NodeShutdown", "Terminated", "NodeLost", "OutOfgoogle.com/tpu")) {
            Pod gone = new PodBuilder(running("p0"))
                    .editStatus()
                    .withPhase("Failed")
                    .withReason(reason)
                    .withMessage("the node said so")
                    .endStatus()
                    .build();
            JobObservation seen = observe(failed(), List.of(gone), NOW, GRACE);
            assertThat(seen)
                    .as(reason)
                    .isInstanceOfSatisfying(
                            JobObservation.Failed.class,
                            failed -> assertThat(failed.cause())
                                    .isEqualTo(io.falcon.events.executor.FailureCause.infrastructure(reason)));
        }
        // a pod reason that is not the node's stays the program's
        Pod other = new PodBuilder(running("p0"))
                .editStatus()
                .withPhase("Failed")
                .withReason("DeadlineExceeded")
                .endStatus()
                .build();
        assertThat(observe(failed(), List.of(other), NOW, GRACE))
                .isInstanceOfSatisfying(
                        JobObservation.Failed.class,
                        failed -> assertThat(failed.cause().kind())
                                .isEqualTo(io.falcon.events.executor.FailureCause.Kind.APPLICATION));
    }

    @Test
    void failedConditionWithoutPods() {
        Job failed = new JobBuilder(job)
                .withNewStatus()
                .addNewCondition()
                .withType("Failed")
                .withStatus("True")
                .withReason("DeadlineExceeded")
                .withMessage("too slow")
                .endCondition()
                .endStatus()
                .build();
        assertThat(observe(failed, List.of(), NOW, GRACE))
                .isEqualTo(new JobObservation.Failed(
                        "Job failed: DeadlineExceeded (too slow)",
                        io.falcon.events.executor.FailureCause.application("Job DeadlineExceeded")));
    }

    @Test
    void imagePullErrorFailsOnlyAfterGrace() {
        Pod young = pullError("p0", NOW.minusSeconds(30));
        Pod old = pullError("p0", NOW.minusSeconds(300));
        assertThat(observe(job, List.of(young), NOW, GRACE)).isInstanceOf(JobObservation.Pending.class);
        assertThat(observe(job, List.of(old), NOW, GRACE))
                .isEqualTo(new JobObservation.Failed(
                        "Pod image pull failed: ImagePullBackOff (Back-off pulling)",
                        io.falcon.events.executor.FailureCause.application("ImagePullBackOff")));
    }

    @Test
    void aSecretTheEnvReferencesThatDoesNotExistFailsTheJobAfterTheGraceNamingIt() {
        // the kubelet retries (an operator may create the Secret meanwhile), so only once it lasted the grace
        Pod young = waiting("p0", NOW.minusSeconds(30), "CreateContainerConfigError", "secret \"s\" not found");
        Pod old = waiting("p0", NOW.minusSeconds(300), "CreateContainerConfigError", "secret \"s\" not found");
        assertThat(observe(job, List.of(young), NOW, GRACE)).isInstanceOf(JobObservation.Pending.class);
        assertThat(observe(job, List.of(old), NOW, GRACE))
                .isEqualTo(new JobObservation.Failed(
                        "Pod container cannot be configured: CreateContainerConfigError (secret \"s\" not found)",
                        io.falcon.events.executor.FailureCause.application("CreateContainerConfigError")));
    }

    @Test
    void theImagePullGraceCountsFromWhenThePodWasBoundToItsNodeNotFromItsCreation() {
        // created an hour ago, it waited for the VMs of a flex-start pool; bound 30 s ago, its first pull failed
        Pod waitedForVms = new PodBuilder(pullError("p0", NOW.minusSeconds(3600)))
                .editStatus()
                .addNewCondition()
                .withType("PodScheduled")
                .withStatus("True")
                .withLastTransitionTime(NOW.minusSeconds(30).toString())
                .endCondition()
                .endStatus()
                .build();
        assertThat(observe(job, List.of(waitedForVms), NOW, GRACE)).isInstanceOf(JobObservation.Pending.class);
        assertThat(observe(job, List.of(waitedForVms), NOW.plus(GRACE), GRACE))
                .isEqualTo(new JobObservation.Failed(
                        "Pod image pull failed: ImagePullBackOff (Back-off pulling)",
                        io.falcon.events.executor.FailureCause.application("ImagePullBackOff")));
        // no PodScheduled condition: the kubelet's startTime
        Pod started = new PodBuilder(pullError("p0", NOW.minusSeconds(3600)))
                .editStatus()
                .withStartTime(NOW.minusSeconds(30).toString())
                .endStatus()
                .build();
        assertThat(observe(job, List.of(started), NOW, GRACE)).isInstanceOf(JobObservation.Pending.class);
    }

    private static Pod running(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .withPhase("Running")
                .endStatus()
                .build();
    }

    private static Pod bound(String name, Instant at) {
        return new PodBuilder(running(name))
                .editStatus()
                .addNewCondition()
                .withType("PodScheduled")
                .withStatus("True")
                .withLastTransitionTime(at.toString())
                .endCondition()
                .endStatus()
                .build();
    }

    private static Pod pending(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .withPhase("Pending")
                .endStatus()
                .build();
    }

    private static Pod pullError(String name, Instant created) {
        return waiting(name, created, "ImagePullBackOff", "Back-off pulling");
    }

    private static Pod waiting(String name, Instant created, String reason, String message) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withCreationTimestamp(created.toString())
                .endMetadata()
                .withNewStatus()
                .withPhase("Pending")
                .addNewContainerStatus()
                .withName("workload")
                .withNewState()
                .withNewWaiting()
                .withReason(reason)
                .withMessage(message)
                .endWaiting()
                .endState()
                .endContainerStatus()
                .endStatus()
                .build();
    }
}
