package io.falcon.events.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ExplanationTest {
    private static final Instant AT = Instant.parse("2026-12-03T10:00:00Z");

    private static Map<String, String> row(String status, String reason, String message, String cluster) {
        Map<String, String> row = new HashMap<>();
        row.put("id", "j1");
        row.put("status", status);
        row.put("reason", reason);
        row.put("message", message);
        row.put("tpu_type", "v5p");
        row.put("topology", "2x2x1");
        if (cluster != null) {
            row.put("cluster_id", cluster);
        }
        return row;
    }

    private static Decision decision(Decision.Kind kind, String summary, List<Decision.Candidate> candidates) {
        return new Decision(
                Meta.of("scheduler-streams", AT),
                "j1",
                "v5p",
                kind,
                summary,
                Optional.empty(),
                Optional.of("2x2x1"),
                Optional.empty(),
                Optional.empty(),
                candidates,
                Optional.empty());
    }

    private static Decision.Candidate candidate(String id, String status, Decision.Outcome outcome, String why) {
        return new Decision.Candidate(id, status, 0, false, Optional.empty(), Optional.empty(), outcome, why);
    }

    @Test
    void aParkedJobNamesEachClusterThatCouldTakeItAndWhatItWouldTake() {
        Decision parked = decision(
                Decision.Kind.NO_CLUSTER_ELIGIBLE,
                "no eligible cluster",
                List.of(
                        candidate("tpu-b", "maintenance", Decision.Outcome.NOT_ACTIVE, "in maintenance"),
                        candidate("tpu-a", "active", Decision.Outcome.NO_DEFAULT_RESERVATION, "no reservation")));

        Explanation e = Explanation.of(
                row("Pending", "Waiting", "no eligible cluster for tpu_type v5p: ...", null),
                List.of(parked),
                Optional.empty());

        assertThat(e.where()).contains("not placed").contains("v5p");
        assertThat(e.unblock())
                .anySatisfy(u -> assertThat(u).contains("cluster tpu-b is maintenance"))
                .anySatisfy(
                        u -> assertThat(u).contains("supply_mode=flex-start").contains("start on tpu-a"));
        assertThat(e.why()).singleElement().asString().contains("NO_CLUSTER_ELIGIBLE");
    }

    @Test
    void aJobRunningAgainTellsItsRetryAndThatNothingIsNeeded() {
        Explanation e = Explanation.of(
                row(
                        "Pending",
                        "Retrying",
                        "attempt 2 of 3 from 10:42:05 (once the last attempt's Kubernetes Job is gone): the fleet ended"
                                + " attempt 1: Pod disrupted: DisruptionTarget: PreemptionByScheduler",
                        "c1"),
                List.of(decision(
                        Decision.Kind.RETRIED,
                        "attempt 1 ended by the fleet's doing (DisruptionTarget: PreemptionByScheduler)",
                        List.of())),
                Optional.empty());

        assertThat(e.why()).singleElement().asString().contains("RETRIED").contains("the fleet's doing");
        assertThat(e.unblock()).singleElement().asString().startsWith("nothing: the fleet ended its last attempt");
    }

    @Test
    void aParkedJobWithoutAnyClusterOfItsTypeIsToldToAddOne() {
        Explanation e = Explanation.of(
                row("Pending", "Waiting", "no eligible cluster for tpu_type v5p: no cluster is registered", null),
                List.of(decision(Decision.Kind.NO_CLUSTER_ELIGIBLE, "no cluster of v5p", List.of())),
                Optional.empty());

        assertThat(e.unblock()).singleElement().asString().contains("no cluster has tpu_type v5p");
    }

    @Test
    void eachClusterIsNamedBesideItsIdWhereTheClustersTableHasANameButCommandsKeepTheId() {
        Map<String, String> names = Map.of("c1", "edge-us-east", "tpu-b", "edge-eu-west");
        Explanation queued = Explanation.of(
                row("Pending", "Waiting", "队列位置 #3,前面有 2 个任务 (alice: a, bob: b)", "c1"),
                List.of(),
                Optional.empty(),
                names);
        assertThat(queued.where())
                .isEqualTo("Pending/Waiting on cluster c1 (edge-us-east), queue c1/2x2x1, position #3");
        assertThat(queued.lines().get(0)).contains("c1 (edge-us-east)");

        Explanation parked = Explanation.of(
                row("Pending", "Waiting", "no eligible cluster for tpu_type v5p: ...", null),
                List.of(decision(
                        Decision.Kind.NO_CLUSTER_ELIGIBLE,
                        "no eligible cluster",
                        List.of(
                                candidate("tpu-b", "maintenance", Decision.Outcome.NOT_ACTIVE, "in maintenance"),
                                candidate("tpu-c", "offline", Decision.Outcome.NOT_ACTIVE, "offline")))),
                Optional.empty(),
                names);
        assertThat(parked.unblock())
                .anySatisfy(u -> assertThat(u)
                        .contains("cluster tpu-b (edge-eu-west) is maintenance")
                        .contains("falcon clusters set-status tpu-b active"))
                .anySatisfy(u -> assertThat(u).contains("cluster tpu-c is offline"));

        Explanation busy = Explanation.of(
                row("Pending", "ClusterBusy", "reservation_remaining_slices=0 reservation_needed_slices=2", "c1"),
                List.of(),
                Optional.empty(),
                names);
        assertThat(busy.unblock()).singleElement().asString().contains("the reservation of cluster c1 (edge-us-east)");

        Decision placed = new Decision(
                Meta.of("scheduler-streams", AT),
                "j1",
                "v5p",
                Decision.Kind.CLUSTER_CHOSEN,
                "placed on cluster c1, queue c1/2x2x1: shortest queue",
                Optional.of("c1"),
                Optional.of("2x2x1"),
                Optional.empty(),
                Optional.empty(),
                List.of(),
                Optional.empty());
        Explanation story = Explanation.of(
                row("Pending", "Waiting", "队列位置 #1,前面有 0 个任务", "c1"), List.of(placed), Optional.empty(), names);
        assertThat(story.why()).singleElement().asString().endsWith("shortest queue  [c1 (edge-us-east)]");
    }

    @Test
    void aQueuedJobSaysItsPositionWhoIsAheadAndThatItWaitsItsTurn() {
        Explanation e = Explanation.of(
                row("Pending", "Waiting", "队列位置 #3,前面有 2 个任务 (alice: a, bob: b)", "c1"),
                List.of(decision(Decision.Kind.CLUSTER_CHOSEN, "placed on c1", List.of())),
                Optional.empty());

        assertThat(e.where()).isEqualTo("Pending/Waiting on cluster c1, queue c1/2x2x1, position #3");
        assertThat(e.ahead()).contains("2 job(s): alice: a, bob: b");
        assertThat(e.unblock())
                .singleElement()
                .asString()
                .contains("2 job(s) ahead")
                .contains("c1/2x2x1");
    }

    @Test
    void aReservationShortfallSaysHowManySlicesAreFreeAndNeeded() {
        Explanation e = Explanation.of(
                row(
                        "Pending",
                        "ClusterBusy",
                        "reservation_remaining_slices=1 reservation_needed_slices=2,等待 reservation 容量释放...",
                        "c1"),
                List.of(),
                Optional.of("topic falcon.decisions does not exist"));

        assertThat(e.unblock())
                .singleElement()
                .asString()
                .contains("has 1 of the 2 TPU VMs (hosts of the slice) this job needs");
        assertThat(e.lines()).contains("(decision ledger not read: topic falcon.decisions does not exist)");
        assertThat(e.why()).singleElement().asString().startsWith("reservation_remaining_slices=1");
    }

    @Test
    void waitingForNodeSaysNoTimeoutEndsTheWaitButProvisioningIsBounded() {
        Explanation waiting = Explanation.of(
                row(
                        "Pending",
                        "WaitingForNode",
                        "node pool falcon-j1 control-plane RUNNING but 0/1 expected node(s) registered (Ready=0)...",
                        "c1"),
                List.of(),
                Optional.empty());
        assertThat(waiting.unblock())
                .singleElement()
                .asString()
                .contains("no timeout ends this wait")
                .contains("abort the job");
        Explanation provisioning = Explanation.of(
                row("Pending", "Provisioning", "正在创建 node pool (supply: flex-start)...", "c1"),
                List.of(),
                Optional.empty());
        assertThat(provisioning.unblock()).singleElement().asString().contains("NodePoolTimeout");
    }

    @Test
    void anEndedOrRunningJobNeedsNothing() {
        assertThat(Explanation.of(row("Running", "", "Pod 运行中 (1/1 active)", "c1"), List.of(), Optional.empty())
                        .unblock())
                .containsExactly("nothing: its pods run");
        assertThat(Explanation.of(row("Failed", "Timeout", "ran past 60s", "c1"), List.of(), Optional.empty())
                        .unblock())
                .singleElement()
                .asString()
                .contains("ended (Failed/Timeout: ran past 60s)");
    }

    @Test
    void theMessagesPositionAndEstimateAreReadBack() {
        String message = "队列位置 #3,前面有 2 个任务 (alice: a, bob: b),预计 14:20-14:35 开始";
        assertThat(Explanation.queuePosition(message)).contains(3);
        assertThat(Explanation.statedEstimate(message)).contains("14:20-14:35");
        assertThat(Explanation.statedEstimate("队列位置 #1,前面有 0 个任务,预计 12-04 09:05-12-04 09:40 开始"))
                .contains("12-04 09:05-12-04 09:40");
        assertThat(Explanation.queuePosition("Pod 运行中 (1/1 active)")).isEmpty();
        assertThat(Explanation.statedEstimate("队列位置 #1,前面有 0 个任务")).isEmpty();
    }
}
