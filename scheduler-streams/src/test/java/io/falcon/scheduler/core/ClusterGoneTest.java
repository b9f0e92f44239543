package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The GKE cluster a clusters row names is deleted (or deleted and created again): the executor reports it gone, and
 * the jobs that ran there end naming it, with nothing of theirs left to delete, instead of running on to their
 * deadlines while their deletions are re-sent against a cluster that no longer exists.
 */
class ClusterGoneTest {
    private final SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");
    private final String gke = SchedulerFixture.cluster("c1", "v6e", "active", Optional.empty())
            .target()
            .resourceName();

    private ExecutorEvent.ClusterGone gone(Meta meta) {
        return new ExecutorEvent.ClusterGone(meta, "", "c1", "v6e", gke, "GKE answers NOT_FOUND for the cluster");
    }

    @Test
    void theJobsThatRanThereEndNamingTheClusterAndNothingOfTheirsIsLeftToDelete() {
        f.submit("j1", "alice").startRunning("j1").submit("j2", "bob").poolReady("j2");
        assertThat(f.last("j2").reason()).contains(Reason.Dispatching);
        f.advance(Duration.ofMinutes(1));
        int commandsBefore = f.commands.size();

        f.observe(gone(f.meta()));

        for (String id : new String[] {"j1", "j2"}) {
            assertThat(f.last(id).status()).as(id).isEqualTo(Status.Failed);
            assertThat(f.last(id).reason()).as(id).contains(Reason.JobFailed);
            assertThat(f.last(id).message())
                    .as(id)
                    .startsWith("GKE cluster " + gke + " no longer exists")
                    .contains("NOT_FOUND");
        }
        assertThat(f.commands.subList(commandsBefore, f.commands.size()))
                .as("no deletion of what went with the cluster")
                .noneMatch(c -> c instanceof ExecutorCommand.EnsureJobDeleted
                        || c instanceof ExecutorCommand.EnsureNodePoolDeleted);
        assertThat(f.scheduler.pools()).isEmpty();
        assertThat(f.scheduler.deletions()).isEmpty();
    }

    @Test
    void aJobPlacedThereAfterTheObservationIsLeftAlone() {
        f.submit("j1", "alice").startRunning("j1");
        Meta observed = f.meta();
        f.advance(Duration.ofMinutes(1));
        f.observe(gone(observed));
        assertThat(f.last("j1").status()).isEqualTo(Status.Failed);

        // a cluster of that name created again: a new job takes its slot there; a late copy of the report comes
        f.advance(Duration.ofMinutes(1)).submit("j2", "bob");
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
        f.observe(gone(observed));
        assertThat(f.last("j2").status()).isEqualTo(Status.Pending);
        assertThat(f.last("j2").reason()).contains(Reason.Provisioning);
        assertThat(f.scheduler.pools()).hasSize(1);
    }
}
