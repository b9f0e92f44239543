package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.falcon.events.Json;
import io.falcon.events.JsonSerde;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The provisioning timers follow the job's ProvisioningStep, also for records stored before it existed. */
class ProvisioningStepTest {
    private static final JsonSerde<ScheduledJob> JOBS = JsonSerde.of(ScheduledJob.class);

    private final SchedulerFixture before = new SchedulerFixture().withCluster("c1", "v6e");

    /** j1 short of reservation capacity (ClusterBusy) in the scheduler that stored it. */
    private ScheduledJob reservationShortJob() {
        before.submit("j1", "alice");
        String pool =
                before.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").nodePoolName();
        before.observe(new ExecutorEvent.ReservationShort(before.meta(), "j1", "c1", "v6e", pool, "res-1", 1, 2));
        assertThat(before.last("j1").reason()).contains(Reason.ClusterBusy);
        return before.scheduler.job("j1").orElseThrow();
    }

    /** A fresh scheduler restored from the given job and everything else the first one held. */
    private SchedulerFixture restoredWith(ScheduledJob job) {
        SchedulerFixture restored = new SchedulerFixture();
        restored.now = before.now;
        before.scheduler.clusters().forEach(restored.scheduler::restoreCluster);
        before.scheduler.pools().forEach(restored.scheduler::restorePool);
        restored.scheduler.restoreJob(job);
        return restored;
    }

    /** Ticks every 10 s for the given time, past the provisioning backstop. */
    private static void tickThrough(SchedulerFixture f, Duration total) {
        for (Duration elapsed = Duration.ZERO; elapsed.compareTo(total) < 0; elapsed = elapsed.plusSeconds(10)) {
            f.advance(Duration.ofSeconds(10));
        }
    }

    @Test
    void aClusterBusyJobStoredWithoutItsStepIsStillAskedAgainAndNeverTimesOut() throws Exception {
        ObjectNode stored = (ObjectNode) Json.mapper().readTree(JOBS.toBytes(reservationShortJob()));
        assertThat(stored.remove("provisioningStep"))
                .as("the new field is in the stored form")
                .isNotNull();
        ScheduledJob old = JOBS.fromBytes(Json.mapper().writeValueAsBytes(stored));
        assertThat(old.provisioningStep()).isEmpty();

        SchedulerFixture restored = restoredWith(old);
        assertThat(restored.scheduler.job("j1").orElseThrow().provisioningStep())
                .contains(ProvisioningStep.RESERVATION_SHORT);
        tickThrough(restored, Duration.ofMinutes(20));

        assertThat(restored.statuses).noneMatch(s -> s.status() == Status.Failed);
        // every reservation retry (30 s) over 20 minutes, not every provisioning retry (60 s)
        assertThat(restored.commandsOf(ExecutorCommand.EnsureNodePool.class)).hasSizeGreaterThanOrEqualTo(39);
    }

    @Test
    void theTimersReadTheStepNotTheReasonShown() {
        ScheduledJob busy = reservationShortJob();
        // The same job as if it were shown Provisioning: the step alone decides that no backstop applies.
        ScheduledJob shownProvisioning = busy.withStatus(
                Status.Pending, java.util.Optional.of(Reason.Provisioning), "正在创建 node pool (supply: reservation)...");
        SchedulerFixture restored = restoredWith(shownProvisioning);
        tickThrough(restored, Duration.ofMinutes(20));
        assertThat(restored.statuses).noneMatch(s -> s.status() == Status.Failed);

        // and a job whose step is REQUESTED times out at the backstop whatever Reason it shows
        ScheduledJob requested = busy.inProvisioningStep(ProvisioningStep.REQUESTED);
        SchedulerFixture timingOut = restoredWith(requested);
        tickThrough(timingOut, Duration.ofMinutes(20));
        assertThat(timingOut.last("j1").status()).isEqualTo(Status.Failed);
        assertThat(timingOut.last("j1").reason()).contains(Reason.NodePoolTimeout);
    }

    @Test
    void aJobClusterBusyLongerThanTheBackstopIsNotTimedOutWhenItsPoolIsFinallyBeingCreated() {
        reservationShortJob();
        tickThrough(before, Duration.ofMinutes(20)); // ClusterBusy past the 15 min backstop
        String pool =
                before.lastCommand(ExecutorCommand.EnsureNodePool.class, "j1").nodePoolName();
        before.observe(new ExecutorEvent.NodePoolCreating(before.meta(), "j1", "c1", "v6e", pool));
        assertThat(before.last("j1").reason()).contains(Reason.Provisioning);
        tickThrough(before, Duration.ofMinutes(5));
        assertThat(before.last("j1").status())
                .as("the executor answered: no backstop yet")
                .isEqualTo(Status.Pending);
        tickThrough(before, Duration.ofMinutes(11));
        assertThat(before.last("j1").reason())
                .as("15 min without a word since the creation began")
                .contains(Reason.NodePoolTimeout);
    }
}
