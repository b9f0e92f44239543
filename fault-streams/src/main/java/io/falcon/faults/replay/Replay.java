package io.falcon.faults.replay;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.falcon.events.Json;
import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.faults.topology.FaultTopology;
import io.falcon.faults.topology.FaultTopologyOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * Runs the real fault topology in a TopologyTestDriver over a trace of faults, with the wall clock following the
 * trace's receive times, and emits every verdict and isolation change as a JSON line. Operators backtest a
 * policy with it; tests and the throughput harness drive the topology through it too.
 */
public final class Replay implements AutoCloseable {
    private final TopologyTestDriver driver;
    private final TestInputTopic<String, DeviceFault> faults;
    private final TestInputTopic<String, IsolationPolicy> policies;
    private final TestOutputTopic<String, FaultVerdict> verdicts;
    private final TestOutputTopic<String, NodeIsolation> isolations;
    private final FaultTopologyOptions options;
    private final Consumer<String> out;
    private final Path stateDir;
    private Instant wallClock;
    private long verdictCount;
    private long isolationCount;

    public Replay(FaultTopologyOptions options, IsolationPolicy policy, Instant start, Consumer<String> out) {
        this.options = options;
        this.out = out;
        try {
            stateDir = Files.createTempDirectory("falcon-fault-replay");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "fault-replay");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "replay:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        wallClock = start;
        driver = new TopologyTestDriver(FaultTopology.build(options), props, start);
        var keys = Serdes.String();
        faults = driver.createInputTopic(
                Topics.DEVICE_FAULTS.name(),
                keys.serializer(),
                Topics.DEVICE_FAULTS.valueSerde().serializer());
        policies = driver.createInputTopic(
                Topics.ISOLATION_POLICY.name(),
                keys.serializer(),
                Topics.ISOLATION_POLICY.valueSerde().serializer());
        verdicts = driver.createOutputTopic(
                Topics.FAULT_VERDICTS.name(),
                keys.deserializer(),
                Topics.FAULT_VERDICTS.valueSerde().deserializer());
        isolations = driver.createOutputTopic(
                Topics.ISOLATION.name(),
                keys.deserializer(),
                Topics.ISOLATION.valueSerde().deserializer());
        policies.pipeInput(IsolationPolicy.KEY, policy);
    }

    /** Reads a JSON-lines trace (one DeviceFault per line; blank lines and # comments skipped), in time order. */
    public static Stream<DeviceFault> readTrace(Path trace) throws IOException {
        var mapper = Json.mapper();
        return Files.readAllLines(trace).stream()
                .map(String::trim)
                .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                .map(line -> {
                    try {
                        return mapper.readValue(line, DeviceFault.class);
                    } catch (IOException e) {
                        throw new IllegalArgumentException("bad trace line: " + line + ": " + e.getMessage(), e);
                    }
                })
                .sorted(Comparator.comparingLong(DeviceFault::receiveTimeMs));
    }

    /** Advances the clock to the fault's receive time, then feeds it. */
    public void feed(DeviceFault fault) {
        advanceTo(Instant.ofEpochMilli(fault.receiveTimeMs()));
        faults.pipeInput(fault.topicKey(), fault);
        drain();
    }

    /** Feeds without draining the outputs (throughput harness). */
    public void feedQuietly(DeviceFault fault) {
        Instant at = Instant.ofEpochMilli(fault.receiveTimeMs());
        if (at.isAfter(wallClock)) {
            driver.advanceWallClockTime(Duration.between(wallClock, at));
            wallClock = at;
        }
        faults.pipeInput(fault.topicKey(), fault);
    }

    public void advanceTo(Instant at) {
        if (at.isAfter(wallClock)) {
            driver.advanceWallClockTime(Duration.between(wallClock, at));
            wallClock = at;
            drain();
        }
    }

    /** Lets every pending job window close (and one release check run), then drains. */
    public void finish() {
        advanceTo(wallClock
                .plus(options.jobWindow())
                .plus(options.grace())
                .plus(options.decideInterval())
                .plusSeconds(1));
        advanceTo(wallClock.plus(options.releaseCheckInterval()));
    }

    public void drain() {
        while (!verdicts.isEmpty()) {
            FaultVerdict verdict = verdicts.readValue();
            verdictCount++;
            ObjectNode node = Json.mapper().createObjectNode();
            node.put("kind", "verdict");
            node.set("verdict", Json.mapper().valueToTree(verdict));
            out.accept(node.toString());
        }
        while (!isolations.isEmpty()) {
            var record = isolations.readRecord();
            isolationCount++;
            ObjectNode node = Json.mapper().createObjectNode();
            node.put("kind", "isolation");
            node.put("key", record.key());
            if (record.value() == null) {
                node.putNull("value");
            } else {
                node.set("value", Json.mapper().valueToTree(record.value()));
            }
            out.accept(node.toString());
        }
    }

    public long verdictCount() {
        return verdictCount;
    }

    public long isolationCount() {
        return isolationCount;
    }

    public TopologyTestDriver driver() {
        return driver;
    }

    @Override
    public void close() {
        driver.close();
        try (Stream<Path> files = Files.walk(stateDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp dir
        }
    }
}
