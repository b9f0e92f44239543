package io.falcon.executor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.Fixtures;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CommandBatchTest {
    private static final ExecutorCommand POOL_A = Fixtures.ensurePool("a", "2x2x1", SupplyMode.ON_DEMAND, null);
    private static final ExecutorCommand JOB_A = Fixtures.ensureJob("a", "2x2x1", Fixtures.spec());
    private static final ExecutorCommand JOB_A_DELETED = Fixtures.deleteJob("a");
    private static final ExecutorCommand POOL_A_DELETED = Fixtures.deletePool("a");
    private static final ExecutorCommand JOB_B = Fixtures.ensureJob("b", "2x2x1", Fixtures.spec());

    @Test
    void independentCommandsAllRunAndAreCommittedOnceAtTheEnd() {
        assertThat(CommandBatch.plan(of(POOL_A, JOB_B, JOB_A)))
                .containsExactly(
                        new CommandBatch.Run(0),
                        new CommandBatch.Run(1),
                        new CommandBatch.Run(2),
                        new CommandBatch.Commit(2));
    }

    @Test
    void aCreationWhoseDeletionFollowsIsSkippedAndWhatPrecedesTheDeletionIsCommittedBeforeItRuns() {
        assertThat(CommandBatch.plan(of(JOB_A, JOB_B, JOB_A_DELETED, POOL_A_DELETED)))
                .containsExactly(
                        new CommandBatch.Skip(0, 2),
                        new CommandBatch.Run(1),
                        new CommandBatch.Commit(1),
                        new CommandBatch.Run(2),
                        new CommandBatch.Run(3),
                        new CommandBatch.Commit(3));
    }

    @Test
    void aPoolCreationIsSkippedOnlyByTheDeletionOfTheSamePool() {
        ExecutorCommand otherPoolDeleted = Fixtures.deletePool("b");
        assertThat(CommandBatch.plan(of(POOL_A, otherPoolDeleted, POOL_A_DELETED)))
                .containsExactly(
                        new CommandBatch.Skip(0, 2),
                        new CommandBatch.Run(1),
                        new CommandBatch.Commit(1),
                        new CommandBatch.Run(2),
                        new CommandBatch.Commit(2));
    }

    @Test
    void aCreationAfterItsDeletionStillRuns() {
        assertThat(CommandBatch.plan(of(JOB_A, JOB_A_DELETED, JOB_A)))
                .containsExactly(
                        new CommandBatch.Skip(0, 1),
                        new CommandBatch.Commit(0),
                        new CommandBatch.Run(1),
                        new CommandBatch.Run(2),
                        new CommandBatch.Commit(2));
    }

    @Test
    void anUndecodableRecordRunsInItsPlace() {
        List<Optional<ExecutorCommand>> commands = new ArrayList<>(of(JOB_A));
        commands.add(Optional.empty());
        assertThat(CommandBatch.plan(commands))
                .containsExactly(new CommandBatch.Run(0), new CommandBatch.Run(1), new CommandBatch.Commit(1));
        assertThat(CommandBatch.plan(List.of())).isEmpty();
    }

    /**
     * Property: however a partition's log is cut into batches, and wherever a crash makes the loop read the rest
     * again (with other batch boundaries), no resource is created after a deletion of it has been carried out,
     * unless a later creation command asks for it again; and every command is either carried out or skipped for a
     * deletion that was carried out.
     */
    @Test
    void noRedeliveryCarriesOutACreationAfterItsDeletion() {
        Random rnd = new Random(7);
        List<ExecutorCommand> vocabulary = List.of(
                POOL_A,
                JOB_A,
                JOB_A_DELETED,
                POOL_A_DELETED,
                JOB_B,
                Fixtures.deleteJob("b"),
                Fixtures.ensurePool("b", "2x2x1", SupplyMode.ON_DEMAND, null),
                Fixtures.deletePool("b"));
        for (int trial = 0; trial < 2_000; trial++) {
            List<ExecutorCommand> log = new ArrayList<>();
            int n = 1 + rnd.nextInt(12);
            for (int i = 0; i < n; i++) {
                log.add(vocabulary.get(rnd.nextInt(vocabulary.size())));
            }
            replayWithCrashes(log, rnd);
        }
    }

    private static void replayWithCrashes(List<ExecutorCommand> log, Random rnd) {
        int committed = 0;
        Map<String, Integer> deletedAt = new HashMap<>(); // resource -> log index of the deletion carried out
        while (committed < log.size()) {
            int end = Math.min(log.size(), committed + 1 + rnd.nextInt(6));
            List<ExecutorCommand> batch = log.subList(committed, end);
            boolean crash = rnd.nextInt(3) == 0;
            int crashAfter = crash ? rnd.nextInt(batch.size() + 2) : Integer.MAX_VALUE;
            int performed = 0;
            int newCommitted = committed;
            for (CommandBatch.Step step : CommandBatch.plan(of(batch.toArray(ExecutorCommand[]::new)))) {
                if (performed++ >= crashAfter) {
                    break;
                }
                if (step instanceof CommandBatch.Run run) {
                    int at = committed + run.index();
                    ExecutorCommand command = log.get(at);
                    CommandBatch.deletes(command).ifPresent(r -> deletedAt.put(r, at));
                    CommandBatch.creates(command).ifPresent(r -> {
                        Integer deleted = deletedAt.get(r);
                        assertThat(deleted == null || deleted < at)
                                .as("creation at %d after its deletion at %d was carried out, log %s", at, deleted, log)
                                .isTrue();
                    });
                } else if (step instanceof CommandBatch.Skip skip) {
                    assertThat(CommandBatch.deletes(batch.get(skip.supersededBy())))
                            .isEqualTo(CommandBatch.creates(batch.get(skip.index())));
                } else if (step instanceof CommandBatch.Commit commit) {
                    newCommitted = committed + commit.through() + 1;
                }
            }
            committed = newCommitted;
        }
    }

    @Test
    void commandsOfDifferentResourcesGoToDifferentLanesAndOneResourcesCommandsStayInOrderInOneLane() {
        List<Optional<ExecutorCommand>> commands = of(POOL_A, JOB_B, JOB_A, JOB_A_DELETED);

        assertThat(CommandBatch.lanes(List.of(0, 1, 2, 3), commands))
                .containsExactlyInAnyOrder(List.of(0, 2, 3), List.of(1));
    }

    @Test
    void aJobOnAPoolAnotherJobCreatedIsInThePoolsLane() {
        // job b runs on the pool job a created (handed over): the pool's commands and b's stay in one order
        ExecutorCommand jobBOnPoolA = new ExecutorCommand.EnsureJob(
                Fixtures.meta(), "b", Fixtures.cluster(), "falcon-a", "falcon-b", "v7x", "2x2x1", Fixtures.spec());
        ExecutorCommand poolC = Fixtures.ensurePool("c", "2x2x1", SupplyMode.ON_DEMAND, null);
        List<Optional<ExecutorCommand>> commands = of(POOL_A, poolC, jobBOnPoolA, JOB_B);

        assertThat(CommandBatch.lanes(List.of(0, 1, 2, 3), commands))
                .containsExactlyInAnyOrder(List.of(0, 2, 3), List.of(1));
    }

    @Test
    void aRecordThatCouldNotBeDecodedIsALaneOfItsOwn() {
        List<Optional<ExecutorCommand>> commands = new ArrayList<>(of(POOL_A));
        commands.add(Optional.empty());
        commands.add(Optional.of(JOB_A));

        assertThat(CommandBatch.lanes(List.of(0, 1, 2), commands)).containsExactlyInAnyOrder(List.of(0, 2), List.of(1));
    }

    private static List<Optional<ExecutorCommand>> of(ExecutorCommand... commands) {
        List<Optional<ExecutorCommand>> list = new ArrayList<>();
        for (ExecutorCommand c : commands) {
            list.add(Optional.of(c));
        }
        return list;
    }
}
