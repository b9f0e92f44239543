package io.falcon.events;

import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.decision.Decision;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultJson;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.status.TaskStatus;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** The topic catalog: every topic Falcon reads or writes, with its key and value serdes. */
public final class Topics {
    private static final Serde<String> KEY = Serdes.String();

    /** Row changes of the jobs table, keyed by job id. */
    public static final Topic<String, JobChange> CDC_JOBS =
            new Topic<>("falcon.cdc.jobs", KEY, JsonSerde.of(JobChange.class), false);
    /** Row changes of the clusters table, keyed by cluster id. */
    public static final Topic<String, ClusterChange> CDC_CLUSTERS =
            new Topic<>("falcon.cdc.clusters", KEY, JsonSerde.of(ClusterChange.class), false);
    /** Scheduler input re-keyed by tpu_type, so one state machine per accelerator type sees all its clusters. */
    public static final Topic<String, SchedulerInput> SCHEDULER_INPUT =
            new Topic<>("falcon.scheduler.input", KEY, JsonSerde.of(SchedulerInput.class), false);
    /** Level-triggered commands for the executor, keyed by cluster id (ordered per cluster). */
    /** Operators' switches the scheduler applies (compacted; key {@link io.falcon.events.control.RetrySwitch#KEY}). */
    public static final Topic<String, io.falcon.events.control.RetrySwitch> SCHEDULER_CONTROLS = new Topic<>(
            "falcon.scheduler.controls", KEY, JsonSerde.of(io.falcon.events.control.RetrySwitch.class), true);

    public static final Topic<String, ExecutorCommand> EXECUTOR_COMMANDS =
            new Topic<>("falcon.executor.commands", KEY, JsonSerde.of(ExecutorCommand.class), false);
    /** What the executor observed, keyed by tpu_type. */
    public static final Topic<String, ExecutorEvent> EXECUTOR_EVENTS =
            new Topic<>("falcon.executor.events", KEY, JsonSerde.of(ExecutorEvent.class), false);
    /** Every task status transition, keyed by job id; other teams subscribe to it. */
    public static final Topic<String, TaskStatus> TASK_STATUS =
            new Topic<>("falcon.task-status", KEY, JsonSerde.of(TaskStatus.class), false);
    /**
     * The decision ledger (audit log): every scheduling decision with its inputs, keyed by job id. Compacted and
     * time-retained: every decision is kept for the full-history window, then the latest per job until the
     * retention (see {@link TopicProvisioner.LedgerRetention}).
     */
    public static final Topic<String, Decision> DECISIONS =
            new Topic<>("falcon.decisions", KEY, JsonSerde.of(Decision.class), true);
    /** Records no consumer could decode or apply, with the reason. */
    public static final Topic<String, DeadLetter> DEAD_LETTER =
            new Topic<>("falcon.dead-letter", KEY, JsonSerde.of(DeadLetter.class), false);

    /** Device faults from the fault collectors, keyed by job id, or cluster/node for faults outside a job. */
    public static final Topic<String, DeviceFault> DEVICE_FAULTS =
            new Topic<>("falcon.device-faults", KEY, JsonSerde.of(DeviceFault.class, FaultJson.DEVICE_FAULT), false);
    /** fault-streams internal: faults that passed the job window, re-keyed by cluster id for counting. */
    public static final Topic<String, DeviceFault> FAULT_COUNTING =
            new Topic<>("falcon.fault-counting", KEY, JsonSerde.of(DeviceFault.class, FaultJson.DEVICE_FAULT), false);
    /** Every fault-streams decision with its evidence, keyed cluster/node. */
    public static final Topic<String, FaultVerdict> FAULT_VERDICTS =
            new Topic<>("falcon.fault-verdicts", KEY, JsonSerde.of(FaultVerdict.class, FaultJson.VERDICT), false);
    /** Manual-isolation state per node in the RFC's ConfigMap shape, keyed cluster/node; tombstone = none. */
    public static final Topic<String, NodeIsolation> ISOLATION =
            new Topic<>("falcon.isolation", KEY, JsonSerde.of(NodeIsolation.class), true);
    /** The isolation policy in force, one key ("policy"). */
    public static final Topic<String, IsolationPolicy> ISOLATION_POLICY =
            new Topic<>("falcon.isolation-policy", KEY, JsonSerde.of(IsolationPolicy.class), true);
    /** Releases from the executor (operator edited the ConfigMap) or operators, keyed by cluster id. */
    public static final Topic<String, IsolationCommand> ISOLATION_COMMANDS =
            new Topic<>("falcon.isolation-commands", KEY, JsonSerde.of(IsolationCommand.class), false);

    private Topics() {}

    public static List<Topic<?, ?>> all() {
        return List.of(
                CDC_JOBS,
                CDC_CLUSTERS,
                SCHEDULER_INPUT,
                SCHEDULER_CONTROLS,
                EXECUTOR_COMMANDS,
                EXECUTOR_EVENTS,
                TASK_STATUS,
                DECISIONS,
                DEAD_LETTER,
                DEVICE_FAULTS,
                FAULT_COUNTING,
                FAULT_VERDICTS,
                ISOLATION,
                ISOLATION_POLICY,
                ISOLATION_COMMANDS);
    }
}
