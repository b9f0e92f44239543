package io.falcon.events;

import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
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
    public static final Topic<String, ExecutorCommand> EXECUTOR_COMMANDS =
            new Topic<>("falcon.executor.commands", KEY, JsonSerde.of(ExecutorCommand.class), false);
    /** What the executor observed, keyed by tpu_type. */
    public static final Topic<String, ExecutorEvent> EXECUTOR_EVENTS =
            new Topic<>("falcon.executor.events", KEY, JsonSerde.of(ExecutorEvent.class), false);
    /** Every task status transition, keyed by job id; other teams subscribe to it. */
    public static final Topic<String, TaskStatus> TASK_STATUS =
            new Topic<>("falcon.task-status", KEY, JsonSerde.of(TaskStatus.class), false);
    /** Records no consumer could decode or apply, with the reason. */
    public static final Topic<String, DeadLetter> DEAD_LETTER =
            new Topic<>("falcon.dead-letter", KEY, JsonSerde.of(DeadLetter.class), false);

    private Topics() {
    }

    public static List<Topic<?, ?>> all() {
        return List.of(CDC_JOBS, CDC_CLUSTERS, SCHEDULER_INPUT, EXECUTOR_COMMANDS, EXECUTOR_EVENTS, TASK_STATUS,
                DEAD_LETTER);
    }
}
