package io.falcon.faults.topology;

import static io.falcon.faults.topology.FaultDriver.fault;
import static io.falcon.faults.topology.FaultDriver.policy;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.NodeIsolation;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the executor reads from a cluster's clusterd-manual-info-cm reaches fault-streams' state on
 * falcon.isolation-commands: devices others listed use the cluster's budget, and devices Falcon isolated before its
 * state was lost are adopted (published again with their node, released as Falcon's own).
 */
class ConfigMapListingTest {
    private static final String AIC = "8C084E00";
    private static final long SEPARATED = 1770811685650L;

    private FaultDriver d;

    @BeforeEach
    void start() throws Exception {
        d = new FaultDriver(FaultTopologyOptions.defaults().withInMemoryStores(true));
    }

    @AfterEach
    void stop() {
        d.close();
    }

    /** The executor's JSON, as it writes it (so this reads the wire contract, not only the Java records). */
    private void executorSends(String json) {
        d.rawCommands.pipeInput(FaultDriver.CLUSTER, json.getBytes(StandardCharsets.UTF_8));
    }

    private static final String META =
            "\"meta\":{\"eventId\":\"e-1\",\"occurredAt\":\"2026-12-02T10:00:00Z\",\"producer\":\"executor\"}";

    @Test
    void devicesOthersListedInTheConfigMapUseTheClustersBudget() {
        d.publish(policy(1, true, 24, 1, -1, false, 1));
        executorSends("{\"type\":\"ListedByOthers\"," + META + ",\"clusterId\":\"c1\",\"devices\":{\"n5\":[\"d3\"]}}");
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));

        assertThat(d.deadLetters.readValuesToList()).isEmpty();
        assertThat(d.verdicts(Outcome.HELD_BY_BUDGET))
                .singleElement()
                .satisfies(v -> assertThat(v.evidence().explanation()).contains("already has 1 isolated devices"));
        assertThat(d.isolations()).isEmpty();
    }

    @Test
    void devicesFalconIsolatedBeforeItsStateWasLostAreAdoptedAndPublishedWithTheirNode() {
        d.publish(policy(1, 24, 1, -1));
        executorSends("{\"type\":\"ListedByFalcon\"," + META + ",\"clusterId\":\"c1\",\"nodeName\":\"n1\","
                + "\"devices\":{\"Total\":[\"d0\"],\"Detail\":{\"d0\":[{\"FaultCode\":\"" + AIC
                + "\",\"FaultLevel\":\"ManuallySeparateNPU\",\"LastSeparateTime\":" + SEPARATED + "}]}}}");
        d.send(fault(null, "n1", "d1", AIC, ofSeconds(0)));

        assertThat(d.deadLetters.readValuesToList()).isEmpty();
        List<KeyValue<String, NodeIsolation>> isolations = d.isolations();
        // the last state of n1 holds both: publishing n1 with d1 alone would make the executor remove d0
        assertThat(isolations).last().satisfies(kv -> {
            assertThat(kv.key).isEqualTo("c1/n1");
            assertThat(kv.value.total()).containsExactly("d0", "d1");
            assertThat(kv.value.detail().get("d0"))
                    .containsExactly(
                            new NodeIsolation.DeviceIsolation(AIC, NodeIsolation.MANUALLY_SEPARATE_NPU, SEPARATED));
        });
    }

    private void listedByOthers(java.util.Map<String, List<String>> devices) {
        d.commands.pipeInput(
                FaultDriver.CLUSTER,
                new IsolationCommand.ListedByOthers(
                        Meta.of("executor", FaultDriver.START), FaultDriver.CLUSTER, devices));
    }

    private void listedByFalcon(String node, NodeIsolation devices) {
        d.commands.pipeInput(
                FaultDriver.CLUSTER,
                new IsolationCommand.ListedByFalcon(
                        Meta.of("executor", FaultDriver.START), FaultDriver.CLUSTER, node, devices));
    }

    private static NodeIsolation isolated(String device, long separatedMs) {
        return new NodeIsolation(
                List.of(device),
                java.util.Map.of(
                        device,
                        List.of(new NodeIsolation.DeviceIsolation(
                                AIC, NodeIsolation.MANUALLY_SEPARATE_NPU, separatedMs))));
    }

    @Test
    void aDeviceOthersListedNeedsNoBudgetToReachTheThresholdAndIsCountedOnce() {
        d.publish(policy(1, true, 24, 1, -1, false, 2));
        listedByOthers(java.util.Map.of("n1", List.of("d0"), "n2", List.of("d1")));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        assertThat(d.verdicts(Outcome.ISOLATED))
                .singleElement()
                .satisfies(v -> assertThat(v.evidence().explanation())
                        .startsWith("isolated (already listed in the ConfigMap by others)"));

        // n1/d0 is Falcon's now too, and still one device of the two the budget allows
        d.send(fault(null, "n3", "d0", AIC, ofSeconds(1)));
        assertThat(d.verdicts(Outcome.HELD_BY_BUDGET)).hasSize(1);
    }

    @Test
    void aShorterListingFreesBudgetForAHeldCandidate() {
        d.publish(policy(1, true, 24, 1, -1, false, 1));
        listedByOthers(java.util.Map.of("n5", List.of("d3")));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        assertThat(d.verdicts(Outcome.HELD_BY_BUDGET)).hasSize(1);

        listedByOthers(java.util.Map.of()); // the operator took n5/d3 out of the ConfigMap
        assertThat(d.verdicts(Outcome.ISOLATED))
                .singleElement()
                .satisfies(v -> assertThat(v.deviceName()).isEqualTo("d0"));
        assertThat(d.isolations()).extracting(kv -> kv.key).containsExactly("c1/n1");
    }

    @Test
    void aListingIsIdempotentAndAnAdoptedDeviceIsReleasedAsFalconsOwn() {
        d.publish(policy(1, 24, 1, -1));
        listedByFalcon("n1", isolated("d0", SEPARATED));
        listedByFalcon("n1", isolated("d0", SEPARATED));
        assertThat(d.isolations()).hasSize(1);
        assertThat(d.entries(FaultTopology.NODE_STORE)).isEqualTo(1);

        d.release("n1", "d0");
        assertThat(d.verdicts(Outcome.RELEASED_BY_OPERATOR))
                .singleElement()
                .satisfies(v -> assertThat(v.faultCode()).isEqualTo(AIC));
        assertThat(d.isolations())
                .singleElement()
                .satisfies(kv -> assertThat(kv.value).isNull());
    }

    @Test
    void aListingReadBeforeTheExecutorAppliedAReleaseDoesNotAdoptTheDeviceAgain() {
        d.publish(policy(1, 24, 1, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        long separated = FaultDriver.START.toEpochMilli();
        assertThat(d.isolations()).hasSize(1);
        d.release("n1", "d0");
        assertThat(d.isolations())
                .singleElement()
                .satisfies(kv -> assertThat(kv.value).isNull());

        // read from the ConfigMap before the executor removed d0 (another replica, or a resync in flight)
        listedByFalcon("n1", isolated("d0", separated));
        assertThat(d.isolations()).isEmpty();
        assertThat(d.entries(FaultTopology.NODE_STORE)).isZero();

        // an isolation newer than the release is not a stale one (fault-streams lost its state after it)
        listedByFalcon("n1", isolated("d0", separated + 60_000));
        assertThat(d.isolations())
                .singleElement()
                .satisfies(kv -> assertThat(kv.value.total()).containsExactly("d0"));
    }

    @Test
    void whatTheListingsKeepGoesAwayWhenNothingIsListedAndReleasesAreOlderThanTheLargestWindow() {
        d.publish(policy(1, 24, 1, -1));
        listedByOthers(java.util.Map.of("n5", List.of("d3")));
        assertThat(d.entries(FaultTopology.LISTED_STORE)).isEqualTo(1);
        listedByOthers(java.util.Map.of("n5", List.of()));
        assertThat(d.entries(FaultTopology.LISTED_STORE)).isZero();

        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.release("n1", "d0");
        assertThat(d.entries(FaultTopology.LISTED_STORE)).isEqualTo(1);
        d.advance(java.time.Duration.ofHours(721));
        assertThat(d.entries(FaultTopology.LISTED_STORE)).isZero();
    }
}
