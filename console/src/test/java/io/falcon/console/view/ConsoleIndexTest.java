package io.falcon.console.view;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.decision.Decision;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConsoleIndexTest {
    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

    private static Decision decision(String job, Decision.Kind kind, Instant at, String pool, int depth) {
        return new Decision(
                Meta.of("scheduler", at),
                job,
                "v6e",
                kind,
                kind + " of " + job,
                Optional.of("c1"),
                Optional.of("2x4"),
                Optional.ofNullable(pool),
                kind == Decision.Kind.POOL_CREATED ? Optional.of(SupplyMode.RESERVATION) : Optional.empty(),
                kind == Decision.Kind.CLUSTER_CHOSEN
                        ? List.of(new Decision.Candidate(
                                "c1",
                                "active",
                                depth,
                                false,
                                Optional.empty(),
                                Optional.empty(),
                                Decision.Outcome.CHOSEN,
                                ""))
                        : List.of(),
                Optional.empty());
    }

    @Test
    void transitionsAreKeptOncePerVersionInVersionOrderAndCapped() {
        ConsoleIndex index = new ConsoleIndex(10, 4);
        for (long v : List.of(3L, 1L, 2L, 2L, 6L, 5L, 4L)) {
            index.accept(taskStatus("j").version(v).at(T0.plusSeconds(v)).build());
        }
        assertThat(index.history("j").orElseThrow().transitions())
                .extracting(Transition::version)
                .containsExactly(3L, 4L, 5L, 6L);
    }

    @Test
    void theLeastRecentlyUpdatedJobsAreForgottenBeyondTheCap() {
        ConsoleIndex index = new ConsoleIndex(3, 4);
        for (String id : List.of("a", "b", "c", "d")) {
            index.accept(taskStatus(id).version(1).build());
        }
        assertThat(index.history("a")).isEmpty();
        assertThat(index.history("d")).isPresent();
        assertThat(index.jobsHeld()).isEqualTo(3);
    }

    @Test
    void poolsQueueSamplesAndIsolationsFollowTheLedgerAndTheTopics() {
        ConsoleIndex index = new ConsoleIndex(100, 16);
        List<Change> changes = new ArrayList<>();
        index.onChange(changes::add);
        index.accept(decision("j", Decision.Kind.CLUSTER_CHOSEN, T0, null, 3));
        index.accept(taskStatus("j")
                .version(1)
                .status(Status.Pending, Reason.Waiting)
                .clusterId("c1")
                .at(T0)
                .build());
        index.accept(decision("j", Decision.Kind.POOL_CREATED, T0.plusSeconds(60), "falcon-j", 0));
        index.accept(taskStatus("j")
                .version(2)
                .status(Status.Running)
                .clusterId("c1")
                .nodePoolName("falcon-j")
                .at(T0.plusSeconds(300))
                .build());
        index.accept(decision("j", Decision.Kind.POOL_DELETED, T0.plusSeconds(900), "falcon-j", 0));
        // a decision delivered twice is kept once
        Decision again = decision("k", Decision.Kind.CLUSTER_CHOSEN, T0, null, 1);
        index.accept(again);
        index.accept(again);

        assertThat(index.pools("c1")).singleElement().satisfies(p -> {
            assertThat(p.supplyMode()).isEqualTo("reservation");
            assertThat(p.topology()).isEqualTo("2x4");
            assertThat(p.holders()).containsExactly("j");
            assertThat(p.deletedAt()).contains(T0.plusSeconds(900));
        });
        assertThat(index.samples("c1")).extracting(QueueSample::depth).containsExactly(3, -1, 1);
        assertThat(index.samples("c1").get(1).waited()).hasSeconds(300);
        assertThat(index.history("k").orElseThrow().decisions()).hasSize(1);

        index.isolation(
                "c1/node-1",
                Optional.of(new NodeIsolation(
                        List.of("npu-0"), Map.of("npu-0", List.of(new NodeIsolation.DeviceIsolation("X", "L3", 1))))));
        assertThat(index.isolations()).containsOnlyKeys("c1/node-1");
        index.isolation("c1/node-1", Optional.empty());
        assertThat(index.isolations()).isEmpty();
        assertThat(changes).anySatisfy(c -> assertThat(c.topics()).contains("fleet", "cluster:c1"));
        assertThat(changes).anySatisfy(c -> assertThat(c.topics()).contains("job:j", "cluster:c1"));
    }
}
