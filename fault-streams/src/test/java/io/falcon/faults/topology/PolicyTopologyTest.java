package io.falcon.faults.topology;

import static io.falcon.faults.topology.FaultDriver.fault;
import static io.falcon.faults.topology.FaultDriver.policy;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.IsolationPolicy;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every bound of the RFC's configuration, applied (or rejected) through the policy topic without restart. */
class PolicyTopologyTest {
    private FaultDriver d;
    private int seconds;

    @BeforeEach
    void start() throws Exception {
        d = new FaultDriver(FaultTopologyOptions.defaults().withInMemoryStores(true));
        d.publish(policy(1, 24, 3, -1));
    }

    @AfterEach
    void stop() {
        d.close();
    }

    /** The policy version the next verdict was decided under. */
    private long versionInForce() {
        d.send(fault(null, "probe", "d" + seconds, "CODE", ofSeconds(seconds++)));
        var verdicts = d.verdicts();
        return verdicts.get(verdicts.size() - 1).evidence().policyVersion();
    }

    @ParameterizedTest(name = "window={0} threshold={1} free={2} accepted={3}")
    @CsvSource({
        "1, 3, -1, true",
        "720, 3, -1, true",
        "0, 3, -1, false",
        "721, 3, -1, false",
        "24, 1, -1, true",
        "24, 50, -1, true",
        "24, 0, -1, false",
        "24, 51, -1, false",
        "24, 3, 1, true",
        "24, 3, 240, true",
        "24, 3, 0, false",
        "24, 3, 241, false",
        "24, 3, -2, false"
    })
    void boundsAreEnforcedAndTheLastGoodPolicyStays(int window, int threshold, int free, boolean accepted) {
        assertThat(versionInForce()).isEqualTo(1);
        d.publish(policy(2, window, threshold, free));
        assertThat(versionInForce()).isEqualTo(accepted ? 2 : 1);
    }

    @Test
    void aNegativeBudgetIsRejected() {
        d.publish(policy(2, true, 24, 3, -1, false, -1));
        assertThat(versionInForce()).isEqualTo(1);
    }

    @Test
    void anUndecodablePolicyIsRejectedAndTheLastGoodStays() {
        d.rawPolicies.pipeInput(IsolationPolicy.KEY, "{\"version\":\"x\"".getBytes(StandardCharsets.UTF_8));
        assertThat(versionInForce()).isEqualTo(1);
    }

    @Test
    void aNewPolicyAppliesWithoutRestart() {
        d.send(fault(null, "n1", "d0", "A", ofSeconds(100)));
        assertThat(d.verdicts()).last().extracting(FaultVerdict::outcome).isEqualTo(FaultVerdict.Outcome.COUNTED);
        d.publish(policy(7, 24, 1, -1));
        d.send(fault(null, "n1", "d1", "A", ofSeconds(101)));
        assertThat(d.verdicts()).last().satisfies(v -> {
            assertThat(v.outcome()).isEqualTo(FaultVerdict.Outcome.ISOLATED);
            assertThat(v.evidence().policyVersion()).isEqualTo(7);
        });
    }

    @Test
    void beforeAnyPolicyTheRfcDefaultIsInForce() throws Exception {
        try (FaultDriver fresh = new FaultDriver(FaultTopologyOptions.defaults().withInMemoryStores(true))) {
            fresh.send(fault(null, "n1", "d0", "A", ofSeconds(0)));
            assertThat(fresh.verdicts()).singleElement().satisfies(v -> {
                assertThat(v.evidence().policyVersion()).isZero();
                assertThat(v.evidence().explanation()).contains("1 of 3");
            });
        }
    }
}
