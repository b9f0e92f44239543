package io.falcon.faults.topology;

import static io.falcon.faults.topology.FaultDriver.fault;
import static io.falcon.faults.topology.FaultDriver.policy;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.NodeIsolation;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The gaps of issue 12 between the topology and the RFC, each pinned by the scenario that showed it. */
class RfcGapsTest {
    private static final String AIC = "8C084E00";

    private FaultDriver d;

    @BeforeEach
    void start() throws Exception {
        d = new FaultDriver(
                FaultTopologyOptions.defaults().withInMemoryStores(true).withAllowedLateness(ofSeconds(60)));
    }

    @AfterEach
    void stop() {
        d.close();
    }

    @Test
    void lastSeparateTimeIsTheNewestOfTheFaultsThatReachedTheThresholdWhenAJobFaultIsDecidedLate() {
        d.publish(policy(1, 24, 2, -1));
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0))); // held by the job window
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(10))); // counted at once: 1 of 2
        d.advance(ofSeconds(36)); // the job fault is counted now: 2 of 2

        assertThat(d.verdicts(Outcome.ISOLATED)).hasSize(1);
        List<KeyValue<String, NodeIsolation>> isolations = d.isolations();
        assertThat(isolations)
                .singleElement()
                .satisfies(kv -> assertThat(kv.value.detail().get("d0"))
                        .singleElement()
                        .extracting(NodeIsolation.DeviceIsolation::lastSeparateTime)
                        .isEqualTo(FaultDriver.START.plusSeconds(10).toEpochMilli()));
    }

    @Test
    void aHotReloadWideningTheWindowAppliesToHistoryTheNarrowWindowWouldHavePruned() {
        d.publish(policy(1, 1, 3, -1));
        d.send(fault(null, "n1", "d0", AIC, ofMinutes(0)));
        d.send(fault(null, "n1", "d0", AIC, ofMinutes(90))); // the first is outside the 1 h window
        d.publish(policy(2, 4, 3, -1));
        d.send(fault(null, "n1", "d0", AIC, ofMinutes(180))); // 3 faults within 4 h

        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.COUNTED, Outcome.COUNTED, Outcome.ISOLATED);
        assertThat(d.verdicts(Outcome.ISOLATED).get(0).evidence().recentFaultTimesMs())
                .hasSize(3);
    }

    @Test
    void theJobWindowIsKeyedByClusterAndJobId() {
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0)));
        d.send(DeviceFault.of(
                "c2",
                "n1",
                "d0",
                AIC,
                Optional.of("job-1"),
                FaultDriver.START.plusSeconds(5).toEpochMilli()));
        d.advance(ofSeconds(36));

        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).isEmpty();
        assertThat(d.verdicts(Outcome.COUNTED))
                .extracting(FaultVerdict::clusterId)
                .containsExactlyInAnyOrder("c1", "c2");
    }

    @Test
    void aLateRecordDoesNotMoveTheWindowsEventTimeBackwards() {
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0)));
        d.advance(ofSeconds(20)); // idle: event time 20 s
        d.send(fault("job-1", "n2", "d5", "OTHER", ofSeconds(-30))); // late, but within the allowed lateness
        d.advance(ofSeconds(16)); // event time 36 s: past 0 + 30 + 5

        assertThat(d.verdicts(Outcome.COUNTED))
                .extracting(FaultVerdict::deviceName)
                .contains("d0");
    }

    @Test
    void aFaultLaterThanTheAllowedLatenessIsCountedDirectlyWithAVerdictThatSaysSo() {
        d.publish(policy(1, 24, 3, -1));
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0)));
        d.advance(ofSeconds(100)); // event time 100 s
        d.send(fault("job-1", "n2", "d5", AIC, ofSeconds(10))); // 90 s behind, allowed 60 s

        assertThat(d.verdicts(Outcome.LATE_COUNTED_DIRECTLY)).singleElement().satisfies(v -> {
            assertThat(v.deviceName()).isEqualTo("d5");
            assertThat(v.evidence().explanation()).contains("allowed lateness", "counted directly");
        });
        assertThat(d.verdicts(Outcome.COUNTED))
                .extracting(FaultVerdict::deviceName)
                .containsExactlyInAnyOrder("d0", "d5");
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).isEmpty();
    }

    @Test
    void aFaultWithinTheAllowedLatenessStillEntersTheJobWindow() {
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0)));
        d.advance(ofSeconds(20));
        d.send(fault("job-1", "n2", "d5", AIC, ofSeconds(-10))); // 30 s behind, allowed 60 s: a peer
        d.advance(ofHours(1));

        assertThat(d.verdicts(Outcome.LATE_COUNTED_DIRECTLY)).isEmpty();
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).hasSize(2);
    }
}
