package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An idle reservation pool lingers when its queue's recent arrivals say the next job of its topology comes sooner
 * than a new pool takes, and gives its chips back at once when a job on its cluster is short of reservation capacity.
 */
class QueueLingerTest {
    private static SchedulerFixture withReservation(SchedulerSettings settings) {
        SchedulerFixture f = new SchedulerFixture(settings);
        return f.record(f.scheduler.clusterUpserted(
                SchedulerFixture.cluster("c1", "v6e", "active", Optional.of("res-1")), f.now));
    }

    private final SchedulerFixture f =
            withReservation(SchedulerSettings.defaults().withAcquirersPerQueue(1));

    private static long deletes(SchedulerFixture f, String pool) {
        return f.commandsOf(ExecutorCommand.EnsureNodePoolDeleted.class).stream()
                .filter(c -> c.nodePoolName().equals(pool))
                .count();
    }

    private static boolean ownPool(SchedulerFixture f, String id) {
        return f.commandsOf(ExecutorCommand.EnsureNodePool.class).stream()
                .anyMatch(c -> c.jobId().equals(id));
    }

    /** Runs the job to its end: 4 min for a pool of its own, at once on a pool it was given. */
    private static void runAndFinish(SchedulerFixture f, String id) {
        if (ownPool(f, id)) {
            f.advance(Duration.ofMinutes(4));
            f.startRunning(id);
        } else {
            f.submitted(id).running(id);
        }
        f.advance(Duration.ofMinutes(1));
        f.succeeded(id);
    }

    /**
     * Five jobs 20 min apart (more than the 15 min bound), each with a pool that takes 4 min: each pool goes; then
     * jobs one right after another, 5 min apart: the last pool stays for the next.
     */
    private static String learnAndKeep(SchedulerFixture f) {
        String pool = "";
        for (int i = 0; i < 5; i++) {
            f.submit("w" + i, "alice");
            pool = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "w" + i).nodePoolName();
            runAndFinish(f, "w" + i);
            assertThat(deletes(f, pool))
                    .as("a pool of a queue whose jobs come rarely goes")
                    .isEqualTo(1);
            f.advance(Duration.ofMinutes(15));
        }
        for (int i = 0; i < 8; i++) {
            f.submit("q" + i, "alice");
            if (ownPool(f, "q" + i)) {
                pool = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "q" + i)
                        .nodePoolName();
            }
            runAndFinish(f, "q" + i);
        }
        return pool;
    }

    @Test
    void aPoolWhoseQueueGetsJobsAsOftenAsAPoolTakesLingersAndTheNextJobTakesIt() {
        String kept = learnAndKeep(f);
        assertThat(deletes(f, kept)).as("the idle pool lingers").isZero();

        f.advance(Duration.ofMinutes(2));
        f.submit("next", "alice");

        assertThat(f.last("next").reason()).contains(Reason.Dispatching);
        assertThat(f.lastCommand(ExecutorCommand.EnsureJob.class, "next").nodePoolName())
                .isEqualTo(kept);
    }

    @Test
    void aLingeringPoolGoesWhenNoJobCameForLongerThanTheQueueUsuallyWaitsForOne() {
        String kept = learnAndKeep(f);

        f.advance(Duration.ofMinutes(4));
        assertThat(deletes(f, kept))
                .as("kept about as long as the queue's jobs come apart (5 min)")
                .isZero();
        f.advanceTicking(Duration.ofMinutes(2));

        assertThat(deletes(f, kept)).as("asked until confirmed").isPositive();
    }

    @Test
    void aLingeringPoolIsDeletedTheMomentAJobOnItsClusterIsShortOfReservationCapacity() {
        String kept = learnAndKeep(f);
        assertThat(deletes(f, kept)).isZero();

        // a job of another topology on the same cluster finds the reservation full
        f.submit(new JobRequest(
                "big",
                "bob",
                "n",
                "v6e",
                "4x4",
                SchedulerFixture.SPEC,
                Optional.empty(),
                Optional.empty(),
                Instant.EPOCH));
        ExecutorCommand.EnsureNodePool big = f.lastCommand(ExecutorCommand.EnsureNodePool.class, "big");
        f.observe(new ExecutorEvent.ReservationShort(f.meta(), "big", "c1", "v6e", big.nodePoolName(), "res-1", 0, 4));

        assertThat(f.last("big").reason()).contains(Reason.ClusterBusy);
        assertThat(deletes(f, kept))
                .as("the lingering pool gives its chips back")
                .isEqualTo(1);
    }

    @Test
    void withTheHistoryLingerOffAnIdlePoolIsDeletedAtOnceAsTheSeedSays() {
        SchedulerFixture seed = withReservation(
                SchedulerSettings.defaults().withAcquirersPerQueue(1).withHistoryLingerMax(Duration.ZERO));

        String last = learnAndKeep(seed);

        assertThat(deletes(seed, last)).isEqualTo(1);
    }
}
