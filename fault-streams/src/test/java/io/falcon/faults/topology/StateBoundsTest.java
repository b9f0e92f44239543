package io.falcon.faults.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.JsonSerde;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.faults.core.Candidate;
import io.falcon.faults.core.FaultIntake;
import io.falcon.faults.core.FrequencyRule;
import io.falcon.faults.core.JobWindow;
import io.falcon.faults.core.NodeIsolationState;
import io.falcon.faults.core.PolicyRules;
import io.falcon.faults.core.Released;
import io.falcon.faults.core.StateBounds;
import io.falcon.faults.core.Verdicts;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The worst case of every value fault-streams stores or produces, derived from the bounds: each built at its bounds
 * with every name at its longest and of 3-byte characters (the most UTF-8 and Java's modified UTF-8 spend on a
 * character; JSON escapes only the control characters the intake refuses, and quotes in 2 bytes), encoded with the
 * store's or the topic's own codec, and with its key under {@link StateBounds#MAX_VALUE_BYTES}, half of Kafka's
 * default max.message.bytes (1 MB). The sizes are those docs/fault-streams.md lists.
 */
class StateBoundsTest {
    /** A CJK character: 3 bytes in UTF-8 and in modified UTF-8. */
    private static final char WIDE = '\u754C';

    private static final long AT = Instant.parse("2026-12-02T10:00:00Z").toEpochMilli();
    private static final IsolationPolicy POLICY = PolicyRules.defaultPolicy();
    private static final Map<String, Integer> SIZES = new LinkedHashMap<>();

    /** A name of exactly length characters, distinct by i, of 3-byte characters. */
    private static String wide(String tag, int i, int length) {
        String prefix = tag + i + "-";
        return prefix + String.valueOf(WIDE).repeat(length - prefix.length());
    }

    /** A node name at its longest (a node name is a ConfigMap key: ASCII). */
    private static String node(int i) {
        String prefix = "node-" + i + "-";
        return prefix + "n".repeat(FaultIntake.MAX_NODE_NAME - prefix.length());
    }

    /** A fault with every string at its bound; it passes the intake. */
    private static DeviceFault fault(int i) {
        int max = FaultIntake.MAX_NAME;
        DeviceFault fault = new DeviceFault(
                new Meta(wide("e", i, max), Instant.ofEpochMilli(AT), wide("p", i, max)),
                wide("c", 0, FaultIntake.MAX_CLUSTER_ID),
                node(i),
                wide("d", i, max),
                wide("f", i, max),
                Optional.of(wide("l", i, max)),
                Optional.of(wide("j", 0, max)),
                AT + i);
        assertThat(FaultIntake.problem(fault, AT))
                .as("the intake admits the worst case")
                .isEmpty();
        return fault;
    }

    private static void assertUnderTheBound(String what, byte[] key, byte[] value) {
        int size = (key == null ? 0 : key.length) + value.length;
        SIZES.put(what, size);
        assertThat(size).as(what + ": key and value bytes").isLessThan(StateBounds.MAX_VALUE_BYTES);
    }

    private static byte[] utf8(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aPageOfHeldFaults() {
        HeldPage page = new HeldPage(HeldPage.key(Long.MAX_VALUE));
        for (int i = 0; i < HeldPage.SIZE; i++) {
            page.add(BinaryCodec.encode(fault(i)));
        }
        assertThat(page.full()).isTrue();
        assertUnderTheBound("fault-window-pending page", utf8(page.key()), page.encode());
    }

    @Test
    void theDecidedRoundsOfOneCodeOfAJob() {
        DeviceFault first = fault(0);
        List<JobWindow.Round> rounds = new ArrayList<>();
        for (int i = 0; i < StateBounds.MAX_ROUNDS_PER_JOB_CODE; i++) {
            rounds.add(new JobWindow.Round(
                    first.faultCode(),
                    AT + i,
                    fault(i).deviceRef(),
                    AT + i + 1,
                    fault(i + 1).deviceRef()));
        }
        String key =
                StoreKeys.jobCode(StoreKeys.job(first.clusterId(), first.jobId().orElseThrow()), first.faultCode());
        assertUnderTheBound("fault-window-rounds (job, code)", utf8(key), BinaryCodec.encodeRounds(rounds));
    }

    @Test
    void aNodesIsolationStateAndItsRecordOnTheIsolationTopic() {
        DeviceFault any = fault(0);
        NodeIsolationState node = NodeIsolationState.empty(any.clusterId(), any.nodeName());
        for (int d = 0; d < StateBounds.MAX_ISOLATED_DEVICES_PER_NODE; d++) {
            List<NodeIsolation.DeviceIsolation> codes = new ArrayList<>();
            for (int c = 0; c < StateBounds.MAX_CODES_PER_DEVICE; c++) {
                // adopted from a listing, whose levels are any name (isolating writes ManuallySeparateNPU)
                codes.add(new NodeIsolation.DeviceIsolation(
                        wide("f", c, FaultIntake.MAX_NAME), wide("l", c, FaultIntake.MAX_NAME), AT));
            }
            node = node.adopt(wide("d", d, FaultIntake.MAX_NAME), codes, AT);
        }
        assertThat(node.isolationProblem(wide("d", 99, FaultIntake.MAX_NAME), "C"))
                .isPresent();
        assertThat(node.isolationProblem(wide("d", 0, FaultIntake.MAX_NAME), "C"))
                .isPresent();
        assertUnderTheBound(
                "fault-isolation-nodes",
                utf8(StoreKeys.node(node.clusterId(), node.nodeName())),
                BinaryCodec.encode(node));
        assertUnderTheBound(
                "falcon.isolation",
                utf8(node.key()),
                Topics.ISOLATION.valueSerde().toBytes(node.toWire()));
    }

    @Test
    void aClustersBudgetCandidates() {
        List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < StateBounds.MAX_CANDIDATES_PER_CLUSTER; i++) {
            candidates.add(new Candidate(fault(i), AT, AT + i));
        }
        byte[] value = JsonSerde.of(StoredValues.Candidates.class)
                .serializer()
                .serialize("", new StoredValues.Candidates(candidates));
        assertUnderTheBound("fault-isolation-candidates", utf8(fault(0).clusterId()), value);
    }

    @Test
    void theDevicesOthersListAndFalconReleasedInACluster() {
        Map<String, List<String>> byOthers = new TreeMap<>();
        // every device on a node of its own: the most node names
        for (int i = 0; i < StateBounds.MAX_LISTED_BY_OTHERS_PER_CLUSTER; i++) {
            byOthers.put(node(i), List.of(wide("d", i, FaultIntake.MAX_NAME)));
        }
        List<Released> released = new ArrayList<>();
        for (int i = 0; i < StateBounds.MAX_RELEASED_PER_CLUSTER; i++) {
            released.add(new Released(node(i), wide("d", i, FaultIntake.MAX_NAME), AT, AT));
        }
        byte[] value = JsonSerde.of(StoredValues.Listed.class)
                .serializer()
                .serialize("", new StoredValues.Listed(byOthers, released));
        assertUnderTheBound("fault-isolation-listed", utf8(fault(0).clusterId()), value);
    }

    @Test
    void theFaultTimesOfACounter() {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < FrequencyRule.MAX_KEPT; i++) {
            times.add(AT + i);
        }
        DeviceFault f = fault(0);
        String key = StoreKeys.counter(io.falcon.faults.core.CounterKey.of(f));
        assertUnderTheBound(
                "fault-counters",
                utf8(key),
                BinaryCodec.faultTimes().serializer().serialize("", new StoredValues.FaultTimes(times)));
    }

    @Test
    void aVerdictAboutAFaultAndAboutADevice() {
        DeviceFault f = fault(0);
        List<String> peers = new ArrayList<>();
        for (int i = 1; i <= JobWindow.MAX_PEERS_LISTED; i++) {
            peers.add(fault(i).deviceRef());
        }
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < FrequencyRule.MAX_KEPT; i++) {
            times.add(AT + i);
        }
        // the longest explanation: the software fault's, which names the code and the job
        String explanation = "code " + f.faultCode() + " also on " + Integer.MAX_VALUE + " other device(s) of job "
                + f.jobId().orElseThrow() + " within " + Long.MAX_VALUE
                + "s, in a window decided before this fault arrived: software fault, not counted";
        FaultVerdict verdict = Verdicts.about(
                f, FaultVerdict.Outcome.SOFTWARE_FAULT, POLICY, peers, Integer.MAX_VALUE, times, explanation, AT);
        assertUnderTheBound(
                "falcon.fault-verdicts (fault)",
                utf8(NodeIsolation.key(f.clusterId(), f.nodeName())),
                Topics.FAULT_VERDICTS.valueSerde().toBytes(verdict));

        List<String> codes = new ArrayList<>();
        for (int c = 0; c < StateBounds.MAX_CODES_PER_DEVICE; c++) {
            codes.add(wide("f", c, FaultIntake.MAX_NAME));
        }
        String reason = String.valueOf(WIDE).repeat(StateBounds.MAX_REASON);
        FaultVerdict release = Verdicts.aboutDevice(
                f.clusterId(),
                f.nodeName(),
                f.deviceName(),
                String.join(",", codes),
                FaultVerdict.Outcome.RELEASED_BY_OPERATOR,
                POLICY,
                reason + "; counters of " + f.nodeName() + "/" + f.deviceName() + " cleared",
                AT);
        assertUnderTheBound(
                "falcon.fault-verdicts (release)",
                utf8(NodeIsolation.key(f.clusterId(), f.nodeName())),
                Topics.FAULT_VERDICTS.valueSerde().toBytes(release));
    }

    @Test
    void aDeadLetterOfAnOversizedRecordWithAnOversizedKeyAndReason() {
        var context = new org.apache.kafka.streams.processor.api.MockProcessorContext<String, Object>();
        context.setRecordMetadata(Topics.DEVICE_FAULTS.name(), 2, Long.MAX_VALUE);
        context.setCurrentSystemTimeMs(AT);
        // control characters: JSON writes each as a 6-byte escape
        String key = "\u0001".repeat(1_000_000);
        String reason = "\u0001".repeat(1_000_000);
        FaultTopology.DEAD_LETTERS.send(
                new org.apache.kafka.streams.processor.api.Record<>(key, new byte[10 * 1024 * 1024], AT),
                context,
                reason,
                new IllegalStateException(reason));
        var forwarded = context.forwarded().get(0).record();
        byte[] value = Topics.DEAD_LETTER.valueSerde().toBytes((io.falcon.events.DeadLetter) forwarded.value());
        assertUnderTheBound("falcon.dead-letter", utf8(forwarded.key()), value);
    }

    @org.junit.jupiter.api.AfterAll
    static void report() {
        // the figures docs/fault-streams.md quotes
        SIZES.forEach((what, size) -> System.out.printf("worst case %-35s %,9d bytes%n", what, size));
    }
}
