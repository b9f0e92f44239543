package io.falcon.faults.topology;

import io.falcon.events.JsonSerde;
import io.falcon.events.Topic;
import io.falcon.events.Topics;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.streams.StreamsDeadLetters;
import io.falcon.faults.core.Verdicts;
import io.falcon.ops.FalconMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * One sub-topology keyed by cluster: device-faults -> job window (held faults, punctuator) -> counting (counters,
 * node isolation, candidates, punctuator) -> verdicts + isolation (by cluster/node); isolation-commands ->
 * counting. The job window hands the faults it counts to the counting processor in the same task (the input is
 * keyed by cluster, so a cluster's faults and its isolation budget are in one task): no repartition topic. The
 * policy topic feeds a global store, whose processor hands each applied policy to the stages decoded
 * ({@link CurrentPolicy}).
 */
public final class FaultTopology {
    static final String PENDING_STORE = "fault-window-pending";
    static final String ROUNDS_STORE = "fault-window-rounds";
    static final String COUNTER_STORE = "fault-counters";
    static final String NODE_STORE = "fault-isolation-nodes";
    static final String CANDIDATE_STORE = "fault-isolation-candidates";
    static final String LISTED_STORE = "fault-isolation-listed";
    static final String POLICY_STORE = "isolation-policy";
    static final String COUNTING = "counting";
    static final String VERDICT_SINK = "to-fault-verdicts";
    static final String ISOLATION_SINK = "to-isolation";
    static final String DEAD_LETTER_SINK = "to-dead-letter";
    static final StreamsDeadLetters DEAD_LETTERS = new StreamsDeadLetters(Verdicts.PRODUCER, DEAD_LETTER_SINK);

    private FaultTopology() {}

    /** The topology without metrics (tests, replay). */
    public static Topology build(FaultTopologyOptions options) {
        return build(options, new FalconMetrics(new SimpleMeterRegistry()));
    }

    public static Topology build(FaultTopologyOptions options, FalconMetrics metrics) {
        Topology topology = new Topology();
        var bytes = Serdes.ByteArray().deserializer();
        var keys = Serdes.String().deserializer();

        CurrentPolicy policy = new CurrentPolicy();
        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(
                                Stores.inMemoryKeyValueStore(POLICY_STORE),
                                Serdes.String(),
                                JsonSerde.of(IsolationPolicy.class))
                        .withLoggingDisabled(),
                "policy-source",
                keys,
                bytes,
                Topics.ISOLATION_POLICY.name(),
                "policy",
                () -> new PolicyProcessor(policy));

        topology.addSource("faults", new RecentKeys(), bytes, Topics.DEVICE_FAULTS.name());
        topology.addProcessor("job-window", () -> new JobWindowProcessor(options, policy, metrics), "faults");
        topology.addStateStore(heldPages(options), "job-window");
        // the decided rounds a late fault is judged by, rewritten by every decision round of a job: at the commit
        topology.addStateStore(commitTimeBytes(options, ROUNDS_STORE), "job-window");

        // falcon.fault-counting is only read: versions before the single stage wrote the faults the job window
        // counted there (compact binary, keyed by cluster), and what they left in flight is still counted
        topology.addSource("counting-in", keys, bytes, Topics.ISOLATION_COMMANDS.name(), Topics.FAULT_COUNTING.name());
        topology.addProcessor(
                COUNTING, () -> new CountingProcessor(options, policy, metrics), "job-window", "counting-in");
        topology.addStateStore(store(options, COUNTER_STORE, BinaryCodec.faultTimes()), COUNTING);
        // written at the commit: a node's state is rewritten on every fault of one of its isolated devices (the
        // device's last fault time, for auto-release), and only its value at the commit needs to reach the changelog
        topology.addStateStore(CommitTimeStore.builder(store(options, NODE_STORE, BinaryCodec.nodeStates())), COUNTING);
        topology.addStateStore(store(options, CANDIDATE_STORE, JsonSerde.of(StoredValues.Candidates.class)), COUNTING);
        // what the executor read from the clusters' ConfigMaps (devices others listed) and the devices released
        // since, against stale listings
        topology.addStateStore(store(options, LISTED_STORE, JsonSerde.of(StoredValues.Listed.class)), COUNTING);
        addSink(topology, ISOLATION_SINK, Topics.ISOLATION, COUNTING);

        addSink(topology, VERDICT_SINK, Topics.FAULT_VERDICTS, "job-window", COUNTING);
        addSink(topology, DEAD_LETTER_SINK, Topics.DEAD_LETTER, "job-window", COUNTING);
        return topology;
    }

    private static <V> StoreBuilder<KeyValueStore<String, V>> store(
            FaultTopologyOptions options, String name, Serde<V> values) {
        var supplier =
                options.inMemoryStores() ? Stores.inMemoryKeyValueStore(name) : Stores.persistentKeyValueStore(name);
        // not cached unless the caller asks: the processors keep what they read often decoded themselves, and a
        // counter is rarely written twice between two commits, so the cache would only add copying
        return Stores.keyValueStoreBuilder(supplier, Serdes.String(), values).withLoggingEnabled(Map.of());
    }

    /**
     * The job window's pages of held faults ({@link HeldPage}), written when the task commits
     * ({@link CommitTimeStore}): a page changes with every fault added to it and every decision round, and only
     * its value at the commit needs to reach the changelog.
     */
    private static StoreBuilder<CommitTimeStore<byte[]>> heldPages(FaultTopologyOptions options) {
        return commitTimeBytes(options, PENDING_STORE);
    }

    private static StoreBuilder<CommitTimeStore<byte[]>> commitTimeBytes(FaultTopologyOptions options, String name) {
        var supplier =
                options.inMemoryStores() ? Stores.inMemoryKeyValueStore(name) : Stores.persistentKeyValueStore(name);
        return CommitTimeStore.builder(Stores.keyValueStoreBuilder(supplier, Serdes.String(), Serdes.ByteArray())
                .withLoggingEnabled(Map.of()));
    }

    @SuppressWarnings("unchecked")
    private static <V> void addSink(Topology topology, String name, Topic<String, V> topic, String... parents) {
        Serializer<Object> values =
                (Serializer<Object>) (Serializer<?>) topic.valueSerde().serializer();
        topology.addSink(name, topic.name(), topic.keySerde().serializer(), values, parents);
    }
}
