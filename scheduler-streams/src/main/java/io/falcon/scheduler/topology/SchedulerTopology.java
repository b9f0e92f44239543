package io.falcon.scheduler.topology;

import io.falcon.events.JsonSerde;
import io.falcon.events.Topic;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.streams.StreamsDeadLetters;
import io.falcon.ops.FalconMetrics;
import io.falcon.scheduler.core.JobDeletion;
import io.falcon.scheduler.core.NodePool;
import io.falcon.scheduler.core.QueueHistory;
import io.falcon.scheduler.core.ScheduledJob;
import io.falcon.scheduler.core.Scheduler;
import io.falcon.scheduler.core.SchedulerSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;

/**
 * scheduler.input (row changes cdc-ingest routed by tpu_type, in commit order) + executor.events -> scheduler
 * (changelogged stores, wall-clock punctuator) -> task-status + executor.commands.
 */
public final class SchedulerTopology {
    static final String JOB_STORE = "scheduler-jobs";
    static final String POOL_STORE = "scheduler-pools";
    static final String CLUSTER_STORE = "scheduler-clusters";
    static final String QUEUE_STORE = "scheduler-queues";
    static final String DELETION_STORE = "scheduler-job-deletions";
    /** Slot hold and run times per (cluster, topology, supply mode): the start-time estimates' history. */
    static final String HISTORY_STORE = "scheduler-start-history";
    /** Finished jobs for the retention: a window store, so whole segments past it are dropped without a scan. */
    static final String RETIRED_STORE = "scheduler-retired-jobs";

    /** The operators' switches (falcon.scheduler.controls), as last read. */
    static final String CONTROL_STORE = "scheduler-controls";

    static final String STATUS_SINK = "to-task-status";
    static final String COMMAND_SINK = "to-executor-commands";
    static final String DEAD_LETTER_SINK = "to-dead-letter";
    static final String DECISION_SINK = "to-decisions";
    /** Fault notes and operators' switches, to every partition of the scheduler's input. */
    static final String EVERY_INPUT_PARTITION_SINK = "to-every-scheduler-input-partition";

    static final StreamsDeadLetters DEAD_LETTERS = new StreamsDeadLetters(Scheduler.PRODUCER, DEAD_LETTER_SINK);

    private SchedulerTopology() {}

    /** The topology without metrics (tests, replay). */
    public static Topology build(Duration tickInterval) {
        return build(tickInterval, SchedulerSettings.defaults(), new FalconMetrics(new SimpleMeterRegistry()));
    }

    public static Topology build(Duration tickInterval, SchedulerSettings scheduling, FalconMetrics metrics) {
        Topology topology = new Topology();
        var bytes = Serdes.ByteArray().deserializer();
        var keys = Serdes.String().deserializer();

        topology.addSource("scheduler-in", keys, bytes, Topics.SCHEDULER_INPUT.name(), Topics.EXECUTOR_EVENTS.name());
        topology.addProcessor(
                "scheduler", () -> new SchedulerProcessor(tickInterval, scheduling, metrics), "scheduler-in");
        topology.addStateStore(store(JOB_STORE, JsonSerde.of(ScheduledJob.class)), "scheduler");
        topology.addStateStore(store(POOL_STORE, JsonSerde.of(NodePool.class)), "scheduler");
        topology.addStateStore(store(CLUSTER_STORE, JsonSerde.of(ClusterRow.class)), "scheduler");
        topology.addStateStore(store(QUEUE_STORE, Serdes.String()), "scheduler");
        topology.addStateStore(store(DELETION_STORE, JsonSerde.of(JobDeletion.class)), "scheduler");
        topology.addStateStore(store(HISTORY_STORE, JsonSerde.of(QueueHistory.class)), "scheduler");
        topology.addStateStore(retiredStore(scheduling.terminalRetention()), "scheduler");
        topology.addStateStore(
                store(CONTROL_STORE, JsonSerde.of(io.falcon.events.control.RetrySwitch.class)), "scheduler");
        addSink(topology, STATUS_SINK, Topics.TASK_STATUS, "scheduler");
        addSink(topology, COMMAND_SINK, Topics.EXECUTOR_COMMANDS, "scheduler");
        addSink(topology, DECISION_SINK, Topics.DECISIONS, "scheduler");
        // Fault verdicts about jobs, to every partition of the scheduler's input (FaultVerdictRouter).
        topology.addSource("verdicts-in", keys, bytes, Topics.FAULT_VERDICTS.name());
        topology.addProcessor("fault-verdict-router", () -> new FaultVerdictRouter(metrics), "verdicts-in");
        // The operators' switches, to every partition too (ControlRouter).
        topology.addSource("controls-in", keys, bytes, Topics.SCHEDULER_CONTROLS.name());
        topology.addProcessor("control-router", () -> new ControlRouter(metrics), "controls-in");
        @SuppressWarnings("unchecked")
        Serializer<Object> inputs = (Serializer<Object>)
                (Serializer<?>) Topics.SCHEDULER_INPUT.valueSerde().serializer();
        topology.addSink(
                EVERY_INPUT_PARTITION_SINK,
                Topics.SCHEDULER_INPUT.name(),
                Topics.SCHEDULER_INPUT.keySerde().serializer(),
                inputs,
                new FaultVerdictRouter.EveryPartition(),
                "fault-verdict-router",
                "control-router");
        addSink(topology, DEAD_LETTER_SINK, Topics.DEAD_LETTER, "scheduler", "fault-verdict-router", "control-router");
        return topology;
    }

    private static <V> org.apache.kafka.streams.state.StoreBuilder<?> store(String name, Serde<V> values) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(), values)
                .withLoggingEnabled(java.util.Map.of());
    }

    /**
     * Keyed by job id, at the time the job ended (a retired job is rewritten at the same time, so it replaces
     * itself). The segments span half the retention; a whole segment is dropped once it is past it, and the
     * changelog is compacted and deleted past it too, so neither the store nor its restore grows with every job.
     */
    private static org.apache.kafka.streams.state.StoreBuilder<?> retiredStore(Duration retention) {
        return Stores.windowStoreBuilder(
                        Stores.persistentWindowStore(RETIRED_STORE, retention, Duration.ofMillis(1), false),
                        Serdes.String(),
                        JsonSerde.of(ScheduledJob.class))
                .withLoggingEnabled(java.util.Map.of());
    }

    @SuppressWarnings("unchecked")
    private static <V> void addSink(Topology topology, String name, Topic<String, V> topic, String... parents) {
        Serializer<Object> values =
                (Serializer<Object>) (Serializer<?>) topic.valueSerde().serializer();
        topology.addSink(name, topic.name(), topic.keySerde().serializer(), values, parents);
    }
}
