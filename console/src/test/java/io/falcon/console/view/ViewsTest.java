package io.falcon.console.view;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.decision.Decision;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ViewsTest {
    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    private static final ClusterInfo C1 =
            new ClusterInfo("c1", "edge-a", "p", "us-east5", "v6e", "bucket-a", Optional.of("res-a"), "active");

    @Test
    void theLedgerIsToldWithEveryClusterWeighedAndNamed() {
        Decision placed = new Decision(
                Meta.of("scheduler", T0),
                "j",
                "v6e",
                Decision.Kind.CLUSTER_CHOSEN,
                "placed on cluster c1: idle pool",
                Optional.of("c1"),
                Optional.of("2x4"),
                Optional.empty(),
                Optional.empty(),
                List.of(
                        new Decision.Candidate(
                                "c1",
                                "active",
                                0,
                                true,
                                Optional.of("res-a"),
                                Optional.empty(),
                                Decision.Outcome.CHOSEN,
                                "idle pool"),
                        new Decision.Candidate(
                                "c2",
                                "maintenance",
                                4,
                                false,
                                Optional.empty(),
                                Optional.empty(),
                                Decision.Outcome.NOT_ACTIVE,
                                "in maintenance")),
                Optional.empty(),
                12);
        List<StoryLine> story = LedgerStory.tell(List.of(placed), Map.of("c1", "edge-a"));
        assertThat(story).singleElement().satisfies(line -> {
            assertThat(line.headline()).isEqualTo("Placed on c1 (edge-a), queue 2x4");
            assertThat(line.text()).isEqualTo("placed on cluster c1: idle pool");
            assertThat(line.details())
                    .containsExactly(
                            "c1 (edge-a): chosen (idle pool), status active, 0 waiting, idle pool",
                            "c2: not active (in maintenance), status maintenance, 4 waiting",
                            "10 more clusters weighed, not recorded");
        });
    }

    @Test
    void aWaitingJobsEntryHasItsPositionAndTheLatestEstimateElseTheMessages() {
        ListedJob waiting = new ListedJob(
                "j",
                "alice",
                "n",
                "v6e",
                "2x4",
                "Pending",
                Optional.of("Waiting"),
                "队列位置 #4,前面有 3 个任务,预计 14:20-14:35 开始",
                Optional.of("c1"),
                Optional.empty(),
                LocalDateTime.of(2026, 12, 2, 10, 0));
        assertThat(Views.entry(waiting, Optional.empty(), ZoneId.of("UTC")))
                .isEqualTo(new QueuePage.Entry(waiting, Optional.of(4), Optional.of("14:20-14:35")));
        JobHistory held = new JobHistory(
                List.of(Transition.of(taskStatus("j")
                        .version(2)
                        .status(Status.Pending, Reason.Waiting)
                        .estimatedStart(T0.plusSeconds(600), T0.plusSeconds(1200))
                        .build())),
                List.of(),
                List.of());
        assertThat(Views.entry(waiting, Optional.of(held), ZoneId.of("UTC")).estimate())
                .contains("12-02 10:10 – 12-02 10:20 UTC");
        ListedJob running = new ListedJob(
                "r",
                "bob",
                "n",
                "v6e",
                "2x4",
                "Running",
                Optional.empty(),
                "队列位置 #1",
                Optional.of("c1"),
                Optional.of(5),
                LocalDateTime.of(2026, 12, 2, 10, 0));
        assertThat(Views.entry(running, Optional.empty(), ZoneId.of("UTC")).position())
                .isEmpty();
    }

    @Test
    void theFleetCountsActivePoolsByTopologyAndSupplyAndListsIsolatedDevices() {
        List<PoolSpan> pools = List.of(
                new PoolSpan("p1", "c1", "2x4", "reservation", T0, Optional.empty(), List.of("a")),
                new PoolSpan("p2", "c1", "2x4", "reservation", T0, Optional.empty(), List.of("b")),
                new PoolSpan("p3", "c1", "4x4", "flex-start", T0, Optional.empty(), List.of("c")),
                new PoolSpan("p4", "c1", "2x4", "reservation", T0, Optional.of(T0.plusSeconds(5)), List.of("d")));
        FleetPage page = Views.fleet(
                List.of(C1),
                Map.of("c1", pools),
                Map.of(
                        "c1/node-2",
                        new NodeIsolation(
                                List.of("npu-1"),
                                Map.of("npu-1", List.of(new NodeIsolation.DeviceIsolation("8C1F", "L3", 1_000)))),
                        "c9/node-1",
                        new NodeIsolation(List.of("npu-0"), Map.of())),
                Map.of(),
                Map.of(),
                7,
                T0);
        FleetPage.Card card = page.clusters().get(0);
        assertThat(card.activePools()).isEqualTo(3);
        assertThat(card.reservationPoolsInUse()).isEqualTo(2);
        assertThat(card.poolGroups())
                .containsExactly(
                        new FleetPage.PoolGroup("2x4", "reservation", 2),
                        new FleetPage.PoolGroup("4x4", "flex-start", 1));
        assertThat(card.isolated())
                .containsExactly(new FleetPage.IsolatedDevice("node-2", "npu-1", "8C1F", Instant.ofEpochMilli(1_000)));
        assertThat(page.isolatedDevices()).isEqualTo(1);
        assertThat(card.isolated().get(0).sinceText()).isEqualTo("01-01 00:00:01 UTC");
    }

    @Test
    void theTimelineDrawsEachPoolAndItsJobsPhasesWithinTheWindow() {
        PoolSpan pool = new PoolSpan(
                "falcon-j", "c1", "2x4", "reservation", T0, Optional.of(T0.plusSeconds(1200)), List.of("j"));
        JobHistory j = new JobHistory(
                List.of(
                        Transition.of(taskStatus("j")
                                .version(1)
                                .status(Status.Pending, Reason.Provisioning)
                                .clusterId("c1")
                                .nodePoolName("falcon-j")
                                .at(T0)
                                .build()),
                        Transition.of(taskStatus("j")
                                .version(2)
                                .status(Status.Running)
                                .clusterId("c1")
                                .nodePoolName("falcon-j")
                                .at(T0.plusSeconds(300))
                                .build()),
                        Transition.of(taskStatus("j")
                                .version(3)
                                .status(Status.Succeeded)
                                .clusterId("c1")
                                .nodePoolName("falcon-j")
                                .at(T0.plusSeconds(900))
                                .build())),
                List.of(),
                List.of());
        Timeline t = Timeline.of(
                List.of(pool),
                Map.of("j", j),
                List.of(
                        new QueueSample(T0, "2x4", 2, Duration.ZERO),
                        new QueueSample(T0.plusSeconds(300), "2x4", -1, Duration.ofSeconds(300))),
                T0.plusSeconds(1800));
        assertThat(t.lanes())
                .singleElement()
                .satisfies(l -> assertThat(l.label()).isEqualTo("falcon-j"));
        assertThat(t.bars()).extracting(Timeline.Bar::kind).containsExactly("pool", "creating", "run");
        Timeline.Bar life = t.bars().get(0);
        Timeline.Bar creating = t.bars().get(1);
        Timeline.Bar run = t.bars().get(2);
        assertThat(life.x()).isEqualTo(Timeline.LEFT);
        assertThat(creating.x() + creating.width()).isEqualTo(run.x());
        // the pool lived 1200 of the 1800 s shown, the run 600 of them
        assertThat((double) life.width() / run.width()).isBetween(1.9, 2.1);
        assertThat(t.marks()).hasSize(1);
        assertThat(t.fromLabel()).isEqualTo("12-02 10:00:00 UTC");
        assertThat(t.toLabel()).isEqualTo("12-02 10:30:00 UTC");
        assertThat(t.depthPoints()).isNotEmpty();
        assertThat(t.waitPoints()).isNotEmpty();
    }
}
