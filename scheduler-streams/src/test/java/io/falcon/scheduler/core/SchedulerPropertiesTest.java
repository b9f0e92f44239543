package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.ClusterStatus;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random interleavings of submissions, aborts, fleet answers (some failing), redeliveries and clock ticks, checked
 * against a plain reference model of the seed's queueing rules after every step.
 */
class SchedulerPropertiesTest {
    private static final List<String> ACTORS = List.of("alice", "bob", "carol");
    private static final List<String> TOPOLOGIES = List.of("2x2", "2x4");
    private static final List<String> CLUSTERS = List.of("c1", "c2");

    sealed interface Action {}

    record Submit(int actor, int topology) implements Action {}

    record Abort(int job) implements Action {}

    record FleetStep(int index, boolean fail) implements Action {}

    record Redeliver(int event) implements Action {}

    record Tick(int seconds) implements Action {}

    @Provide
    Arbitrary<List<Action>> scenarios() {
        Arbitrary<Action> submit = Combinators.combine(
                        Arbitraries.integers().between(0, ACTORS.size() - 1),
                        Arbitraries.integers().between(0, TOPOLOGIES.size() - 1))
                .as(Submit::new);
        Arbitrary<Action> abort = Arbitraries.integers().between(0, 40).map(Abort::new);
        Arbitrary<Action> step = Combinators.combine(
                        Arbitraries.integers().between(0, 50),
                        Arbitraries.integers().between(0, 9).map(n -> n == 0))
                .as(FleetStep::new);
        Arbitrary<Action> redeliver = Arbitraries.integers().between(0, 200).map(Redeliver::new);
        Arbitrary<Action> tick = Arbitraries.integers().between(1, 120).map(Tick::new);
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(4, submit),
                        net.jqwik.api.Tuple.of(1, abort),
                        net.jqwik.api.Tuple.of(8, step),
                        net.jqwik.api.Tuple.of(1, redeliver),
                        net.jqwik.api.Tuple.of(1, tick))
                .list()
                .ofMinSize(1)
                .ofMaxSize(80);
    }

    @Property(tries = 300)
    void theQueueingRulesHoldAndEveryJobEnds(@ForAll("scenarios") List<Action> actions) {
        Run run = new Run();
        for (Action action : actions) {
            run.apply(action);
            run.checkInvariants();
        }
        run.drain();
        run.checkInvariants();

        assertThat(run.scheduler.jobs())
                .allSatisfy(job -> assertThat(job.phase()).isEqualTo(Phase.DONE));
        assertThat(run.lastStatus.values())
                .allSatisfy(s -> assertThat(s.status().isTerminal()).isTrue());
        assertThat(run.fleet.livePools).as("pools left at quiescence").isEmpty();
        assertThat(run.scheduler.pools()).as("pools the scheduler still tracks").isEmpty();
    }

    /** One scenario: the scheduler, the simulated fleet and the reference model side by side. */
    private static final class Run {
        final Scheduler scheduler = new Scheduler(SchedulerSettings.defaults().withAcquirersPerQueue(1));
        final SimulatedFleet fleet = new SimulatedFleet(this::deliver);
        final Map<String, TaskStatus> lastStatus = new HashMap<>();
        final List<String> submitted = new ArrayList<>();
        final Map<String, String> actorOf = new HashMap<>();
        final Map<String, String> topologyOf = new HashMap<>();
        // reference model: the waiting jobs of each (cluster, topology), in submission order, and who was served last
        final Map<String, LinkedHashMap<String, String>> waiting = new HashMap<>();
        final Map<String, String> lastServed = new HashMap<>();
        final Map<String, String> queueOf = new HashMap<>();
        Instant now = Instant.parse("2026-12-02T10:00:00Z");

        Run() {
            for (String cluster : CLUSTERS) {
                record(scheduler.clusterUpserted(
                        new ClusterRow(
                                cluster,
                                cluster,
                                "p-" + cluster,
                                "us-central1",
                                "v6e",
                                "b",
                                Optional.empty(),
                                ClusterStatus.ACTIVE,
                                Optional.empty()),
                        now));
            }
        }

        void apply(Action action) {
            if (action instanceof Submit submit) {
                String id = String.format("j%03d", submitted.size() + 1);
                submitted.add(id);
                actorOf.put(id, ACTORS.get(submit.actor()));
                topologyOf.put(id, TOPOLOGIES.get(submit.topology()));
                record(scheduler.submit(
                        new JobRequest(
                                id,
                                ACTORS.get(submit.actor()),
                                "n-" + id,
                                "v6e",
                                TOPOLOGIES.get(submit.topology()),
                                SchedulerFixture.SPEC,
                                Optional.empty(),
                                Optional.of(3600L),
                                now),
                        now));
            } else if (action instanceof Abort abort && !submitted.isEmpty()) {
                String id = submitted.get(abort.job() % submitted.size());
                record(scheduler.abort(id, now));
            } else if (action instanceof FleetStep step) {
                fleet.step(step.index(), step.fail(), now);
            } else if (action instanceof Redeliver redeliver && !fleet.delivered.isEmpty()) {
                deliver(fleet.delivered.get(redeliver.event() % fleet.delivered.size()));
            } else if (action instanceof Tick tick) {
                now = now.plus(Duration.ofSeconds(tick.seconds()));
                record(scheduler.tick(now));
            }
        }

        void deliver(io.falcon.events.executor.ExecutorEvent event) {
            record(scheduler.observe(event, now));
        }

        void drain() {
            for (int i = 0; i < 10_000 && !fleet.idle(); i++) {
                fleet.step(0, false, now);
            }
            assertThat(fleet.idle()).as("the fleet settles").isTrue();
        }

        void record(Decisions decisions) {
            for (TaskStatus status : decisions.statuses()) {
                TaskStatus previous = lastStatus.get(status.jobId());
                if (previous != null) {
                    // after the final status only the same again may come (an abort after the end is answered
                    // with it, its Message amended)
                    assertThat(previous.status().isTerminal()
                                    && !(status.status() == previous.status()
                                            && status.reason().equals(previous.reason())))
                            .as("a status after the final one: %s", status)
                            .isFalse();
                    assertThat(status.version())
                            .as("versions grow for %s", status.jobId())
                            .isGreaterThan(previous.version());
                }
                lastStatus.put(status.jobId(), status);
                model(status, previous);
            }
            fleet.accept(decisions.commands());
        }

        /** Checks each slot grant against the seed's pick rule, using only what the statuses said. */
        private void model(TaskStatus status, TaskStatus previous) {
            String id = status.jobId();
            String queue =
                    status.clusterId().map(c -> c + "|" + topologyOf.get(id)).orElse(null);
            boolean waitingNow = status.status() == Status.Pending
                    && status.reason().filter(Reason.Waiting::equals).isPresent()
                    && queue != null;
            if (waitingNow) {
                String old = queueOf.put(id, queue);
                if (old != null && !old.equals(queue)) {
                    waiting.get(old).remove(id);
                }
                waiting.computeIfAbsent(queue, q -> new LinkedHashMap<>()).putIfAbsent(id, actorOf.get(id));
                return;
            }
            String was = queueOf.remove(id);
            if (was == null) {
                return;
            }
            LinkedHashMap<String, String> inQueue = waiting.get(was);
            boolean granted = status.status() == Status.Pending || status.status() == Status.Running;
            if (granted) {
                String actor = actorOf.get(id);
                // FIFO by submission (ids are numbered in submission order), not by arrival in this queue: a job
                // re-routed here from a cluster that left or tripped its avoidance keeps its place by age
                String earliestOfActor = inQueue.entrySet().stream()
                        .filter(e -> e.getValue().equals(actor))
                        .map(Map.Entry::getKey)
                        .min(java.util.Comparator.naturalOrder())
                        .orElseThrow();
                assertThat(id).as("FIFO within actor %s in %s", actor, was).isEqualTo(earliestOfActor);
                boolean othersWait = inQueue.values().stream().anyMatch(a -> !a.equals(actor));
                if (othersWait) {
                    assertThat(lastServed.get(was)).as("round-robin in %s", was).isNotEqualTo(actor);
                }
                lastServed.put(was, actor);
            }
            inQueue.remove(id);
        }

        void checkInvariants() {
            Map<QueueKey, Long> acquiring = new HashMap<>();
            for (ScheduledJob job : scheduler.jobs()) {
                if (job.phase().holdsSlot()) {
                    acquiring.merge(job.queue().orElseThrow(), 1L, Long::sum);
                }
            }
            assertThat(acquiring.values())
                    .as("at most one job acquiring per queue")
                    .allMatch(n -> n == 1);
        }
    }
}
