package io.falcon.faults.topology;

import static io.falcon.faults.topology.FaultDriver.fault;
import static io.falcon.faults.topology.FaultDriver.policy;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.FaultVerdict.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every store of the topology goes back down once what it holds can no longer matter (docs/fault-streams.md). */
class BoundedStateTest {
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

    @Test
    void countersWithoutAFaultForTheLargestWindowAreDeletedByTheSweep() {
        d.publish(policy(1, 24, 3, -1));
        d.send(fault(null, "n1", "d0", AIC, ofHours(0)));
        d.send(fault(null, "n2", "d0", AIC, ofHours(0)));
        d.send(fault(null, "n3", "d0", AIC, ofHours(0)));
        assertThat(d.entries(FaultTopology.COUNTER_STORE)).isEqualTo(3);

        d.advance(ofHours(700));
        d.send(fault(null, "n1", "d0", AIC, ofHours(700)));
        assertThat(d.entries(FaultTopology.COUNTER_STORE)).isEqualTo(3);

        // 721 h: n2 and n3 have had no fault for the largest window (720 h); n1's newest is 21 h old
        d.advance(ofHours(21));
        assertThat(d.entries(FaultTopology.COUNTER_STORE)).isEqualTo(1);

        d.advance(ofHours(700));
        assertThat(d.entries(FaultTopology.COUNTER_STORE)).isZero();
    }

    @Test
    void aCounterIsDeletedWhenItsThresholdIsReachedAndItsDeviceWhenReleased() {
        d.publish(policy(1, 24, 2, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault(null, "n1", "d1", AIC, ofSeconds(1)));
        assertThat(d.entries(FaultTopology.COUNTER_STORE)).isEqualTo(2);

        d.send(fault(null, "n1", "d0", AIC, ofSeconds(2)));
        assertThat(d.verdicts(Outcome.ISOLATED)).hasSize(1);
        // cleared on isolation: deleted, not kept as an empty history
        assertThat(d.entries(FaultTopology.COUNTER_STORE)).isEqualTo(1);
        assertThat(d.entries(FaultTopology.NODE_STORE)).isEqualTo(1);

        d.release("n1", "d0");
        d.release("n1", "d1");
        assertThat(d.entries(FaultTopology.COUNTER_STORE)).isZero();
        // a node without isolated devices is deleted too
        assertThat(d.entries(FaultTopology.NODE_STORE)).isZero();
    }

    @Test
    void pagesOfHeldFaultsShrinkAsTheirFaultsAreDecidedAndLeaveWhenEmpty() {
        // 150 faults of 150 jobs, 1 s apart, in pages of HeldPage.SIZE
        int pages = (150 + HeldPage.SIZE - 1) / HeldPage.SIZE;
        for (int i = 0; i < 150; i++) {
            d.send(fault("job-" + i, "n" + i, "d0", AIC, ofSeconds(i)));
        }
        assertThat(d.heldFaults()).isEqualTo(150);
        assertThat(d.entries(FaultTopology.PENDING_STORE)).isEqualTo(pages);

        // event time 149 s + 1 s idle: the windows opened before 150 - 35 s are decided (faults 0-114); the pages
        // holding only those go, the one holding fault 114 keeps its later faults
        d.advance(ofSeconds(1));
        assertThat(d.verdicts()).hasSize(115);
        assertThat(d.heldFaults()).isEqualTo(35);
        assertThat(d.entries(FaultTopology.PENDING_STORE)).isEqualTo(pages - 115 / HeldPage.SIZE);

        d.advance(ofSeconds(35));

        assertThat(d.verdicts()).hasSize(150);
        assertThat(d.heldFaults()).isZero();
        assertThat(d.entries(FaultTopology.PENDING_STORE)).isZero();
    }

    @Test
    void theDecidedRoundsOfAJobsCodeAreKeptOnlyWhileALateFaultCanStillFallIntoThem() {
        // a job with a software round every 40 s for 20 minutes
        for (int r = 0; r < 30; r++) {
            d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(40L * r)));
            d.send(fault("job-1", "n1", "d1", AIC, ofSeconds(40L * r + 1)));
            d.advance(ofSeconds(40));
        }
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).hasSize(60);
        assertThat(d.entries(FaultTopology.ROUNDS_STORE)).isEqualTo(1);
        // the last round (1160 s) was decided at event time 1196 s: the rounds kept opened within window (30 s) +
        // allowed lateness (5 min) of it, 880 s .. 1160 s
        byte[] kept = d.driver
                .<String, byte[]>getKeyValueStore(FaultTopology.ROUNDS_STORE)
                .get(StoreKeys.jobCode(StoreKeys.job(FaultDriver.CLUSTER, "job-1"), AIC));
        assertThat(BinaryCodec.decodeRounds(kept))
                .extracting(round -> (round.firstMs() - FaultDriver.START.toEpochMilli()) / 1000)
                .containsExactly(880L, 920L, 960L, 1000L, 1040L, 1080L, 1120L, 1160L);

        d.advance(ofSeconds(300));
        assertThat(d.entries(FaultTopology.ROUNDS_STORE)).isZero();
    }

    @Test
    void heldJobFaultsLeaveTheStoreOnceTheirWindowIsDecided() {
        d.send(fault("job-1", "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault("job-1", "n2", "d0", AIC, ofSeconds(5)));
        d.send(fault("job-2", "n3", "d0", AIC, ofSeconds(6)));
        assertThat(d.heldFaults()).isEqualTo(3);

        d.advance(ofSeconds(40));

        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsExactlyInAnyOrder(Outcome.SOFTWARE_FAULT, Outcome.SOFTWARE_FAULT, Outcome.COUNTED);
        assertThat(d.entries(FaultTopology.PENDING_STORE)).isZero();
    }

    @Test
    void aBudgetCandidateWhoseFaultsAreOlderThanTheLargestWindowIsDropped() {
        d.publish(policy(1, true, 24, 1, -1, false, 1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault(null, "n2", "d0", AIC, ofSeconds(1)));
        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.ISOLATED, Outcome.HELD_BY_BUDGET);
        assertThat(d.entries(FaultTopology.CANDIDATE_STORE)).isEqualTo(1);

        d.advance(ofHours(719));
        assertThat(d.entries(FaultTopology.CANDIDATE_STORE)).isEqualTo(1);

        d.advance(ofHours(2));
        assertThat(d.entries(FaultTopology.CANDIDATE_STORE)).isZero();

        // budget frees up, and the month-old candidate is not isolated
        d.release("n1", "d0");
        assertThat(d.verdicts())
                .extracting(FaultVerdict::outcome)
                .containsExactly(Outcome.ISOLATED, Outcome.HELD_BY_BUDGET, Outcome.RELEASED_BY_OPERATOR);
    }
}
