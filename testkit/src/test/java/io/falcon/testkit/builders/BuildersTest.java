package io.falcon.testkit.builders;

import static io.falcon.testkit.builders.ClusterRowBuilder.clusterRow;
import static io.falcon.testkit.builders.DeviceFaultBuilder.deviceFault;
import static io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand;
import static io.falcon.testkit.builders.ExecutorEventBuilder.executorEvent;
import static io.falcon.testkit.builders.ExecutorEventBuilder.inventoryOf;
import static io.falcon.testkit.builders.JobRowBuilder.jobRow;
import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Topics;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The builders' defaults are what their documentation promises, and what they build goes through the topics. */
class BuildersTest {
    /** What the scheduler names job j1's pool and Job in the default installation. */
    private static final String J1_NAME =
            io.falcon.events.ResourceNames.nodePool(io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, "j1");

    private static final Instant LATER = Instant.parse("2026-12-02T11:00:00Z");

    @Test
    void aJobRowIsAlicesPendingJobUnlessSaidOtherwise() {
        JobRow row = jobRow("j1").build();
        assertThat(row.actor()).isEqualTo("alice");
        assertThat(row.name()).isEqualTo("name-j1");
        assertThat(row.tpuType()).isEqualTo("v6e");
        assertThat(row.topology()).isEqualTo("2x4");
        assertThat(row.spec()).isEqualTo(JobRowBuilder.SPEC);
        assertThat(row.status()).isEqualTo("Pending");
        assertThat(row.createdAt()).contains(JobRowBuilder.CREATED_AT);
        assertThat(row.supplyMode()).isEmpty();
        assertThat(row.clusterId()).isEmpty();

        JobRow changed = JobRowBuilder.from(row)
                .actor("bob")
                .timeoutSeconds(30)
                .aborting(LATER)
                .build();
        assertThat(changed.actor()).isEqualTo("bob");
        assertThat(changed.timeoutSeconds()).contains(30L);
        assertThat(changed.status()).isEqualTo("Aborting");
        assertThat(changed.abortingAt()).contains(LATER);
        assertThat(JobRowBuilder.from(changed).build()).isEqualTo(changed);
    }

    @Test
    void rowChangesCarryTheirOperationAndImages() {
        JobRow row = jobRow("j1").build();
        JobChange inserted = RowChangeBuilder.inserted(row).build();
        assertThat(inserted.op()).isEqualTo(ChangeOp.CREATE);
        assertThat(inserted.before()).isEmpty();
        assertThat(inserted.after()).contains(row);
        assertThat(inserted.meta().producer()).isEqualTo("test");
        assertThat(inserted.source()).isEqualTo(RowChangeBuilder.SOURCE);

        JobChange updated = RowChangeBuilder.updated(row, r -> r.status("Running"))
                .at(LATER)
                .build();
        assertThat(updated.op()).isEqualTo(ChangeOp.UPDATE);
        assertThat(updated.before()).contains(row);
        assertThat(updated.after().orElseThrow().status()).isEqualTo("Running");
        assertThat(updated.meta().occurredAt()).isEqualTo(LATER);
        assertThat(RowChangeBuilder.deleted(row).build().after()).isEmpty();
        assertThat(RowChangeBuilder.snapshotted(row).build().op()).isEqualTo(ChangeOp.SNAPSHOT);

        ClusterChange cluster = RowChangeBuilder.inserted(
                        clusterRow("c1").status("maintenance").build())
                .build();
        assertThat(cluster.clusterId()).isEqualTo("c1");
        assertThat(cluster.after().orElseThrow().isActive()).isFalse();
        assertThat(Topics.CDC_JOBS
                        .valueSerde()
                        .fromBytes(Topics.CDC_JOBS.valueSerde().toBytes(updated)))
                .isEqualTo(updated);
        assertThat(Topics.CDC_CLUSTERS
                        .valueSerde()
                        .fromBytes(Topics.CDC_CLUSTERS.valueSerde().toBytes(cluster)))
                .isEqualTo(cluster);
    }

    @Test
    void aClusterRowAndTheTargetOfItsCommandsAgree() {
        var target = clusterRow("c1").tpuType("v5p").target();
        assertThat(target.resourceName()).isEqualTo("projects/proj-c1/locations/us-central1/clusters/edge-c1");
        assertThat(ClusterRowBuilder.of(target).build())
                .isEqualTo(clusterRow("c1").tpuType("v5p").build());
    }

    @Test
    void aTaskStatusIsTheFirstPendingTransitionUnlessSaidOtherwise() {
        TaskStatus status = taskStatus("j1").build();
        assertThat(status.version()).isEqualTo(1);
        assertThat(status.status()).isEqualTo(Status.Pending);
        assertThat(status.reason()).isEmpty();
        assertThat(status.message()).isEmpty();
        assertThat(status.clusterId()).isEmpty();

        TaskStatus failed = taskStatus("j1")
                .version(4)
                .status(Status.Failed, Reason.JobFailed)
                .message("OOMKilled")
                .clusterId("c1")
                .finishedAt(LATER)
                .build();
        assertThat(failed.reason()).contains(Reason.JobFailed);
        assertThat(Topics.TASK_STATUS
                        .valueSerde()
                        .fromBytes(Topics.TASK_STATUS.valueSerde().toBytes(failed)))
                .isEqualTo(failed);
    }

    @Test
    void executorEventsUseTheNamesTheExecutorWouldUse() {
        ExecutorEvent.JobRunning running = executorEvent("j1").pods(2, 2).jobRunning();
        assertThat(running.clusterId()).isEqualTo("c1");
        assertThat(running.tpuType()).isEqualTo("v6e");
        assertThat(running.k8sJobName()).isEqualTo(J1_NAME);
        assertThat(running.jobUid()).isEqualTo("uid-j1");
        assertThat(running.active()).isEqualTo(2);
        assertThat(running.meta().producer()).isEqualTo("executor");
        assertThat(executorEvent("j1").nodePoolReady().nodePoolName()).isEqualTo(J1_NAME);
        assertThat(executorEvent("j1").nodePoolCreateTimedOut(600).timedOut()).isTrue();
        assertThat(executorEvent("j1").jobSubmitRetryable().retryable()).isTrue();
        assertThat(executorEvent("j1").jobSubmitRefused().retryable()).isFalse();

        ExecutorEvent.NodePoolInventory inventory = inventoryOf("c2")
                .nodePools(
                        "projects/p/locations/l/clusters/n",
                        List.of(new ExecutorEvent.ObservedPool(J1_NAME, "RUNNING", "j1", "2x4", Optional.empty())));
        assertThat(inventory.jobId()).isEmpty();
        assertThat(inventory.clusterId()).isEqualTo("c2");
        for (ExecutorEvent event :
                List.of(running, inventory, executorEvent("j1").message("quota").jobFailed())) {
            assertThat(Topics.EXECUTOR_EVENTS
                            .valueSerde()
                            .fromBytes(Topics.EXECUTOR_EVENTS.valueSerde().toBytes(event)))
                    .isEqualTo(event);
        }
    }

    @Test
    void executorCommandsTargetTheDefaultClusterWithTheSchedulersNames() {
        ExecutorCommand.EnsureNodePool pool = executorCommand("j1").ensureNodePool();
        assertThat(pool.cluster()).isEqualTo(clusterRow("c1").target());
        assertThat(pool.nodePoolName()).isEqualTo(J1_NAME);
        assertThat(pool.supplyMode()).isEqualTo(SupplyMode.ON_DEMAND);
        assertThat(pool.reservation()).isEmpty();
        assertThat(executorCommand("j1").reservation("res-a").ensureNodePool())
                .satisfies(p -> assertThat(p.supplyMode()).isEqualTo(SupplyMode.RESERVATION))
                .satisfies(p -> assertThat(p.reservation()).contains("res-a"));

        var other = clusterRow("c9").tpuType("v7x").target();
        ExecutorCommand.EnsureJob job = executorCommand("j1").cluster(other).ensureJob();
        assertThat(job.tpuType()).isEqualTo("v7x");
        assertThat(job.k8sJobName()).isEqualTo(J1_NAME);
        assertThat(job.spec()).isEqualTo(ExecutorCommandBuilder.SPEC);
        for (ExecutorCommand command : List.of(
                pool,
                job,
                executorCommand("j1").ensureJobDeleted(),
                executorCommand("j1").ensureNodePoolDeleted())) {
            assertThat(Topics.EXECUTOR_COMMANDS
                            .valueSerde()
                            .fromBytes(Topics.EXECUTOR_COMMANDS.valueSerde().toBytes(command)))
                    .isEqualTo(command);
        }
    }

    @Test
    void aDeviceFaultIsAHardwareFaultOutsideAJobUnlessSaidOtherwise() {
        DeviceFault fault = deviceFault("c1", "node-7", "npu-3").build();
        assertThat(fault.jobId()).isEmpty();
        assertThat(fault.topicKey()).isEqualTo("c1");
        assertThat(fault.faultLevel()).contains("L2");
        assertThat(fault.receiveTimeMs()).isEqualTo(DeviceFaultBuilder.RECEIVED_AT);
        assertThat(deviceFault("c1", "node-7", "npu-3").job("j9").build().topicKey())
                .isEqualTo("c1");
    }
}
