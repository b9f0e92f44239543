package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A flex-start pool gets its VMs only for the Job's pending pods (issue 19): the executor reports the pool ready when
 * it is RUNNING, the Job is submitted, and the pods' wait for nodes is the seed's WaitingForNode, with no deadline,
 * re-driven, and without using up the job's timeout.
 */
class FlexStartFromZeroTest {
    private final SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
    private static final Duration DISPATCH_DEADLINE = SchedulerKeys.DISPATCH_DEADLINE.defaultValue();
    private static final Duration DEFAULT_TIMEOUT = SchedulerKeys.DEFAULT_EXECUTION_TIMEOUT.defaultValue();
    private static final Duration RETRY = SchedulerKeys.PROVISIONING_RETRY.defaultValue();

    private ExecutorEvent.NodePoolWaitingForNodes nodes(String jobId, int registered, int ready) {
        // the informers' count: the Job's pods are Unschedulable on the pool
        return new ExecutorEvent.NodePoolWaitingForNodes(
                f.meta(), jobId, "c1", "v6e", SchedulerFixture.name("j1"), registered, ready, 1, true);
    }

    /** j1 dispatched on its flex-start pool and its Job seen, then its pods wait for the pool's nodes. */
    private void waitingForNodes() {
        f.submit("j1", "alice").poolReady("j1").submitted("j1");
        assertThat(f.last("j1").dispatchedAt()).isPresent();
        f.observe(nodes("j1", 0, 0));
    }

    @Test
    void podsWaitingForNodesShowWaitingForNodeWithoutDispatchTimeAndNoDeadline() {
        waitingForNodes();
        TaskStatus waiting = f.last("j1");
        assertThat(waiting.status()).isEqualTo(Status.Pending);
        assertThat(waiting.reason()).contains(Reason.WaitingForNode);
        assertThat(waiting.message())
                .isEqualTo("node pool " + SchedulerFixture.name("j1")
                        + " control-plane RUNNING but 0/1 expected node(s) registered (Ready=0)...");
        assertThat(waiting.dispatchedAt())
                .as("the execution clock has not started")
                .isEmpty();
        int ensures = f.commandsOf(ExecutorCommand.EnsureJob.class).size();
        int poolEnsures = f.commandsOf(ExecutorCommand.EnsureNodePool.class).size();

        // past the dispatch deadline and the default execution timeout: still waiting (seed section 4)
        f.advance(DISPATCH_DEADLINE.plus(DEFAULT_TIMEOUT).plusMinutes(5));
        assertThat(f.last("j1").status()).isEqualTo(Status.Pending);
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        // re-driven: EnsureJob again, which the executor answers with the pool's node count
        assertThat(f.commandsOf(ExecutorCommand.EnsureJob.class).size()).isGreaterThan(ensures);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "j1").nodePoolName())
                .isEqualTo(SchedulerFixture.name("j1"));
        // and the pool, so that one deleted under the waiting pods is created again
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class).size()).isGreaterThan(poolEnsures);
        assertThat(f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").supplyMode())
                .isEqualTo(io.falcon.events.executor.SupplyMode.FLEX_START);
    }

    @Test
    void aChangedCountIsPublishedAndTheSameCountIsNot() {
        waitingForNodes();
        int published = f.of("j1").size();
        f.observe(nodes("j1", 0, 0));
        assertThat(f.of("j1")).hasSize(published);
        f.observe(nodes("j1", 1, 0));
        assertThat(f.last("j1").message()).contains("1/1 expected node(s) registered (Ready=0)");
    }

    @Test
    void nodesReadyEndTheWaitAndTheDeadlinesCountFromThen() {
        waitingForNodes();
        f.advance(Duration.ofHours(3));
        Instant arrived = f.now;
        f.observe(nodes("j1", 1, 1));
        TaskStatus dispatching = f.last("j1");
        assertThat(dispatching.reason()).contains(Reason.Dispatching);
        assertThat(dispatching.message())
                .isEqualTo("K8s Job " + SchedulerFixture.name("j1") + " 已提交,等待 Pod 运行 (0/1 active)...");
        assertThat(dispatching.dispatchedAt()).contains(arrived);

        // the dispatch deadline now runs, from the nodes' arrival
        f.advance(DISPATCH_DEADLINE.minusMinutes(1));
        assertThat(f.last("j1").status()).isEqualTo(Status.Pending);
        f.advance(Duration.ofMinutes(2));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(f.last("j1").reason()).contains(Reason.JobFailed);
    }

    @Test
    void podsRunningEndTheWaitAndTheExecutionClockStartsThen() {
        waitingForNodes();
        f.advance(Duration.ofHours(5));
        Instant started = f.now;
        f.running("j1");
        TaskStatus running = f.last("j1");
        assertThat(running.status()).isEqualTo(Status.Running);
        assertThat(running.dispatchedAt()).contains(started);
        f.advance(DEFAULT_TIMEOUT.minusMinutes(1));
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        f.advance(Duration.ofMinutes(2));
        assertThat(f.last("j1").reason()).contains(Reason.Timeout);
    }

    @Test
    void aLateCountOfTheWaitAfterTheNodesCameOnlyWaitsAgainUntilTheNextCount() {
        waitingForNodes();
        f.observe(nodes("j1", 1, 1));
        f.observe(nodes("j1", 0, 0)); // delayed, overtaken
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        f.advance(RETRY);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "j1")).isNotNull();
        f.observe(nodes("j1", 1, 1)); // the re-drive's answer
        assertThat(f.last("j1").reason()).contains(Reason.Dispatching);
        assertThat(f.last("j1").dispatchedAt()).contains(f.now);
    }

    @Test
    void countsOfAnotherJobOrWithoutAWaitChangeNothing() {
        f.submit("j1", "alice").poolReady("j1").submitted("j1");
        int published = f.of("j1").size();
        f.observe(nodes("j1", 1, 1)); // all Ready: nothing waits
        f.observe(nodes("other", 0, 0)); // a report about another job's Job on this pool
        assertThat(f.of("j1")).hasSize(published);
        assertThat(f.last("j1").reason()).contains(Reason.Dispatching);
    }

    @Test
    void aWaitReportedBeforeJobSubmittedKeepsWaitingAndAStaleRefusalDoesNotFailIt() {
        f.submit("j1", "alice").poolReady("j1");
        f.observe(nodes("j1", 0, 0));
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        ExecutorCommand.EnsureJob ensure = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        f.observe(new ExecutorEvent.JobSubmitFailed(
                f.meta(), "j1", "c1", "v6e", ensure.k8sJobName(), "an earlier attempt's refusal", false));
        f.submitted("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Pending);
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        f.advance(Duration.ofHours(1));
        f.observe(nodes("j1", 1, 1));
        assertThat(f.last("j1").reason()).contains(Reason.Dispatching);
        assertThat(f.last("j1").jobUid()).contains("uid-j1");
        assertThat(f.last("j1").dispatchedAt()).contains(f.now);
    }

    @Test
    void anAbortWhileWaitingDeletesTheJobAndEndsWithoutADispatchTime() {
        waitingForNodes();
        f.abort("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Aborting);
        ExecutorCommand.EnsureJobDeleted delete = f.lastCommand(ExecutorCommand.EnsureJobDeleted.class, "j1");
        f.observe(new ExecutorEvent.JobDeleted(f.meta(), "j1", "c1", "v6e", delete.k8sJobName()));
        TaskStatus done = f.last("j1");
        assertThat(done.status()).isEqualTo(Status.Aborted);
        assertThat(done.dispatchedAt()).isEqualTo(Optional.empty());
    }

    private ExecutorEvent.NodePoolCreateFailed createFailed(String jobId) {
        return new ExecutorEvent.NodePoolCreateFailed(
                f.meta(),
                jobId,
                "c1",
                "v6e",
                SchedulerFixture.name("j1"),
                false,
                0,
                "RESOURCE_EXHAUSTED: Quota 'TPUS_PER_PROJECT' exceeded");
    }

    @Test
    void aPoolThatCannotBeCreatedAgainUnderItsWaitingPodsFailsTheJobOnceAndIsDeletedNotHandedOn() {
        waitingForNodes();
        f.submit("j2", "bob");
        assertThat(f.last("j2").reason()).contains(Reason.Waiting);
        // the pool went (an operator, GKE), the retry asked for it again, and GKE refused it for good
        f.observe(createFailed("j1"));
        TaskStatus failed = f.last("j1");
        assertThat(failed.status()).isEqualTo(Status.Failed);
        assertThat(failed.reason()).contains(Reason.NodePoolFailed);
        assertThat(failed.message()).contains("Quota 'TPUS_PER_PROJECT' exceeded");
        assertThat(f.lastCommand(ExecutorCommand.EnsureJobDeleted.class, "j1")).isNotNull();
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class))
                .anySatisfy(d -> assertThat(d.nodePoolName()).isEqualTo(SchedulerFixture.name("j1")));
        // the next job of the queue provisions a pool of its own instead of inheriting the lost one
        assertThat(f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j2").nodePoolName())
                .isEqualTo(SchedulerFixture.name("j2"));
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);

        int published = f.of("j1").size();
        int deletions =
                f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class).size();
        f.observe(createFailed("j1")); // redelivered
        assertThat(f.of("j1")).hasSize(published);
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class)).hasSize(deletions);
    }

    @Test
    void aCreateFailureOfThePoolOfAJobNoLongerWaitingForNodesOrOfAnotherJobChangesNothing() {
        waitingForNodes();
        f.observe(createFailed("other"));
        assertThat(f.last("j1").reason()).contains(Reason.WaitingForNode);
        f.observe(nodes("j1", 1, 1));
        int published = f.of("j1").size();
        f.observe(createFailed("j1")); // late, from before the nodes came
        assertThat(f.of("j1")).hasSize(published);
        assertThat(f.last("j1").reason()).contains(Reason.Dispatching);
        f.running("j1");
        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
    }
}
