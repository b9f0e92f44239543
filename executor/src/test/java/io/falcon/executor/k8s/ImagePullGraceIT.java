package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.ExecutorCommand.EnsureJobDeleted;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted;
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

/**
 * The image-pull grace counts from when a pod could first pull its image (bound to its node), through the real
 * clients against fleet-sim: a flex-start pool from zero gets its VMs only after the pods have waited longer than the
 * grace, and the first pull fails transiently. Counted from the pods' creation, the job failed on that first error
 * though the kubelet's retry would have pulled the image a moment later.
 */
class ImagePullGraceIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static SimHarness h;

    @BeforeAll
    static void start() {
        h = new SimHarness(Map.of("falcon.executor.image-pull-grace", "3s"));
        h.knobs().scaleUpDelay(Duration.ofSeconds(5)); // the pods wait longer than the grace for their VMs
    }

    @AfterAll
    static void stop() {
        h.close();
    }

    /** A flex-start pool of its own for the job, RUNNING without nodes: they come for its pending pods. */
    private static void poolFor(String jobId) {
        h.dispatcher.handle(new EnsureNodePool(
                Meta.of("test", Instant.now()),
                jobId,
                SimHarness.cluster(),
                "falcon-" + jobId,
                "v7x",
                "2x2x2",
                SupplyMode.FLEX_START,
                Optional.empty()));
        h.sink.await(ExecutorEvent.NodePoolReady.class, jobId, WAIT);
    }

    private static EnsureJob ensureJob(String jobId, String image, Map<String, String> env) {
        return new EnsureJob(
                Meta.of("test", Instant.now()),
                jobId,
                SimHarness.cluster(),
                "falcon-" + jobId,
                "falcon-" + jobId,
                "v7x",
                "2x2x2",
                new JobSpec(image, List.of("python", "train.py"), List.of(), env));
    }

    private static void delete(String jobId) {
        h.dispatcher.handle(
                new EnsureJobDeleted(Meta.of("test", Instant.now()), jobId, SimHarness.cluster(), "falcon-" + jobId));
        h.sink.await(ExecutorEvent.JobDeleted.class, jobId, WAIT);
        h.dispatcher.handle(new EnsureNodePoolDeleted(
                Meta.of("test", Instant.now()), jobId, SimHarness.cluster(), "falcon-" + jobId));
        h.sink.await(ExecutorEvent.NodePoolDeleted.class, jobId, WAIT);
    }

    @Test
    void aPodThatWaitedForItsVmsGetsTheWholeGraceForATransientPullError() {
        poolFor("late-pull");
        h.dispatcher.handle(ensureJob(
                "late-pull",
                "img:1",
                Map.of("FALCON_SIM_PULL_FAILS_SECONDS", "1", "FALCON_SIM_DURATION_SECONDS", "0.5")));
        h.sink.await(ExecutorEvent.NodePoolWaitingForNodes.class, "late-pull", WAIT);

        h.sink.await(ExecutorEvent.JobSucceeded.class, "late-pull", WAIT);
        assertThat(h.sink.of(ExecutorEvent.JobFailed.class, "late-pull"))
                .as("not failed on the first pull error of pods created long before they could pull")
                .isEmpty();
        delete("late-pull");
    }

    @Test
    void anImageThatCannotBePulledStillFailsTheGraceAfterThePodsCouldPull() {
        poolFor("no-image");
        Instant submitted = Instant.now();
        h.dispatcher.handle(ensureJob("no-image", "registry/does-not-exist:1", Map.of()));

        ExecutorEvent.JobFailed failed = h.sink.await(ExecutorEvent.JobFailed.class, "no-image", WAIT);
        assertThat(failed.message()).startsWith("Pod image pull failed:");
        assertThat(Duration.between(submitted, failed.meta().occurredAt()))
                .as("the VMs' wait (5 s) and then the grace (3 s)")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(7));
        delete("no-image");
    }
}
