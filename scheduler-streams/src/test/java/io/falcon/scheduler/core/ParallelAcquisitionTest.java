package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code acquirers-per-queue}: several jobs of one (cluster, topology) queue acquire at once, started in pick order;
 * the waiting jobs behind them keep exact positions; a queue short of reservation capacity opens no further slot.
 */
class ParallelAcquisitionTest {
    private final SchedulerFixture f =
            new SchedulerFixture(SchedulerSettings.defaults().withAcquirersPerQueue(3)).withCluster("c1", "v6e");

    private List<String> creating() {
        return f.commandsOf(ExecutorCommand.EnsureNodePool.class).stream()
                .map(ExecutorCommand.EnsureNodePool::jobId)
                .distinct()
                .toList();
    }

    @Test
    void threeJobsOfOneQueueAcquireAtOnceAndTheOthersWaitWithExactPositions() {
        f.submit("j1", "alice")
                .submit("j2", "alice")
                .submit("j3", "bob")
                .submit("j4", "alice")
                .submit("j5", "bob");

        assertThat(creating()).containsExactly("j1", "j2", "j3");
        assertThat(List.of("j1", "j2", "j3"))
                .allSatisfy(id -> assertThat(f.last(id).reason()).contains(Reason.Provisioning));
        // the three acquiring are ahead of every waiting job; by the pick rule alice's j4 (bob was served last)
        // comes before bob's j5
        assertThat(f.last("j5").reason()).contains(Reason.Waiting);
        assertThat(f.last("j4").message()).contains("#4");
        assertThat(f.last("j5").message()).contains("#5");
    }

    @Test
    void aSlotFreedWhenAnAcquirersPodsRunGoesToTheNextJobByThePickRule() {
        f.submit("j1", "alice").submit("j2", "alice").submit("j3", "alice").submit("j4", "alice");
        assertThat(creating()).containsExactly("j1", "j2", "j3");

        f.startRunning("j2");

        assertThat(f.last("j2").status()).isEqualTo(Status.Running);
        assertThat(creating()).containsExactly("j1", "j2", "j3", "j4");
        assertThat(f.last("j4").reason()).contains(Reason.Provisioning);
    }

    @Test
    void aQueueShortOfReservationCapacityOpensNoFurtherSlotUntilTheShortJobsCreationIsAccepted() {
        f.submit("j1", "alice");
        ExecutorCommand.EnsureNodePool pool = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1");
        f.observe(new ExecutorEvent.ReservationShort(f.meta(), "j1", "c1", "v6e", pool.nodePoolName(), "res-c1", 0, 1));
        assertThat(f.last("j1").reason()).contains(Reason.ClusterBusy);

        f.submit("j2", "alice").submit("j3", "alice");

        assertThat(creating())
                .as("no slot opens beside a job the reservation has no room for")
                .containsExactly("j1");
        assertThat(f.last("j2").reason()).contains(Reason.Waiting);

        f.observe(new ExecutorEvent.NodePoolCreating(f.meta(), "j1", "c1", "v6e", pool.nodePoolName()));

        assertThat(creating()).containsExactly("j1", "j2", "j3");
    }

    @Test
    void withOneAcquirerPerQueueTheDesignsRuleHoldsAndTheDefaultLetsSixteenAcquire() {
        SchedulerFixture seed = new SchedulerFixture().withCluster("c1", "v6e");
        seed.submit("j1", "alice").submit("j2", "alice");

        assertThat(seed.commandsOf(ExecutorCommand.EnsureNodePool.class).stream()
                        .map(ExecutorCommand.EnsureNodePool::jobId)
                        .distinct())
                .containsExactly("j1");
        assertThat(seed.last("j2").message()).contains("#2");
        assertThat(SchedulerSettings.defaults().acquirersPerQueue()).isEqualTo(16);
    }
}
