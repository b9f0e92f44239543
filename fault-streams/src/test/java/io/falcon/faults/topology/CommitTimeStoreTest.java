package io.falcon.faults.topology;

import static io.falcon.faults.topology.FaultDriver.fault;
import static io.falcon.faults.topology.FaultDriver.policy;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.faults.core.NodeIsolationState;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stores written at the commit ({@link CommitTimeStore}): what each commit puts on the changelog, read from the
 * changelog topics themselves (TopologyTestDriver commits after every input record), so a Kafka Streams that stopped
 * calling the stores' {@code flushCache} at the commit would leave them empty here.
 */
class CommitTimeStoreTest {
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
    void eachCommitWritesTheHeldFaultsPageAsItIsThen() {
        d.publish(policy(1, 24, 3, -1));
        DeviceFault first = fault("job-1", "n1", "d0", AIC, ofSeconds(0));
        DeviceFault second = fault("job-1", "n1", "d1", AIC, ofSeconds(1));
        d.send(first);
        d.send(second);

        List<KeyValue<String, byte[]>> records =
                d.changelog(FaultTopology.PENDING_STORE, Serdes.ByteArray().deserializer());
        // one record per commit, both for the same page: the first holds one fault, the second both
        assertThat(records).hasSize(2);
        assertThat(records).extracting(r -> r.key).containsOnly(records.get(0).key);
        assertThat(HeldPage.decode(records.get(0).value)).containsExactly(first);
        assertThat(HeldPage.decode(records.get(1).value)).containsExactly(first, second);

        // decided (software fault: the same code on two devices of the job) -> the empty page is deleted
        d.advance(ofSeconds(40));
        assertThat(d.verdicts(Outcome.SOFTWARE_FAULT)).hasSize(2);
        List<KeyValue<String, byte[]>> after =
                d.changelog(FaultTopology.PENDING_STORE, Serdes.ByteArray().deserializer());
        assertThat(after).hasSize(1);
        assertThat(after.get(0).key).isEqualTo(records.get(0).key);
        assertThat(after.get(0).value).isNull();
    }

    @Test
    void aFaultOfAnIsolatedDeviceReachesTheNodesChangelogAtTheCommit() {
        d.publish(policy(1, 24, 2, -1));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(0)));
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(1)));
        assertThat(d.verdicts(Outcome.ISOLATED)).hasSize(1);
        List<KeyValue<String, NodeIsolationState>> isolated =
                d.changelog(FaultTopology.NODE_STORE, BinaryCodec.nodeStates().deserializer());
        assertThat(isolated).hasSize(1);
        assertThat(isolated.get(0).value.isIsolated("d0")).isTrue();

        // a later fault of the isolated device moves its last fault time (auto-release counts from it)
        d.send(fault(null, "n1", "d0", AIC, ofSeconds(30)));
        List<KeyValue<String, NodeIsolationState>> seen =
                d.changelog(FaultTopology.NODE_STORE, BinaryCodec.nodeStates().deserializer());
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0).value.device("d0").orElseThrow().lastFaultMs())
                .isEqualTo(FaultDriver.START.plusSeconds(30).toEpochMilli());

        d.release("n1", "d0");
        List<KeyValue<String, NodeIsolationState>> released =
                d.changelog(FaultTopology.NODE_STORE, BinaryCodec.nodeStates().deserializer());
        assertThat(released).hasSize(1);
        assertThat(released.get(0).value).isNull();
    }
}
