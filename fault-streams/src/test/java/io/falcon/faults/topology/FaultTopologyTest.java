package io.falcon.faults.topology;

import static io.falcon.faults.topology.FaultDriver.fault;
import static io.falcon.faults.topology.FaultDriver.policy;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Json;
import io.falcon.events.Topics;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.NodeIsolation;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultTopologyTest {
    private static final String AIC = "8C084E00";
    private static final String HBM = "80E18402";

    private FaultDriver d;

    @BeforeEach
    void start() throws Exception {
        d = new FaultDriver(FaultTopologyOptions.defaults().withInMemoryStores(true));
    }

    @AfterEach
    void stop() {
        d.close();
    }

    private void windowPasses() {
        d.advance(ofSeconds(36));
    }

    @Test
    void sameCodeOnAnotherDeviceOfTheJobWithinTheWindowIsASoftwareFaultAndNotCounted() {
        d.publish(policy(1, 24, 1, -1));
        d.send(fault("job-1", "n1", "Ascend910-0", AIC, ofSeconds(0)));
        d.send(fault("job-1", "n2", "Ascend910-3", AIC, ofSeconds(20)));
        windowPasses();

        List<FaultVerdict> software = d.verdicts(Outcome.SOFTWARE_FAULT);
        assertThat(software).hasSize(2);
        assertThat(software.get(0).deviceName()).isEqualTo("Ascend910-0");
        assertThat(software.get(0).evidence().peerDevices()).containsExactly("n2/Ascend910-3");
        assertThat(software.get(0).evidence().policyVersion()).isEqualTo(1);
        assertThat(software.get(1).evidence().peerDevices()).containsExactly("n1/Ascend910-0");
        assertThat(d.verdicts()).hasSize(2);
        assertThat(d.isolations()).isEmpty();
    }

    @Test
    void theJobWindowIsNotDecidedBeforeItsWindowAndGraceHavePassed() {
        d.send(fault("job-1", "n1", "Ascend910-0", AIC, ofSeconds(0)));
        d.advance(ofSeconds(34));
        assertThat(d.verdicts()).isEmpty();
        d.advance(ofSeconds(2));
        assertThat(d.verdicts(Outcome.COUNTED)).hasSize(1);
    }

    @Test
    void anIdlePartitionStillDecidesThroughThePunctuator() {
        d.send(fault("job-1", "n1", "Ascend910-0", AIC, ofSeconds(0)));
        // no further record: only the wall clock moves
        for (int i = 0; i < 40; i++) {
            d.advance(ofSeconds(1));
        }
        assertThat(d.verdicts()).extracting(FaultVerdict::outcome).containsExactly(Outcome.COUNTED);
    }

    @Test
    void sameDeviceSameCodeFaultsInTheWindowAreCountedAndIsolateAtTheThreshold() {
        d.publish(policy(2, 24, 3, -1));
        d.send(fault("job-1", "n1", "Ascend910-0", AIC, ofSeconds(0)));
        d.send(fault("job-1", "n1", "Ascend910-0", AIC, ofSeconds(10)));
        d.send(fault("job-1", "n1", "Ascend910-0", AIC, ofSeconds(20)));
        windowPasses();

        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.COUNTED, Outcome.COUNTED, Outcome.ISOLATED);
        List<KeyValue<String, NodeIsolation>> isolations = d.isolations();
        assertThat(isolations).hasSize(1);
        assertThat(isolations.get(0).key).isEqualTo("c1/n1");
        long separated = FaultDriver.START.plusSeconds(20).toEpochMilli();
        String json = new String(
                io.falcon.events.Topics.ISOLATION.valueSerde().toBytes(isolations.get(0).value),
                StandardCharsets.UTF_8);
        assertThat(json)
                .isEqualTo("{\"Total\":[\"Ascend910-0\"],\"Detail\":{\"Ascend910-0\":[{\"FaultCode\":\"" + AIC
                        + "\",\"FaultLevel\":\"ManuallySeparateNPU\",\"LastSeparateTime\":" + separated + "}]}}");
    }

    @Test
    void theRocksDbStoresOfProductionBehaveTheSame() throws Exception {
        try (FaultDriver persistent = new FaultDriver(FaultTopologyOptions.defaults())) {
            persistent.publish(policy(1, 24, 2, -1));
            persistent.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0)));
            persistent.send(fault("job-1", "n1", "d0", AIC, ofSeconds(1)));
            persistent.send(fault("job-2", "n1", "d1", AIC, ofSeconds(2)));
            persistent.send(fault("job-2", "n2", "d1", AIC, ofSeconds(3)));
            persistent.advance(ofSeconds(40));
            assertThat(persistent.verdicts())
                    .extracting(FaultVerdict::outcome)
                    .containsExactlyInAnyOrder(
                            Outcome.COUNTED, Outcome.ISOLATED, Outcome.SOFTWARE_FAULT, Outcome.SOFTWARE_FAULT);
            assertThat(persistent.driver.producedTopicNames())
                    .contains(
                            "fault-test-fault-counters-changelog",
                            "fault-test-fault-window-pending-changelog",
                            "fault-test-fault-isolation-nodes-changelog");
        }
    }

    @Test
    void aDifferentCodeOnAnotherDeviceIsNotASoftwareFault() {
        d.send(fault("job-1", "n1", "Ascend910-0", AIC, ofSeconds(0)));
        d.send(fault("job-1", "n1", "Ascend910-1", HBM, ofSeconds(5)));
        windowPasses();
        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsOnly(Outcome.COUNTED)
                .hasSize(2);
    }

    @Test
    void theSameCodeOnAnotherDeviceAfterTheWindowIsNotAPeer() {
        d.send(fault("job-1", "n1", "Ascend910-0", AIC, ofSeconds(0)));
        d.send(fault("job-1", "n2", "Ascend910-0", AIC, ofSeconds(31)));
        d.advance(ofSeconds(70));
        assertThat(d.verdicts()).extracting(FaultVerdict::outcome).containsExactly(Outcome.COUNTED, Outcome.COUNTED);
    }

    @Test
    void aSoftwareFaultDropsOnlyItsSameCodePeersAndTheRestIsDecidedNext() {
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault("job-1", "n1", "d0", HBM, ofSeconds(1)));
        d.send(fault("job-1", "n1", "d1", AIC, ofSeconds(2)));
        windowPasses();
        List<FaultVerdict> all = d.verdicts();
        assertThat(all)
                .filteredOn(v -> v.faultCode().equals(AIC))
                .extracting(FaultVerdict::outcome)
                .containsOnly(Outcome.SOFTWARE_FAULT)
                .hasSize(2);
        assertThat(all)
                .filteredOn(v -> v.faultCode().equals(HBM))
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.COUNTED);
    }

    @Test
    void faultsWithoutAJobAreCountedDirectly() {
        d.publish(policy(1, 24, 1, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        assertThat(d.verdicts()).extracting(FaultVerdict::outcome).containsExactly(Outcome.ISOLATED);
    }

    @Test
    void oneTaskDecidesAClusterWithoutARepartitionTopic() {
        var description = FaultTopology.build(FaultTopologyOptions.defaults()).describe();
        assertThat(description.subtopologies()).hasSize(1);
        List<String> sinks = description.subtopologies().iterator().next().nodes().stream()
                .filter(node -> node instanceof TopologyDescription.Sink)
                .map(node -> ((TopologyDescription.Sink) node).topic())
                .toList();
        assertThat(sinks).doesNotContain(Topics.FAULT_COUNTING.name()).contains(Topics.FAULT_VERDICTS.name());
    }

    @Test
    void aFaultAnEarlierVersionLeftOnTheCountingTopicIsStillCounted() {
        d.publish(policy(1, 24, 2, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        TestInputTopic<String, byte[]> legacy = d.driver.createInputTopic(
                Topics.FAULT_COUNTING.name(),
                Serdes.String().serializer(),
                Serdes.ByteArray().serializer());
        legacy.pipeInput(FaultDriver.CLUSTER, BinaryCodec.encode(fault("job-1", "n1", "d0", AIC, ofSeconds(1))));
        assertThat(d.verdicts()).extracting(FaultVerdict::outcome).containsExactly(Outcome.COUNTED, Outcome.ISOLATED);
    }

    @Test
    void faultsWithoutAJobAreNotCountedWhenConfiguredSo() throws Exception {
        try (FaultDriver skipping = new FaultDriver(
                FaultTopologyOptions.defaults().withCountJoblessFaults(false).withInMemoryStores(true))) {
            skipping.publish(policy(1, 24, 1, -1));
            skipping.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
            assertThat(skipping.verdicts())
                    .extracting(FaultVerdict::outcome)
                    .containsExactly(Outcome.NOT_COUNTED_NO_JOB);
            assertThat(skipping.isolations()).isEmpty();
        }
    }

    @Test
    void thresholdOneIsolatesAtOnceAndReIsolationRefreshesLastSeparateTime() {
        d.publish(policy(1, 24, 1, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault(null, "n1", "d0", AIC, ofMinutes(5)));
        assertThat(d.verdicts()).extracting(FaultVerdict::outcome).containsExactly(Outcome.ISOLATED, Outcome.ISOLATED);
        List<KeyValue<String, NodeIsolation>> isolations = d.isolations();
        assertThat(isolations).hasSize(2);
        assertThat(isolations.get(1).value.detail().get("d0"))
                .singleElement()
                .extracting(NodeIsolation.DeviceIsolation::lastSeparateTime)
                .isEqualTo(FaultDriver.START.plus(ofMinutes(5)).toEpochMilli());
    }

    @Test
    void theLastNMustFallWithinTheWindow() {
        d.publish(policy(1, 1, 3, -1));
        d.send(fault(null, "n1", "d0", AIC, ofMinutes(0)));
        d.send(fault(null, "n1", "d0", AIC, ofMinutes(40)));
        d.send(fault(null, "n1", "d0", AIC, ofMinutes(61)));
        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsOnly(Outcome.COUNTED)
                .hasSize(3);
        d.send(fault(null, "n1", "d0", AIC, ofMinutes(62)));
        assertThat(d.verdicts(Outcome.ISOLATED)).hasSize(1);
        assertThat(d.verdicts(Outcome.ISOLATED).get(0).evidence().recentFaultTimesMs())
                .hasSize(3);
    }

    @Test
    void theCounterIsClearedAfterIsolation() {
        d.publish(policy(1, 24, 2, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(1)));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(2)));
        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.COUNTED, Outcome.ISOLATED, Outcome.COUNTED);
    }

    @Test
    void countersAreKeptPerNodeDeviceAndCode() {
        d.publish(policy(1, 24, 2, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault(null, "n1", "d0", HBM, ofSeconds(1)));
        d.send(fault(null, "n1", "d1", AIC, ofSeconds(2)));
        d.send(fault(null, "n2", "d0", AIC, ofSeconds(3)));
        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsOnly(Outcome.COUNTED)
                .hasSize(4);
    }

    @Test
    void anOperatorReleaseRemovesTheDeviceAndClearsItsCounters() {
        d.publish(policy(1, 24, 2, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(1)));
        d.send(fault(null, "n1", "d0", HBM, ofSeconds(2)));
        assertThat(d.isolations()).hasSize(1);

        d.release("n1", "d0");
        assertThat(d.verdicts(Outcome.RELEASED_BY_OPERATOR))
                .singleElement()
                .satisfies(v -> assertThat(v.faultCode()).isEqualTo(AIC));
        List<KeyValue<String, NodeIsolation>> after = d.isolations();
        assertThat(after).singleElement().satisfies(kv -> {
            assertThat(kv.key).isEqualTo("c1/n1");
            assertThat(kv.value).isNull();
        });
        // The HBM counter (1 fault) was cleared: one more HBM fault does not reach 2.
        d.send(fault(null, "n1", "d0", HBM, ofSeconds(3)));
        assertThat(d.verdicts()).last().extracting(FaultVerdict::outcome).isEqualTo(Outcome.COUNTED);
    }

    @Test
    void devicesAreAutoReleasedAfterFaultFreeHours() {
        d.publish(policy(1, 24, 1, 1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.isolations();
        d.advance(ofMinutes(59));
        assertThat(d.verdicts(Outcome.AUTO_RELEASED)).isEmpty();
        d.advance(ofMinutes(2));
        assertThat(d.verdicts(Outcome.AUTO_RELEASED)).hasSize(1);
        assertThat(d.isolations())
                .singleElement()
                .satisfies(kv -> assertThat(kv.value).isNull());
    }

    @Test
    void aFaultOfAnIsolatedDevicePostponesItsAutoRelease() {
        d.publish(policy(1, 24, 5, 1));
        d.publish(policy(2, 24, 1, 1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.advance(ofMinutes(50));
        d.publish(policy(3, 24, 5, 1));
        d.send(fault(null, "n1", "d0", HBM, ofMinutes(50)));
        d.advance(ofMinutes(20));
        assertThat(d.verdicts(Outcome.AUTO_RELEASED)).isEmpty();
        d.advance(ofMinutes(45));
        assertThat(d.verdicts(Outcome.AUTO_RELEASED)).hasSize(1);
    }

    @Test
    void minusOneNeverAutoReleases() {
        d.publish(policy(1, 24, 1, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.advance(ofHours(241));
        assertThat(d.verdicts(Outcome.AUTO_RELEASED)).isEmpty();
    }

    @Test
    void aDisabledPolicyCountsNothing() {
        d.publish(policy(4, false, 24, 1, -1, false, 0));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        assertThat(d.verdicts()).extracting(FaultVerdict::outcome).containsExactly(Outcome.NOT_COUNTED_POLICY_DISABLED);
        assertThat(d.isolations()).isEmpty();
    }

    @Test
    void dryRunReportsWouldIsolateAndWritesNothing() {
        d.publish(policy(1, true, 24, 1, -1, true, 0));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        assertThat(d.verdicts()).extracting(FaultVerdict::outcome).containsExactly(Outcome.WOULD_ISOLATE);
        assertThat(d.isolations()).isEmpty();
    }

    @Test
    void theBudgetHoldsExtraIsolationsAsCandidatesUntilBudgetFreesUp() {
        d.publish(policy(1, true, 24, 1, -1, false, 1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault(null, "n2", "d5", AIC, ofSeconds(1)));
        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.ISOLATED, Outcome.HELD_BY_BUDGET);
        assertThat(d.isolations()).extracting(kv -> kv.key).containsExactly("c1/n1");

        d.release("n1", "d0");
        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .endsWith(Outcome.RELEASED_BY_OPERATOR, Outcome.ISOLATED);
        assertThat(d.isolations()).extracting(kv -> kv.key).containsExactly("c1/n1", "c1/n2");
    }

    @Test
    void raisingTheBudgetIsolatesHeldCandidatesAtTheNextCheck() {
        d.publish(policy(1, true, 24, 1, -1, false, 1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault(null, "n2", "d5", AIC, ofSeconds(1)));
        d.isolations();
        d.publish(policy(2, true, 24, 1, -1, false, 5));
        d.advance(ofMinutes(1));
        assertThat(d.isolations()).extracting(kv -> kv.key).containsExactly("c1/n2");
    }

    @Test
    void anUndecodableFaultGoesToTheDeadLetterTopic() {
        d.rawFaults.pipeInput("job-1", "{not json".getBytes(StandardCharsets.UTF_8));
        assertThat(d.deadLetters.readValuesToList())
                .singleElement()
                .satisfies(letter -> assertThat(letter.sourceTopic()).isEqualTo("falcon.device-faults"));
        assertThat(d.verdicts()).isEmpty();
    }

    @Test
    void aStormOfThousandsOfDevicesWithTheSameCodeInOneJobIsolatesNothing() {
        d.publish(policy(1, 24, 1, -1));
        int devices = 3000;
        for (int i = 0; i < devices; i++) {
            d.send(fault("job-storm", "node-" + (i / 8), "Ascend910-" + (i % 8), AIC, ofSeconds(i % 30)));
        }
        windowPasses();
        List<FaultVerdict> verdicts = d.verdicts();
        assertThat(verdicts).hasSize(devices).extracting(FaultVerdict::outcome).containsOnly(Outcome.SOFTWARE_FAULT);
        assertThat(verdicts.get(0).evidence().peerDeviceCount()).isEqualTo(devices - 1);
        assertThat(verdicts.get(0).evidence().peerDevices()).hasSize(16);
        assertThat(d.isolations()).isEmpty();
    }

    @Test
    void theIsolationValueIsTheRfcShapeAndRoundTrips() throws Exception {
        String rfc = "{\"Total\":[\"Ascend910-0\"],\"Detail\":{\"Ascend910-0\":[{\"FaultCode\":\"8C084E00\","
                + "\"FaultLevel\":\"ManuallySeparateNPU\",\"LastSeparateTime\":1770811685650}]}}";
        NodeIsolation parsed = Json.mapper().readValue(rfc, NodeIsolation.class);
        assertThat(Json.mapper().writeValueAsString(parsed)).isEqualTo(rfc);
    }
}
