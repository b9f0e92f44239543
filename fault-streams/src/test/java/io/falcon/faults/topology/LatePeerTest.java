package io.falcon.faults.topology;

import static io.falcon.faults.topology.FaultDriver.fault;
import static io.falcon.faults.topology.FaultDriver.policy;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.FaultVerdict.Outcome;
import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A fault that arrives after the job window it belongs to was decided (later than the grace, within the allowed
 * lateness) is judged as part of that decided window, as the RFC's algorithm judges it with every fault present:
 * a peer of a software-fault storm is a software fault, not a fault counted on its own.
 */
class LatePeerTest {
    private static final String AIC = "8C084E00";

    private FaultDriver d;

    @BeforeEach
    void start() throws Exception {
        // job window 30 s, grace 5 s, allowed lateness 5 min
        d = new FaultDriver(FaultTopologyOptions.defaults().withInMemoryStores(true));
    }

    @AfterEach
    void stop() {
        d.close();
    }

    /** Eight devices of job-1 fault with the same code at base .. base + 7 s (a software-fault storm). */
    private void storm(Duration base) {
        for (int i = 0; i < 8; i++) {
            d.send(fault("job-1", "n1", "d" + i, AIC, base.plusSeconds(i)));
        }
    }

    @Test
    void aStormPeerLaterThanTheGraceIsASoftwareFaultAndIsolatesNothing() {
        d.publish(policy(1, 24, 3, -1));
        for (int s = 0; s < 3; s++) {
            Duration base = ofMinutes(10L * s);
            storm(base);
            d.advance(ofSeconds(40)); // the storm's window is decided: 8 software faults
            // n9's collector lagged: its fault of the same storm arrives after the window was decided
            d.send(fault("job-1", "n9", "d0", AIC, base.plusSeconds(3)));
            d.advance(ofSeconds(560));
        }

        assertThat(d.verdicts())
                .filteredOn(v -> v.nodeName().equals("n9"))
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.SOFTWARE_FAULT, Outcome.SOFTWARE_FAULT, Outcome.SOFTWARE_FAULT);
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).hasSize(27);
        assertThat(d.verdicts(Outcome.COUNTED)).isEmpty();
        assertThat(d.verdicts(Outcome.ISOLATED)).isEmpty();
        assertThat(d.isolations()).isEmpty();
    }

    @Test
    void aLateFaultJustBeforeADecidedStormOpensAWindowReachingItAndIsASoftwareFault() {
        d.publish(policy(1, 24, 1, -1));
        storm(ofSeconds(0)); // one round: 0 .. 30 s
        storm(ofSeconds(40)); // the next round opens at 40 s
        d.advance(ofSeconds(80)); // both decided
        // received at 35 s, between the two rounds: the RFC's algorithm, with it present, opens a window at 35 s
        // that holds the second storm's faults on other devices
        d.send(fault("job-1", "n9", "d0", AIC, ofSeconds(35)));
        d.advance(ofSeconds(40));

        assertThat(d.verdicts())
                .filteredOn(v -> v.nodeName().equals("n9"))
                .singleElement()
                .satisfies(v -> {
                    assertThat(v.outcome()).isEqualTo(Outcome.SOFTWARE_FAULT);
                    assertThat(v.evidence().peerDevices()).containsExactly("n1/d0");
                    assertThat(v.evidence().explanation()).contains("decided before this fault arrived");
                });
        assertThat(d.isolations()).isEmpty();
    }

    @Test
    void aLateFaultOfACountedRoundIsCountedWithItOnItsDeviceAndMakesItSoftwareOnAnother() {
        d.publish(policy(1, 24, 5, -1));
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(10)));
        d.advance(ofSeconds(40)); // one device in the window: counted
        assertThat(d.verdicts(Outcome.COUNTED)).hasSize(2);

        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(20))); // same device, same window: counted with it
        d.advance(ofSeconds(1));
        assertThat(d.verdicts(Outcome.COUNTED)).hasSize(3);
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).isEmpty();

        d.send(fault("job-1", "n2", "d5", AIC, ofSeconds(15))); // another device within the window: software
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(25))); // the window now holds two devices
        d.advance(ofSeconds(1));
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT))
                .extracting(FaultVerdict::deviceName)
                .containsExactly("d5", "d0");
        assertThat(d.verdicts(Outcome.COUNTED)).hasSize(3);
    }

    @Test
    void aLateFaultFarFromEveryDecidedRoundIsHeldAndDecidedAsBefore() {
        d.publish(policy(1, 24, 3, -1));
        storm(ofSeconds(0));
        d.advance(ofSeconds(100));
        d.send(fault("job-1", "n9", "d0", AIC, ofSeconds(70))); // 40 s after the storm's window: no peer
        d.advance(ofSeconds(2));

        assertThat(d.verdicts())
                .filteredOn(v -> v.nodeName().equals("n9"))
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.COUNTED);
    }

    @Test
    void decidedRoundsAreKeptWhileALateFaultMayStillFallIntoThemAndWrittenAtTheCommit() {
        storm(ofSeconds(0));
        d.advance(ofSeconds(40));
        assertThat(d.entries(FaultTopology.ROUNDS_STORE)).isEqualTo(1);
        assertThat(d.changelog(FaultTopology.ROUNDS_STORE, Serdes.ByteArray().deserializer()))
                .singleElement()
                .satisfies(kv -> assertThat(BinaryCodec.decodeRounds(kv.value))
                        .singleElement()
                        .satisfies(round -> {
                            assertThat(round.firstDevice()).isEqualTo("n1/d0");
                            assertThat(round.otherDevice()).isEqualTo("n1/d1");
                            assertThat(round.software()).isTrue();
                        }));

        // window (30 s) + allowed lateness (5 min) after the round opened, no admitted fault can fall into it
        d.advance(ofMinutes(5));
        assertThat(d.entries(FaultTopology.ROUNDS_STORE)).isZero();
        d.send(fault("job-1", "n9", "d0", AIC, ofSeconds(3))); // more than the allowed lateness behind
        assertThat(d.verdicts())
                .filteredOn(v -> v.nodeName().equals("n9"))
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.LATE_COUNTED_DIRECTLY, Outcome.COUNTED);
    }
}
