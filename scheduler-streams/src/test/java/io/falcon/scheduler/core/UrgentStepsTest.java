package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which steps the shell commits at once (issue 16: a hop should not wait out the commit interval). */
class UrgentStepsTest {
    private final SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");

    @Test
    void aSubmissionThatOnlyQueuesIsNotUrgent() {
        f.submit("j1", "alice"); // takes the slot
        Decisions queued =
                f.scheduler.submit(SchedulerFixture.request("j2", "bob", "v6e", "2x4", SchedulerFixture.SPEC), f.now);

        assertThat(queued.commands()).isEmpty();
        assertThat(queued.statuses()).isNotEmpty().allMatch(Decisions::isPositionUpdate);
        assertThat(queued.urgent()).isFalse();
    }

    @Test
    void aSubmissionThatTakesTheSlotIsUrgent() {
        Decisions first =
                f.scheduler.submit(SchedulerFixture.request("j1", "alice", "v6e", "2x4", SchedulerFixture.SPEC), f.now);

        assertThat(first.commands()).isNotEmpty();
        assertThat(first.urgent()).isTrue();
    }

    @Test
    void podsRunningIsUrgentAlthoughTheNextJobOnlyMovesUpInTheQueue() {
        f.submit("j1", "alice")
                .submit("j2", "bob")
                .submit("j3", "carol")
                .poolReady("j1")
                .submitted("j1");
        var ensure = f.lastCommand(io.falcon.events.executor.ExecutorCommand.EnsureJob.class, "j1");
        Decisions running = f.scheduler.observe(
                new io.falcon.events.executor.ExecutorEvent.JobRunning(
                        f.meta(), "j1", "c1", "v6e", ensure.k8sJobName(), "uid-j1", 2, 2, java.util.Optional.empty()),
                f.now);

        assertThat(running.statuses()).anyMatch(s -> !Decisions.isPositionUpdate(s));
        assertThat(running.urgent()).isTrue();
    }
}
