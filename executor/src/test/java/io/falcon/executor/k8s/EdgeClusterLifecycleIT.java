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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An edge cluster's control plane moves (its endpoint or CA rotates), or the GKE cluster is deleted and created again,
 * through the real fabric8 and google-cloud-container clients against fleet-sim: the executor's cached client and
 * informers must follow (GKE getCluster asked again when the API server does not answer), and a cluster that is gone
 * must be reported so that its jobs end, instead of deletions re-sent forever and jobs left to their deadlines.
 */
class EdgeClusterLifecycleIT {
    private static final Duration WAIT = Duration.ofSeconds(40);
    private SimHarness h;

    @BeforeEach
    void start() {
        h = new SimHarness(Map.of());
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private void runningJob(String jobId, String seconds) {
        h.dispatcher.handle(new EnsureNodePool(
                Meta.of("test", Instant.now()),
                jobId,
                SimHarness.cluster(),
                "falcon-" + jobId,
                "v7x",
                "2x2x1",
                SupplyMode.ON_DEMAND,
                Optional.empty()));
        h.sink.await(ExecutorEvent.NodePoolReady.class, jobId, WAIT);
        h.dispatcher.handle(new EnsureJob(
                Meta.of("test", Instant.now()),
                jobId,
                SimHarness.cluster(),
                "falcon-" + jobId,
                "falcon-" + jobId,
                "v7x",
                "2x2x1",
                new JobSpec(
                        "img:1",
                        List.of("python", "train.py"),
                        List.of(),
                        Map.of("FALCON_SIM_DURATION_SECONDS", seconds))));
        h.sink.await(ExecutorEvent.JobRunning.class, jobId, WAIT);
    }

    /**
     * Sends the command, and again every few seconds until the executor reports the event, as the scheduler re-sends a
     * deletion every cleanup interval until it is confirmed.
     */
    private <T extends ExecutorEvent> void untilConfirmed(Class<T> type, String jobId, Runnable command) {
        long[] sentAt = {0};
        io.falcon.testkit.Await.until(
                type.getSimpleName() + " of " + jobId,
                WAIT,
                () -> {
                    if (!h.sink.of(type, jobId).isEmpty()) {
                        return true;
                    }
                    if (System.nanoTime() - sentAt[0] > Duration.ofSeconds(3).toNanos()) {
                        command.run();
                        sentAt[0] = System.nanoTime();
                    }
                    return !h.sink.of(type, jobId).isEmpty();
                },
                () -> "events " + h.sink.all());
    }

    private void deleteJob(String jobId) {
        h.dispatcher.handle(
                new EnsureJobDeleted(Meta.of("test", Instant.now()), jobId, SimHarness.cluster(), "falcon-" + jobId));
    }

    private void deletePool(String jobId) {
        h.dispatcher.handle(new EnsureNodePoolDeleted(
                Meta.of("test", Instant.now()), jobId, SimHarness.cluster(), "falcon-" + jobId));
    }

    @Test
    void aControlPlaneThatMovesIsFoundAgainAndItsJobsAreStillWatched() {
        runningJob("moved-1", "4");

        h.sim.rotateEndpoint(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER);

        // the informers' watch is cut; GKE is asked again, and the Job's end is seen at the new endpoint
        h.sink.await(ExecutorEvent.JobSucceeded.class, "moved-1", WAIT);
        untilConfirmed(ExecutorEvent.JobDeleted.class, "moved-1", () -> deleteJob("moved-1"));
        deletePool("moved-1");
        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "moved-1", WAIT);
        assertThat(h.sink.of(ExecutorEvent.ClusterGone.class, "")).isEmpty();
    }

    @Test
    void aDeletedClusterIsReportedGoneItsDeletionsAreConfirmedAndOneCreatedAgainIsUsed() {
        runningJob("gone-1", "120");

        h.sim.deleteCluster(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER);

        // the scheduler's deletions of what was there: confirmed, not re-sent forever against a dead endpoint
        untilConfirmed(ExecutorEvent.JobDeleted.class, "gone-1", () -> deleteJob("gone-1"));
        untilConfirmed(ExecutorEvent.NodePoolDeleted.class, "gone-1", () -> deletePool("gone-1"));
        // and the cluster reported gone, which ends the jobs that ran there
        ExecutorEvent.ClusterGone gone = h.sink.await(ExecutorEvent.ClusterGone.class, "", WAIT);
        assertThat(gone.clusterId()).isEqualTo(SimHarness.cluster().clusterId());
        assertThat(gone.clusterResource()).isEqualTo(SimHarness.cluster().resourceName());
        assertThat(gone.message()).contains("NOT_FOUND");
        assertThat(h.sink.of(ExecutorEvent.JobSucceeded.class, "gone-1")).isEmpty();

        // a cluster of that name created again: a new client and informers, and a new job runs there
        h.sim.createClusterAgain(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER);
        runningJob("again-1", "0.5");
        h.sink.await(ExecutorEvent.JobSucceeded.class, "again-1", WAIT);
        deleteJob("again-1");
        h.sink.await(ExecutorEvent.JobDeleted.class, "again-1", WAIT);
        deletePool("again-1");
        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "again-1", WAIT);
    }
}
