package io.falcon.executor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.Events;
import io.falcon.executor.Fixtures;
import io.falcon.executor.RecordingSink;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** EnsureJob against an edge cluster: created, or already there (then answered with the pool's node count too). */
class JobDriverTest {
    private final RecordingSink sink = new RecordingSink();
    private final FakeEdge edge = new FakeEdge();
    private final JobDriver driver = new JobDriver(
            edge, sink, new Events("executor", Clock.fixed(Fixtures.T0, ZoneOffset.UTC)), Ownership.DEFAULT);
    /** v7x 2x2x4: a slice of four VMs. */
    private final EnsureJob command = Fixtures.ensureJob("job-1", "2x2x4", Fixtures.spec());

    @Test
    void aNewJobIsSubmittedWithoutANodeCount() {
        driver.ensure(command);
        assertThat(sink.all()).singleElement().isInstanceOf(ExecutorEvent.JobSubmitted.class);
    }

    @Test
    void aReSentCommandForAnExistingJobIsAnsweredWithThePoolsNodeCountOnceItsNodesAreThere() {
        driver.ensure(command);
        edge.nodes = new EdgeApi.NodeCount(4, 4);
        driver.ensure(command);
        assertThat(sink.all()).hasSize(3);
        assertThat(sink.all().get(1)).isInstanceOf(ExecutorEvent.JobSubmitted.class);
        assertThat(sink.all().get(2)).isInstanceOfSatisfying(ExecutorEvent.NodePoolWaitingForNodes.class, w -> {
            assertThat(w.nodePoolName()).isEqualTo(command.nodePoolName());
            assertThat(w.registered()).isEqualTo(4);
            assertThat(w.ready()).isEqualTo(4);
            assertThat(w.expected()).isEqualTo(4);
        });
    }

    @Test
    void aCountShortOfTheSliceIsNotReportedHereWhereNoPodIsLookedAt() {
        // a Job whose pods cannot be created (a missing service account) must not be taken for one whose pods wait
        // for nodes: only the informers, which see Unschedulable pods, begin a wait (issue 30 item 10)
        driver.ensure(command);
        edge.nodes = new EdgeApi.NodeCount(2, 1);
        driver.ensure(command);
        assertThat(sink.all()).hasSize(2).allMatch(e -> e instanceof ExecutorEvent.JobSubmitted);
    }

    @Test
    void aNodeCountThatCannotBeReadIsLeftToTheNextReDrive() {
        driver.ensure(command);
        edge.nodesFail = true;
        driver.ensure(command);
        assertThat(sink.all()).hasSize(2).allMatch(e -> e instanceof ExecutorEvent.JobSubmitted);
    }

    @Test
    void aJobTheSchedulerSawCreatedIsNeverCreatedAgainOnceSomeoneElseDeletedIt() {
        EnsureJob seen = new EnsureJob(
                command.meta(),
                command.jobId(),
                command.cluster(),
                command.nodePoolName(),
                command.k8sJobName(),
                command.tpuType(),
                command.topology(),
                command.spec(),
                Optional.of("uid-0"));
        driver.ensure(seen);
        assertThat(edge.uid).as("not created again").isEmpty();
        assertThat(sink.all()).singleElement().isInstanceOfSatisfying(ExecutorEvent.JobFailed.class, f -> {
            assertThat(f.k8sJobName()).isEqualTo("falcon-job-1");
            assertThat(f.message()).startsWith("the Kubernetes Job falcon-job-1 was deleted outside Falcon");
            // the fleet's doing, not the program's: a retry policy may run the task again
            assertThat(f.cause()).isEqualTo(io.falcon.events.executor.FailureCause.infrastructure("JobGone"));
        });
    }

    @Test
    void aJobTheSchedulerSawCreatedThatIsStillThereIsAnsweredAsBefore() {
        driver.ensure(command);
        EnsureJob seen = new EnsureJob(
                command.meta(),
                command.jobId(),
                command.cluster(),
                command.nodePoolName(),
                command.k8sJobName(),
                command.tpuType(),
                command.topology(),
                command.spec(),
                edge.uid);
        edge.nodes = new EdgeApi.NodeCount(4, 4); // a count is reported only once all the nodes are Ready
        driver.ensure(seen);
        assertThat(sink.all()).hasSize(3);
        assertThat(sink.all().get(1)).isInstanceOf(ExecutorEvent.JobSubmitted.class);
        assertThat(sink.all().get(2)).isInstanceOf(ExecutorEvent.NodePoolWaitingForNodes.class);
    }

    @Test
    void aDeletionIsConfirmedOnlyOnceNoPodOfTheJobIsLeftUnfinished() {
        driver.ensure(command);
        edge.unfinished = 4; // terminating, holding their nodes' chips
        driver.ensureDeleted(Fixtures.deleteJob("job-1"));
        assertThat(sink.of(ExecutorEvent.JobDeleted.class, "job-1")).isEmpty();
        edge.unfinished = 0;
        driver.ensureDeleted(Fixtures.deleteJob("job-1")); // the scheduler asks again
        assertThat(sink.of(ExecutorEvent.JobDeleted.class, "job-1")).hasSize(1);
    }

    @Test
    void aCompletedJobThatIsDeletedHasItsSuccessSaidFirst() {
        // found by the simulation (seed 19319): the executor down from the Job's success until it carried out the
        // deletion of an attempt the scheduler had ended; the deletion took the only evidence of the success
        driver.ensure(command);
        edge.completed = true;
        driver.ensureDeleted(Fixtures.deleteJob("job-1"));
        assertThat(sink.of(ExecutorEvent.JobSucceeded.class, "job-1"))
                .singleElement()
                .satisfies(s -> {
                    assertThat(s.k8sJobName()).isEqualTo("falcon-job-1");
                });
        assertThat(edge.uid).as("then deleted").isEmpty();

        // a Job that has not completed is deleted without a word of success
        JobDriverTest other = new JobDriverTest();
        other.driver.ensure(other.command);
        other.driver.ensureDeleted(Fixtures.deleteJob("job-1"));
        assertThat(other.sink.of(ExecutorEvent.JobSucceeded.class, "job-1")).isEmpty();
    }

    @Test
    void aJobOfAnotherOwnerUnderTheNameIsNeitherAdoptedNorDeleted() {
        edge.uid = Optional.of("uid-other");
        edge.foreign = true;
        driver.ensure(command);
        assertThat(sink.all()).singleElement().isInstanceOfSatisfying(ExecutorEvent.JobSubmitFailed.class, f -> {
            assertThat(f.retryable()).isFalse();
            assertThat(f.message())
                    .contains("a Kubernetes Job named falcon-job-1 already exists")
                    .contains("is not this job's")
                    .contains("falcon-installation=falcon-b")
                    .doesNotContain("uid-other");
        });

        driver.ensureDeleted(Fixtures.deleteJob("job-1"));
        assertThat(edge.uid).as("left alone").contains("uid-other");
        assertThat(sink.of(ExecutorEvent.JobDeleted.class, "job-1"))
                .as("this job's Job is not there")
                .hasSize(1);
    }

    private static final class FakeEdge implements EdgeApi {
        Optional<String> uid = Optional.empty();
        /** The Job under the name is another owner's (another team's, another Falcon's). */
        boolean foreign;

        boolean completed;

        NodeCount nodes = new NodeCount(0, 0);
        boolean nodesFail;
        int unfinished;

        @Override
        public NodeCount nodes(ClusterTarget cluster, String pool) {
            if (nodesFail) {
                throw new ApiException(ApiException.Kind.TRANSIENT, "503 from the API server");
            }
            return nodes;
        }

        @Override
        public String createJob(ClusterTarget cluster, EnsureJob command) {
            if (uid.isPresent()) {
                throw new ApiException(ApiException.Kind.ALREADY_EXISTS, "jobs.batch already exists");
            }
            uid = Optional.of("uid-1");
            return uid.get();
        }

        @Override
        public Optional<FoundJob> findJob(ClusterTarget cluster, String name) {
            return uid.map(u -> foreign
                    // another Falcon installation's Job of the same job id
                    ? new FoundJob(name, u, new Ownership("falcon-b").labels("job-1", null), Optional.empty())
                    : new FoundJob(name, u, Ownership.DEFAULT.labels("job-1", null), Optional.of("job-1"), completed));
        }

        @Override
        public int unfinishedPods(ClusterTarget cluster, String name) {
            return unfinished;
        }

        @Override
        public boolean deleteJob(ClusterTarget cluster, String name) {
            boolean existed = uid.isPresent();
            uid = Optional.empty();
            return existed;
        }
    }
}
