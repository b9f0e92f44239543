package io.falcon.executor.gke;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.rpc.NotFoundException;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import io.falcon.events.Meta;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.SimHarness;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NodePoolManagerIT {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private SimHarness h;

    @BeforeEach
    void start() {
        h = new SimHarness(Map.of("falcon.executor.node-pool.create-timeout", "3s"));
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private static EnsureNodePool ensure(String jobId, String topology, SupplyMode mode, String reservation) {
        return new EnsureNodePool(Meta.of("test", Instant.now()), jobId, SimHarness.cluster(), "falcon-" + jobId,
                "v7x", topology, mode, Optional.ofNullable(reservation));
    }

    private NodePool pool(String name) {
        return h.gke.getNodePool(SimHarness.cluster().resourceName() + "/nodePools/" + name);
    }

    private long createOperations(String pool) {
        String parent = "projects/" + SimHarness.PROJECT + "/locations/" + SimHarness.LOCATION;
        return h.gke.listOperations(parent).getOperationsList().stream()
                .filter(o -> o.getOperationType() == Operation.Type.CREATE_NODE_POOL)
                .filter(o -> o.getTargetLink().endsWith("/nodePools/" + pool))
                .count();
    }

    private void awaitNoneInFlight() {
        long deadline = System.currentTimeMillis() + 5_000;
        while (h.nodePools.inFlight() > 0 && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(h.nodePools.inFlight()).isZero();
    }

    @Test
    void ensureNodePoolReportsReadyAndThePoolHasTheRightShape() {
        h.dispatcher.handle(ensure("np-1", "2x4", SupplyMode.RESERVATION, "res-a"));

        ExecutorEvent.NodePoolReady ready = h.sink.await(ExecutorEvent.NodePoolReady.class, "np-1", WAIT);
        assertThat(ready.nodePoolName()).isEqualTo("falcon-np-1");
        assertThat(ready.clusterId()).isEqualTo("cluster-1");
        assertThat(ready.tpuType()).isEqualTo("v7x");

        NodePool pool = pool("falcon-np-1");
        assertThat(pool.getStatus()).isEqualTo(NodePool.Status.RUNNING);
        assertThat(pool.getConfig().getMachineType()).isEqualTo("tpu7x-standard-4t");
        assertThat(pool.getInitialNodeCount()).isEqualTo(2);
        assertThat(pool.getPlacementPolicy().getTpuTopology()).isEqualTo("2x4");
        assertThat(pool.getConfig().getResourceLabelsMap()).containsEntry("managed-by", "falcon")
                .containsEntry("falcon-job", "np-1").containsEntry("falcon-topology", "2x4");
        assertThat(pool.getConfig().getLabelsMap()).containsEntry("managed-by", "falcon");
        assertThat(pool.getConfig().getReservationAffinity().getValuesList()).containsExactly("res-a");
        awaitNoneInFlight();
    }

    @Test
    void redeliveredEnsureNodePoolCreatesNothingTwice() {
        h.dispatcher.handle(ensure("np-2", "2x4", SupplyMode.FLEX_START, null));
        h.dispatcher.handle(ensure("np-2", "2x4", SupplyMode.FLEX_START, null)); // while provisioning
        h.sink.await(ExecutorEvent.NodePoolReady.class, "np-2", WAIT);
        h.dispatcher.handle(ensure("np-2", "2x4", SupplyMode.FLEX_START, null)); // after it is ready

        long deadline = System.currentTimeMillis() + 10_000;
        while (h.sink.of(ExecutorEvent.NodePoolReady.class, "np-2").size() < 2
                && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait();
        }
        // level-triggered: asking again for a ready pool reports it ready again, without a second creation
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "np-2")).hasSize(2);
        assertThat(createOperations("falcon-np-2")).isEqualTo(1);
        assertThat(h.sink.of(ExecutorEvent.NodePoolCreateFailed.class, "np-2")).isEmpty();
    }

    @Test
    void quotaErrorIsReportedWithGkesMessage() {
        h.knobs().failNextCreationsWithQuota(1);
        h.dispatcher.handle(ensure("np-3", "2x4", SupplyMode.ON_DEMAND, null));

        ExecutorEvent.NodePoolCreateFailed failed = h.sink.await(ExecutorEvent.NodePoolCreateFailed.class, "np-3",
                WAIT);
        assertThat(failed.timedOut()).isFalse();
        assertThat(failed.message()).contains("TPUS_PER_PROJECT");
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "np-3")).isEmpty();
    }

    @Test
    void creationThatNeverFinishesTimesOut() {
        h.knobs().neverFinishCreations(true);
        h.dispatcher.handle(ensure("np-4", "2x4", SupplyMode.ON_DEMAND, null));

        ExecutorEvent.NodePoolCreateFailed failed = h.sink.await(ExecutorEvent.NodePoolCreateFailed.class, "np-4",
                WAIT);
        assertThat(failed.timedOut()).isTrue();
        assertThat(failed.message()).contains("falcon-np-4").contains("3s");
    }

    @Test
    void deleteIsIdempotent() {
        h.dispatcher.handle(ensure("np-5", "2x4", SupplyMode.ON_DEMAND, null));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "np-5", WAIT);

        var delete = new EnsureNodePoolDeleted(Meta.of("test", Instant.now()), "np-5", SimHarness.cluster(),
                "falcon-np-5");
        h.dispatcher.handle(delete);
        h.dispatcher.handle(delete); // redelivered while deleting
        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "np-5", WAIT);
        assertThatThrownBy(() -> pool("falcon-np-5")).isInstanceOf(NotFoundException.class);

        int before = h.sink.of(ExecutorEvent.NodePoolDeleted.class, "np-5").size();
        h.dispatcher.handle(delete); // already gone: success
        long deadline = System.currentTimeMillis() + 10_000;
        while (h.sink.of(ExecutorEvent.NodePoolDeleted.class, "np-5").size() == before
                && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(h.sink.of(ExecutorEvent.NodePoolDeleted.class, "np-5")).hasSize(before + 1);
        awaitNoneInFlight();
    }

    @Test
    void inFlightCreationStartedBeforeARestartIsRecoveredFromGke() {
        h.knobs().creationDelay(Duration.ofMillis(1000));
        // started by an earlier process whose command offset was already committed
        h.gke.createNodePool(SimHarness.cluster().resourceName(),
                NodePoolSpec.render(ensure("np-7", "2x4", SupplyMode.ON_DEMAND, null)));

        h.nodePools.recover(SimHarness.cluster());

        ExecutorEvent.NodePoolReady ready = h.sink.await(ExecutorEvent.NodePoolReady.class, "np-7", WAIT);
        assertThat(ready.nodePoolName()).isEqualTo("falcon-np-7");
        assertThat(createOperations("falcon-np-7")).isEqualTo(1);
    }

    @Test
    void deleteWhileCreatingWins() {
        h.knobs().creationDelay(Duration.ofMillis(800));
        h.dispatcher.handle(ensure("np-6", "2x4", SupplyMode.ON_DEMAND, null));
        h.dispatcher.handle(new EnsureNodePoolDeleted(Meta.of("test", Instant.now()), "np-6", SimHarness.cluster(),
                "falcon-np-6"));

        h.sink.await(ExecutorEvent.NodePoolDeleted.class, "np-6", WAIT);
        assertThat(h.sink.of(ExecutorEvent.NodePoolReady.class, "np-6")).isEmpty();
    }
}
