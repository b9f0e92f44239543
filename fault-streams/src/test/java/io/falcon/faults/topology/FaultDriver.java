package io.falcon.faults.topology;

import io.falcon.events.DeadLetter;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.fault.NodeIsolation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/** The real topology in a TopologyTestDriver, with a hand-driven wall clock and typed inputs/outputs. */
final class FaultDriver implements AutoCloseable {
    static final Instant START = Instant.parse("2026-12-02T10:00:00Z");
    static final String CLUSTER = "c1";

    final TopologyTestDriver driver;
    final TestInputTopic<String, DeviceFault> faults;
    final TestInputTopic<String, byte[]> rawFaults;
    final TestInputTopic<String, IsolationPolicy> policies;
    final TestInputTopic<String, byte[]> rawPolicies;
    final TestInputTopic<String, IsolationCommand> commands;
    final TestInputTopic<String, byte[]> rawCommands;
    final TestOutputTopic<String, FaultVerdict> verdicts;
    final TestOutputTopic<String, NodeIsolation> isolations;
    final TestOutputTopic<String, DeadLetter> deadLetters;
    private final List<FaultVerdict> seenVerdicts = new ArrayList<>();
    private Instant now = START;

    FaultDriver(FaultTopologyOptions options) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "fault-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        Path dir = Files.createTempDirectory("fault-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
        driver = new TopologyTestDriver(FaultTopology.build(options), props, START);
        var keys = Serdes.String();
        faults = driver.createInputTopic(
                Topics.DEVICE_FAULTS.name(),
                keys.serializer(),
                Topics.DEVICE_FAULTS.valueSerde().serializer());
        rawFaults = driver.createInputTopic(
                Topics.DEVICE_FAULTS.name(),
                keys.serializer(),
                Serdes.ByteArray().serializer());
        policies = driver.createInputTopic(
                Topics.ISOLATION_POLICY.name(),
                keys.serializer(),
                Topics.ISOLATION_POLICY.valueSerde().serializer());
        rawPolicies = driver.createInputTopic(
                Topics.ISOLATION_POLICY.name(),
                keys.serializer(),
                Serdes.ByteArray().serializer());
        commands = driver.createInputTopic(
                Topics.ISOLATION_COMMANDS.name(),
                keys.serializer(),
                Topics.ISOLATION_COMMANDS.valueSerde().serializer());
        rawCommands = driver.createInputTopic(
                Topics.ISOLATION_COMMANDS.name(),
                keys.serializer(),
                Serdes.ByteArray().serializer());
        verdicts = driver.createOutputTopic(
                Topics.FAULT_VERDICTS.name(),
                keys.deserializer(),
                Topics.FAULT_VERDICTS.valueSerde().deserializer());
        isolations = driver.createOutputTopic(
                Topics.ISOLATION.name(),
                keys.deserializer(),
                Topics.ISOLATION.valueSerde().deserializer());
        deadLetters = driver.createOutputTopic(
                Topics.DEAD_LETTER.name(),
                keys.deserializer(),
                Topics.DEAD_LETTER.valueSerde().deserializer());
    }

    static IsolationPolicy policy(
            long version, boolean enabled, int windowHours, int threshold, int freeHours, boolean dryRun, int budget) {
        return new IsolationPolicy(
                Meta.of("test", START), version, enabled, windowHours, threshold, freeHours, dryRun, budget);
    }

    static IsolationPolicy policy(long version, int windowHours, int threshold, int freeHours) {
        return policy(version, true, windowHours, threshold, freeHours, false, 0);
    }

    void publish(IsolationPolicy policy) {
        policies.pipeInput(IsolationPolicy.KEY, policy);
    }

    /** A fault at START + offset. */
    static DeviceFault fault(String job, String node, String device, String code, Duration offset) {
        return DeviceFault.of(
                CLUSTER,
                node,
                device,
                code,
                Optional.ofNullable(job),
                START.plus(offset).toEpochMilli());
    }

    void send(DeviceFault fault) {
        faults.pipeInput(fault.topicKey(), fault);
    }

    void release(String node, String device) {
        commands.pipeInput(
                CLUSTER,
                new IsolationCommand.Release(
                        Meta.of("test", now),
                        CLUSTER,
                        node,
                        device,
                        "operator removed it from clusterd-manual-info-cm"));
    }

    /** Moves the wall clock (punctuators fire). */
    void advance(Duration by) {
        driver.advanceWallClockTime(by);
        now = now.plus(by);
    }

    /** All verdicts produced so far (reads new ones from the topic). */
    List<FaultVerdict> verdicts() {
        seenVerdicts.addAll(verdicts.readValuesToList());
        return List.copyOf(seenVerdicts);
    }

    List<FaultVerdict> verdicts(FaultVerdict.Outcome outcome) {
        return verdicts().stream().filter(v -> v.outcome() == outcome).toList();
    }

    List<KeyValue<String, NodeIsolation>> isolations() {
        return isolations.readKeyValuesToList();
    }

    /** How many entries the named state store holds now. */
    long entries(String store) {
        long count = 0;
        try (var all = driver.getKeyValueStore(store).all()) {
            while (all.hasNext()) {
                all.next();
                count++;
            }
        }
        return count;
    }

    /**
     * What the commits wrote to a store's changelog topic so far, in order, decoded with the given deserializer:
     * read without going through the store (whose reads would write what waits for the commit).
     */
    <V> List<KeyValue<String, V>> changelog(
            String store, org.apache.kafka.common.serialization.Deserializer<V> values) {
        return driver.createOutputTopic(
                        "fault-test-" + store + "-changelog", Serdes.String().deserializer(), values)
                .readKeyValuesToList();
    }

    /** How many faults the job window's pages hold now. */
    long heldFaults() {
        long count = 0;
        try (var all = driver.<String, byte[]>getKeyValueStore(FaultTopology.PENDING_STORE)
                .all()) {
            while (all.hasNext()) {
                count += HeldPage.decode(all.next().value).size();
            }
        }
        return count;
    }

    @Override
    public void close() {
        driver.close();
    }
}
