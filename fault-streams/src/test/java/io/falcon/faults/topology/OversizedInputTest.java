package io.falcon.faults.topology;

import static io.falcon.faults.topology.FaultDriver.fault;
import static io.falcon.faults.topology.FaultDriver.policy;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.DeadLetter;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.faults.core.StateBounds;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Inputs that would make a store value or a record larger than Kafka takes go to the dead-letter topic with the
 * reason, through the real topology, and the stream goes on: nothing already held is lost, later inputs are
 * processed, and no value written to a changelog grows with the input ({@link StateBounds}).
 */
class OversizedInputTest {
    private static final String AIC = "8C084E00";

    private FaultDriver d;

    @BeforeEach
    void start() throws Exception {
        d = new FaultDriver(FaultTopologyOptions.defaults().withInMemoryStores(true));
    }

    @AfterEach
    void stop() {
        d.close();
    }

    private static int bytes(DeadLetter letter) {
        return Topics.DEAD_LETTER.valueSerde().toBytes(letter).length;
    }

    @Test
    void aFaultWithATenMegabyteEventIdIsDeadLetteredNamingTheFieldAndLaterFaultsAreStillProcessed() {
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0)));
        DeviceFault huge = new DeviceFault(
                new Meta("e".repeat(10 * 1024 * 1024), FaultDriver.START, "collector"),
                FaultDriver.CLUSTER,
                "n1",
                "d1",
                AIC,
                Optional.empty(),
                Optional.of("job-1"),
                FaultDriver.START.toEpochMilli() + 1_000);
        d.send(huge);

        List<DeadLetter> dead = d.deadLetters.readValuesToList();
        assertThat(dead).singleElement().satisfies(letter -> {
            assertThat(letter.reason())
                    .startsWith("invalid device fault: meta.eventId is longer than 256 characters")
                    .contains("dead letter keeps the first 262144 of its");
            // the dead letter is a record too: it must fit in the dead-letter topic
            assertThat(bytes(letter)).isLessThan(StateBounds.MAX_VALUE_BYTES);
        });
        // held: the fault before it; the oversized one is not
        assertThat(d.heldFaults()).isEqualTo(1);

        d.send(fault("job-1", "n2", "d0", "OTHER", ofSeconds(2)));
        d.advance(ofSeconds(40));
        assertThat(d.verdicts()).extracting(FaultVerdict::nodeName).containsExactlyInAnyOrder("n1", "n2");
        assertThat(d.heldFaults()).isZero();
    }

    @Test
    void distinctCodesOfOneDeviceBeyondWhatItsIsolationKeepsAreDeadLetteredAndOtherDevicesAreStillIsolated() {
        d.publish(policy(1, 24, 1, -1));
        int codes = 2_000;
        for (int i = 0; i < codes; i++) {
            d.send(fault(null, "n1", "d0", "CODE-" + i, ofMillis(i)));
        }

        assertThat(d.verdicts(Outcome.ISOLATED)).hasSize(StateBounds.MAX_CODES_PER_DEVICE);
        List<DeadLetter> dead = d.deadLetters.readValuesToList();
        assertThat(dead).hasSize(codes - StateBounds.MAX_CODES_PER_DEVICE);
        assertThat(dead.get(0).reason())
                .isEqualTo("device fault refused: device n1/d0 is already isolated for 8 fault codes, the most"
                        + " fault-streams keeps per device (8)");
        // the dead letter holds the fault as it can be produced again to falcon.device-faults
        assertThat(Topics.DEVICE_FAULTS
                        .valueSerde()
                        .fromBytes(
                                java.util.Base64.getDecoder().decode(dead.get(0).payloadBase64()))
                        .faultCode())
                .isEqualTo("CODE-8");
        assertThat(d.isolations())
                .last()
                .satisfies(kv -> assertThat(kv.value.detail().get("d0")).hasSize(StateBounds.MAX_CODES_PER_DEVICE));

        d.send(fault(null, "n1", "d1", AIC, ofSeconds(10)));
        d.send(fault(null, "n1", "d0", "CODE-0", ofSeconds(11))); // re-isolation for a code it is isolated for
        assertThat(d.verdicts(Outcome.ISOLATED)).hasSize(StateBounds.MAX_CODES_PER_DEVICE + 2);
        assertThat(d.deadLetters.readValuesToList()).isEmpty();
    }

    @Test
    void aStormOfDistinctCodesInOneJobWindowIsDecidedAndItsRoundsAreStoredPerCodeNotInOneGrowingValue() {
        int codes = 10_000;
        for (int i = 0; i < codes; i++) {
            d.send(fault("job-1", "n" + i % 100, "d" + i % 8, "CODE-" + i, ofMillis(i * 29_999L / codes)));
        }
        d.advance(ofSeconds(40));

        assertThat(d.verdicts(Outcome.COUNTED)).hasSize(codes);
        assertThat(d.heldFaults()).isZero();
        assertThat(d.entries(FaultTopology.ROUNDS_STORE)).isEqualTo(codes);
        List<KeyValue<String, byte[]>> written =
                d.changelog(FaultTopology.ROUNDS_STORE, Serdes.ByteArray().deserializer());
        assertThat(written).hasSize(codes);
        assertThat(written).allSatisfy(kv -> assertThat(kv.value.length).isLessThan(100));
    }

    @Test
    void aLateFaultThatWouldOpenMoreDecidedRoundsThanAJobsCodeKeepsIsDeadLettered() {
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(100)));
        d.advance(ofSeconds(40)); // decided: one round of AIC, on n1/d0
        // n2/d1's collector lags and sends faults of the same code, each a millisecond earlier than the last: each
        // falls in no decided round, opens a window of its own reaching the round after it, and is kept as a round
        int late = StateBounds.MAX_ROUNDS_PER_JOB_CODE - 1;
        for (int k = 1; k <= late; k++) {
            d.send(fault("job-1", "n2", "d1", AIC, ofMillis(100_000 - k)));
        }
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).hasSize(late);
        assertThat(d.deadLetters.readValuesToList()).isEmpty();

        d.send(fault("job-1", "n2", "d1", AIC, ofMillis(100_000 - late - 1)));

        assertThat(d.deadLetters.readValuesToList())
                .singleElement()
                .satisfies(letter -> assertThat(letter.reason())
                        .isEqualTo("device fault refused: job job-1 of cluster c1 already keeps 128 decided rounds"
                                + " of code " + AIC + ", the most fault-streams keeps per job and code (128)"));
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).hasSize(late);
        // the job's other codes, and its later faults, are judged as before
        d.send(fault("job-1", "n3", "d0", "OTHER", ofSeconds(140)));
        d.send(fault("job-1", "n4", "d0", "OTHER", ofSeconds(141)));
        d.advance(ofSeconds(40));
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).hasSize(late + 2);
    }

    @Test
    void aListingOfMoreDevicesThanAClusterKeepsIsDeadLetteredAndTheListingBeforeItStays() {
        d.publish(policy(1, true, 24, 1, -1, false, 1));
        d.commands.pipeInput(
                FaultDriver.CLUSTER,
                new IsolationCommand.ListedByOthers(
                        Meta.of("executor", FaultDriver.START), FaultDriver.CLUSTER, Map.of("n5", List.of("d3"))));
        Map<String, List<String>> tooMany = new TreeMap<>();
        for (int n = 0; n <= StateBounds.MAX_LISTED_BY_OTHERS_PER_CLUSTER; n++) {
            tooMany.put("node-" + n, List.of("d0"));
        }
        d.commands.pipeInput(
                FaultDriver.CLUSTER,
                new IsolationCommand.ListedByOthers(
                        Meta.of("executor", FaultDriver.START), FaultDriver.CLUSTER, tooMany));

        assertThat(d.deadLetters.readValuesToList())
                .singleElement()
                .satisfies(letter -> assertThat(letter.reason())
                        .isEqualTo("invalid isolation command: devices lists more than 256 devices of the cluster"));
        // n5/d3, listed before, still uses the cluster's budget of one
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        assertThat(d.verdicts(Outcome.HELD_BY_BUDGET)).hasSize(1);
    }
}
