package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.falcon.events.Meta;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.ExecutorCommand.EnsureJobDeleted;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.SimHarness;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A flex-start pool from zero through the real clients (issue 19): fleet-sim's GKE creates it without nodes and its
 * cluster autoscaler adds the slice's VMs only for pending pods that select it. The executor reports the pool ready
 * when it is RUNNING, submits the Job, reports the pods' wait for nodes from its informers (and in answer to a re-sent
 * EnsureJob), then the end of the wait, and the Job runs.
 */
class FlexStartFromZeroIT {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static SimHarness h;

    @BeforeAll
    static void start() {
        h = new SimHarness(Map.of());
        h.knobs().scaleUpDelay(Duration.ofMillis(300));
    }

    @AfterAll
    static void stop() {
        h.knobs().stockout(false);
        h.close();
    }

    private static KubernetesClient kube() {
        return h.sim.kubernetesClient(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER);
    }

    private static int nodesOf(String pool) {
        return kube().nodes()
                .withLabel(KubernetesEdgeApi.NODE_POOL_LABEL, pool)
                .list()
                .getItems()
                .size();
    }

    private static EnsureJob ensureJob(String jobId, String pool) {
        return new EnsureJob(
                Meta.of("test", Instant.now()),
                jobId,
                SimHarness.cluster(),
                pool,
                "falcon-" + jobId,
                "v7x",
                "2x2x2",
                new JobSpec(
                        "img:1",
                        List.of("python", "train.py"),
                        List.of(),
                        Map.of("FALCON_SIM_DURATION_SECONDS", "0.5")));
    }

    @Test
    void theJobIsSubmittedToTheRunningPoolAndItsPodsWaitForNodesUntilCapacityComes() {
        h.knobs().stockout(true);
        h.dispatcher.handle(new EnsureNodePool(
                Meta.of("test", Instant.now()),
                "fz-1",
                SimHarness.cluster(),
                "falcon-fz-1",
                "v7x",
                "2x2x2",
                SupplyMode.FLEX_START,
                Optional.empty()));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "fz-1", WAIT);
        assertThat(nodesOf("falcon-fz-1")).as("RUNNING without nodes").isZero();

        EnsureJob command = ensureJob("fz-1", "falcon-fz-1");
        h.dispatcher.handle(command);
        h.sink.await(ExecutorEvent.JobSubmitted.class, "fz-1", WAIT);
        ExecutorEvent.NodePoolWaitingForNodes waiting =
                h.sink.await(ExecutorEvent.NodePoolWaitingForNodes.class, "fz-1", WAIT);
        assertThat(waiting.nodePoolName()).isEqualTo("falcon-fz-1");
        assertThat(List.of(waiting.registered(), waiting.ready(), waiting.expected()))
                .containsExactly(0, 0, 2);

        // the scheduler's re-drive while it waits: the Job exists; the answer carries no short count (a wait begins
        // only with pods the informers see Unschedulable, never from a re-drive, where no pod is looked at)
        int submittedBefore =
                h.sink.of(ExecutorEvent.JobSubmitted.class, "fz-1").size();
        h.dispatcher.handle(command);
        h.sink.await(
                ExecutorEvent.JobSubmitted.class,
                "fz-1",
                s -> h.sink.of(ExecutorEvent.JobSubmitted.class, "fz-1").size() > submittedBefore,
                WAIT);
        assertThat(h.sink.of(ExecutorEvent.JobRunning.class, "fz-1")).isEmpty();
        assertThat(nodesOf("falcon-fz-1")).isZero();

        h.knobs().stockout(false);
        h.sink.await(ExecutorEvent.NodePoolWaitingForNodes.class, "fz-1", w -> w.ready() == 2, WAIT);
        h.sink.await(ExecutorEvent.JobRunning.class, "fz-1", WAIT);
        h.sink.await(ExecutorEvent.JobSucceeded.class, "fz-1", WAIT);
        assertThat(nodesOf("falcon-fz-1")).isEqualTo(2);
        assertThat(h.sink.of(ExecutorEvent.JobFailed.class, "fz-1")).isEmpty();

        h.dispatcher.handle(
                new EnsureJobDeleted(Meta.of("test", Instant.now()), "fz-1", SimHarness.cluster(), "falcon-fz-1"));
        h.sink.await(ExecutorEvent.JobDeleted.class, "fz-1", WAIT);
        h.dispatcher.handle(
                new EnsureNodePoolDeleted(Meta.of("test", Instant.now()), "fz-1", SimHarness.cluster(), "falcon-fz-1"));
        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "fz-1", WAIT);
    }

    /**
     * A pool kept for the next job of its queue (seed section 5) whose nodes the autoscaler took back while it was
     * idle: the next Job is submitted to it, its pods wait for nodes (WaitingForNode, not a failure), the slice comes
     * back for them, and the Job runs.
     */
    @Test
    void aReusedPoolWhoseIdleNodesWereScaledDownGetsThemBackForTheNextJob() {
        h.dispatcher.handle(new EnsureNodePool(
                Meta.of("test", Instant.now()),
                "fz-2",
                SimHarness.cluster(),
                "falcon-fz-2",
                "v7x",
                "2x2x2",
                SupplyMode.FLEX_START,
                Optional.empty()));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "fz-2", WAIT);
        h.dispatcher.handle(ensureJob("fz-2", "falcon-fz-2"));
        h.sink.await(ExecutorEvent.JobSucceeded.class, "fz-2", WAIT);
        h.dispatcher.handle(
                new EnsureJobDeleted(Meta.of("test", Instant.now()), "fz-2", SimHarness.cluster(), "falcon-fz-2"));
        h.sink.await(ExecutorEvent.JobDeleted.class, "fz-2", WAIT);
        assertThat(nodesOf("falcon-fz-2")).isEqualTo(2);

        // idle: the autoscaler takes the slice back after the consolidation delay (shortened here)
        h.knobs().scaleDownAfter(Duration.ofMillis(300));
        try {
            Await.until(
                    "the idle slice scaled down",
                    WAIT,
                    () -> nodesOf("falcon-fz-2") == 0,
                    () -> "nodes " + nodesOf("falcon-fz-2"));
        } finally {
            h.knobs().scaleDownAfter(null);
        }

        // the next job of the queue gets the pool
        h.dispatcher.handle(ensureJob("fz-3", "falcon-fz-2"));
        h.sink.await(ExecutorEvent.JobSubmitted.class, "fz-3", WAIT);
        ExecutorEvent.NodePoolWaitingForNodes waiting =
                h.sink.await(ExecutorEvent.NodePoolWaitingForNodes.class, "fz-3", WAIT);
        assertThat(waiting.nodePoolName()).isEqualTo("falcon-fz-2");
        assertThat(waiting.ready()).isLessThan(waiting.expected());
        h.sink.await(ExecutorEvent.NodePoolWaitingForNodes.class, "fz-3", w -> w.ready() == 2, WAIT);
        h.sink.await(ExecutorEvent.JobRunning.class, "fz-3", WAIT);
        h.sink.await(ExecutorEvent.JobSucceeded.class, "fz-3", WAIT);
        assertThat(h.sink.of(ExecutorEvent.JobFailed.class, "fz-3")).isEmpty();

        h.dispatcher.handle(
                new EnsureJobDeleted(Meta.of("test", Instant.now()), "fz-3", SimHarness.cluster(), "falcon-fz-3"));
        h.sink.await(ExecutorEvent.JobDeleted.class, "fz-3", WAIT);
        h.dispatcher.handle(
                new EnsureNodePoolDeleted(Meta.of("test", Instant.now()), "fz-3", SimHarness.cluster(), "falcon-fz-2"));
        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "fz-3", WAIT);
    }
}
