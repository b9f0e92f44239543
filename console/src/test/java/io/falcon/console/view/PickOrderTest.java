package io.falcon.console.view;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.decision.Decision;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The queues' pick order the console holds from the statuses, and how the Queues page lists waiting jobs with it. */
class PickOrderTest {
    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

    private static Decision placed(String job, String cluster, String topology) {
        return new Decision(
                Meta.of("scheduler", T0),
                job,
                "v6e",
                Decision.Kind.CLUSTER_CHOSEN,
                "placed",
                Optional.of(cluster),
                Optional.of(topology),
                Optional.empty(),
                Optional.empty(),
                List.of(),
                Optional.empty());
    }

    private static void waiting(ConsoleIndex index, String job, long version, String cluster, String message) {
        index.accept(taskStatus(job)
                .version(version)
                .status(Status.Pending, Reason.Waiting)
                .clusterId(cluster)
                .message(message)
                .at(T0.plusSeconds(version))
                .build());
    }

    @Test
    void waitingJobsAreHeldByTheirLatestExactPositionPerQueue() {
        ConsoleIndex index = new ConsoleIndex(100, 8, 100);
        // statuses may come before the decision that names the queue's topology
        waiting(index, "late", 1, "c1", "队列位置 #3,前面有 2 个任务");
        waiting(index, "first", 1, "c1", "队列位置 #2,前面有 1 个任务");
        waiting(index, "deep", 1, "c1", "队列位置 #1001 之后,前面至少有 1000 个任务");
        waiting(index, "other-topology", 1, "c1", "队列位置 #1,前面有 0 个任务");
        index.accept(placed("late", "c1", "2x4"));
        index.accept(placed("first", "c1", "2x4"));
        index.accept(placed("deep", "c1", "2x4"));
        index.accept(placed("other-topology", "c1", "4x4"));
        assertThat(index.pickOrder("c1", "2x4", 10)).containsExactly(Map.entry("first", 2), Map.entry("late", 3));

        // positions move: the later status wins, an older one arriving late changes nothing
        waiting(index, "late", 3, "c1", "队列位置 #1,前面有 0 个任务");
        waiting(index, "late", 2, "c1", "队列位置 #9,前面有 8 个任务");
        assertThat(index.pickOrder("c1", "2x4", 10)).containsExactly(Map.entry("late", 1), Map.entry("first", 2));

        // picked: it leaves the pick order
        index.accept(taskStatus("late")
                .version(4)
                .status(Status.Pending, Reason.Provisioning)
                .clusterId("c1")
                .at(T0.plusSeconds(4))
                .build());
        assertThat(index.pickOrder("c1", "2x4", 10)).containsExactly(Map.entry("first", 2));
        assertThat(index.pickOrder("c1", "4x4", 10)).containsExactly(Map.entry("other-topology", 1));
        assertThat(index.pickOrder("c2", "2x4", 10)).isEmpty();
    }

    @Test
    void eachQueueHoldsOnlyItsSmallestPositions() {
        ConsoleIndex index = new ConsoleIndex(1000, 8, 3);
        for (int i = 5; i >= 1; i--) {
            index.accept(placed("j" + i, "c1", "2x4"));
            waiting(index, "j" + i, 1, "c1", "队列位置 #" + i + ",前面有 " + (i - 1) + " 个任务");
        }
        assertThat(index.pickOrder("c1", "2x4", 10).keySet()).containsExactly("j1", "j2", "j3");
        assertThat(index.pickOrder("c1", "2x4", 2).keySet()).containsExactly("j1", "j2");
    }

    private static ListedJob row(String id, String status, String reason, String cluster, int second) {
        return new ListedJob(
                id,
                "alice",
                id,
                "v6e",
                "2x4",
                status,
                Optional.ofNullable(reason),
                "队列位置 #7,前面有 6 个任务",
                Optional.of(cluster),
                Optional.of(0),
                LocalDateTime.of(2026, 12, 2, 10, 0, second));
    }

    @Test
    void thePageListsThePickOrderFirstThenTheOthersInSubmissionOrderEachOnce() {
        Map<String, Integer> picks = new LinkedHashMap<>();
        picks.put("urgent", 1);
        picks.put("old", 2);
        picks.put("gone", 3); // picked since: its row no longer waits
        picks.put("moved", 4); // moved to another cluster since
        List<ListedJob> rows = List.of(
                row("old", "Pending", "Waiting", "c1", 1),
                row("urgent", "Pending", "Waiting", "c1", 9),
                row("gone", "Pending", "Provisioning", "c1", 2),
                row("moved", "Pending", "Waiting", "c2", 3));
        List<ListedJob> submissionPage = List.of(
                row("old", "Pending", "Waiting", "c1", 1),
                row("middle", "Pending", "Waiting", "c1", 5),
                row("urgent", "Pending", "Waiting", "c1", 9));

        Views.Waiting first = Views.waiting("c1", "2x4", picks, rows, submissionPage, true, Map.of(), ZoneId.of("UTC"));
        assertThat(first.pickOrder()).extracting(e -> e.job().id()).containsExactly("urgent", "old");
        assertThat(first.pickOrder())
                .extracting(QueuePage.Entry::position)
                .containsExactly(Optional.of(1), Optional.of(2));
        assertThat(first.submissionOrder()).extracting(e -> e.job().id()).containsExactly("middle");
        assertThat(first.submissionOrder().get(0).position()).contains(7);

        // a later page lists no pick order, and still not the jobs the first page listed in it
        Views.Waiting later =
                Views.waiting("c1", "2x4", picks, rows, submissionPage, false, Map.of(), ZoneId.of("UTC"));
        assertThat(later.pickOrder()).isEmpty();
        assertThat(later.submissionOrder()).extracting(e -> e.job().id()).containsExactly("middle");
    }
}
