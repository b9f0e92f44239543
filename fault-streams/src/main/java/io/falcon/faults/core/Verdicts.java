package io.falcon.faults.core;

import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.IsolationPolicy;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Builds verdicts with deterministic ids, so a replay or a reprocessing yields the same ledger entries. */
public final class Verdicts {
    public static final String PRODUCER = "fault-streams";

    private Verdicts() {}

    public static FaultVerdict about(
            DeviceFault fault,
            Outcome outcome,
            IsolationPolicy policy,
            List<String> peers,
            int peerCount,
            List<Long> times,
            String explanation,
            long nowMs) {
        Meta meta = Meta.deterministic(
                PRODUCER, Instant.ofEpochMilli(nowMs), fault.meta().eventId() + "/" + outcome + "/" + policy.version());
        return new FaultVerdict(
                meta,
                fault.clusterId(),
                fault.nodeName(),
                fault.deviceName(),
                fault.faultCode(),
                fault.jobId(),
                fault.receiveTimeMs(),
                outcome,
                new FaultVerdict.Evidence(policy.version(), peers, peerCount, times, explanation));
    }

    public static FaultVerdict about(
            DeviceFault fault, Outcome outcome, IsolationPolicy policy, String explanation, long nowMs) {
        return about(fault, outcome, policy, List.of(), 0, List.of(), explanation, nowMs);
    }

    /** A verdict about a device rather than a fault (releases). */
    public static FaultVerdict aboutDevice(
            String clusterId,
            String nodeName,
            String deviceName,
            String faultCodes,
            Outcome outcome,
            IsolationPolicy policy,
            String explanation,
            long nowMs) {
        Meta meta = Meta.deterministic(
                PRODUCER,
                Instant.ofEpochMilli(nowMs),
                clusterId + "/" + nodeName + "/" + deviceName + "/" + outcome + "/" + nowMs);
        return new FaultVerdict(
                meta,
                clusterId,
                nodeName,
                deviceName,
                faultCodes,
                Optional.empty(),
                nowMs,
                outcome,
                new FaultVerdict.Evidence(policy.version(), List.of(), 0, List.of(), explanation));
    }
}
