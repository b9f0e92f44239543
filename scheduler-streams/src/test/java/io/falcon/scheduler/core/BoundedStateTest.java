package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 16: the scheduler's memory holds the jobs in flight, not every job ever run. */
class BoundedStateTest {
    private static final Duration RETENTION = Duration.ofHours(2);

    private SchedulerFixture finishedJob(String id) {
        SchedulerFixture f = new SchedulerFixture(
                        SchedulerSettings.defaults().withAcquirersPerQueue(1).withTerminalRetention(RETENTION))
                .withCluster("c1", "v6e");
        return f.submit(id, "alice").startRunning(id).succeeded(id);
    }

    @Test
    void aFinishedJobLeavesMemoryAndItsTimersButIsStillFoundForTheRetention() {
        SchedulerFixture f = finishedJob("j1");

        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
        assertThat(f.scheduler.jobs()).isEmpty();
        assertThat(f.scheduler.liveJob("j1")).isEmpty();
        assertThat(f.scheduler.job("j1")).map(ScheduledJob::phase).contains(Phase.DONE);
        assertThat(f.scheduler.armedJobTimers()).isZero();
    }

    @Test
    void aRedeliveredSubmissionOfAFinishedJobDoesNothingWithinTheRetention() {
        SchedulerFixture f = finishedJob("j1");
        int statuses = f.statuses.size();
        int commands = f.commands.size();

        f.now = f.now.plus(RETENTION.minusMinutes(1));
        f.submit("j1", "alice");

        assertThat(f.statuses).hasSize(statuses);
        assertThat(f.commands).hasSize(commands);
        assertThat(f.scheduler.jobs()).isEmpty();
    }

    @Test
    void afterTheRetentionTheIdIsForgottenAndASubmissionIsANewJob() {
        SchedulerFixture f = finishedJob("j1");

        f.now = f.now.plus(RETENTION.plusMinutes(1));
        f.submit("j1", "alice");

        assertThat(f.scheduler.liveJob("j1")).map(ScheduledJob::phase).contains(Phase.PROVISIONING);
    }

    @Test
    void aFailingPoolDeletionIsNotedOnTheFinishedJobThatHeldItLast() {
        SchedulerFixture f = finishedJob("j1");
        ExecutorCommand.EnsureNodePoolDeleted delete =
                f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class).get(0);

        f.observe(new ExecutorEvent.NodePoolDeleteFailing(
                f.meta(), "j1", "c1", "v6e", delete.nodePoolName(), 5, "PERMISSION_DENIED on delete"));

        assertThat(f.last("j1").status()).isEqualTo(Status.Succeeded);
        assertThat(f.last("j1").message()).contains("PERMISSION_DENIED on delete");
        assertThat(f.scheduler.job("j1").orElseThrow().message()).contains("PERMISSION_DENIED on delete");
        assertThat(f.scheduler.jobs()).isEmpty();
    }

    @Test
    void aPoolBeingDeletedKeepsOneTimerHoweverManyTimesItWasArmed() {
        SchedulerFixture f = new SchedulerFixture(SchedulerSettings.defaults()
                        .withAcquirersPerQueue(1)
                        .withIdleLinger(Map.of(SupplyMode.FLEX_START, Duration.ofMinutes(10))))
                .withCluster("c1", "v6e");
        f.submit("j1", "a").startRunning("j1").succeeded("j1"); // idle, lingering: looked at again in 10 minutes
        step(f, Duration.ofSeconds(150));
        f.record(f.scheduler.clusterRemoved("c1", f.now)); // deleted now, and re-asked every minute from now on

        step(f, Duration.ofMinutes(20));
        int before = f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class).size();
        step(f, Duration.ofMinutes(10));

        // Once a minute, not once a minute per path that ever armed it (the linger's look would start a second
        // chain of re-asks that re-arms itself for as long as the deletion is unconfirmed).
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class).size() - before)
                .isEqualTo(10);
        // One for the pool's deletion, one for the deletion of j1's Kubernetes Job (also unconfirmed).
        assertThat(f.scheduler.armedTimers()).isEqualTo(2);
    }

    /** Time passes in 10-second ticks, as the punctuator would see it. */
    private static void step(SchedulerFixture f, Duration total) {
        for (Duration d = Duration.ZERO; d.compareTo(total) < 0; d = d.plusSeconds(10)) {
            f.advance(Duration.ofSeconds(10));
        }
    }

    @Test
    void runningCountsFollowTheJobsWithoutAScan() {
        SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e").withCluster("c2", "v6e");
        f.submit("j1", "alice").startRunning("j1");

        Map<String, Long> running = f.scheduler.runningJobsByCluster();
        String cluster = f.scheduler.liveJob("j1").orElseThrow().clusterId().orElseThrow();
        assertThat(running).containsEntry(cluster, 1L).hasSize(2);

        f.succeeded("j1");
        assertThat(f.scheduler.runningJobsByCluster()).containsEntry(cluster, 0L);
    }

    @Test
    void manyFinishedJobsLeaveNothingBehindInMemory() {
        SchedulerFixture f = new SchedulerFixture(
                        SchedulerSettings.defaults().withAcquirersPerQueue(1).withTerminalRetention(RETENTION))
                .withCluster("c1", "v6e");
        for (int i = 0; i < 200; i++) {
            String id = "j" + i;
            f.submit(id, "actor" + (i % 7)).startRunning(id).succeeded(id);
            f.now = f.now.plus(Duration.ofMinutes(5));
        }
        assertThat(f.scheduler.jobs()).isEmpty();
        assertThat(f.scheduler.armedJobTimers()).isZero();
        // 200 jobs over 1000 minutes, retained 2 hours: only those that ended within the last 2 hours are kept.
        assertThat(f.scheduler.job("j0")).isEmpty();
        assertThat(f.scheduler.job("j199")).isPresent();
    }

    @Test
    void theInMemoryRetiredStoreDropsWhatIsPastTheRetention() {
        RetiredJobs.InMemory retired = (RetiredJobs.InMemory) RetiredJobs.inMemory(Duration.ofMinutes(10));
        SchedulerFixture f = finishedJob("j1");
        ScheduledJob done = f.scheduler.job("j1").orElseThrow();
        Instant ended = RetiredJobs.endedAt(done);
        for (int i = 0; i < 100; i++) {
            retired.put(renamed(done, "k" + i, ended.plus(Duration.ofMinutes(i))));
        }
        // The newest ended at +99 min: everything that ended before +89 min is gone.
        assertThat(retired.size()).isEqualTo(11);
        assertThat(retired.get("k88")).isEmpty();
        assertThat(retired.get("k89")).isPresent();
        assertThat(retired.find("k89", ended.plus(Duration.ofMinutes(100)), Duration.ofMinutes(10)))
                .isEmpty();
        assertThat(retired.find("k95", ended.plus(Duration.ofMinutes(100)), Duration.ofMinutes(10)))
                .isPresent();
    }

    private static ScheduledJob renamed(ScheduledJob done, String id, Instant endedAt) {
        ValidRequest r = done.request();
        return ScheduledJob.accepted(new ValidRequest(
                        id,
                        r.actor(),
                        r.name(),
                        r.tpuType(),
                        r.topology(),
                        r.spec(),
                        r.supplyMode(),
                        r.timeoutSeconds(),
                        r.submittedAt(),
                        r.priority()))
                .enter(Phase.DONE, endedAt);
    }
}
