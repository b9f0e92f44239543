package io.falcon.events.fault;

import io.falcon.events.Meta;
import java.util.List;
import java.util.Optional;

/**
 * What fault-streams decided about one fault (or one isolated device), with its evidence: the ledger of every
 * decision, keyed {@code cluster/node}.
 */
public record FaultVerdict(
        Meta meta,
        String clusterId,
        String nodeName,
        String deviceName,
        String faultCode,
        Optional<String> jobId,
        long receiveTimeMs,
        Outcome outcome,
        Evidence evidence) {

    public enum Outcome {
        /** Same code on another device of the job within the window: not counted (nor its same-code peers). */
        SOFTWARE_FAULT,
        /** Counted towards the device's frequency; threshold not reached. */
        COUNTED,
        /** Reached the frequency: the device is manually isolated (or re-isolated, LastSeparateTime refreshed). */
        ISOLATED,
        /** Dry-run: would have been isolated; counter cleared, nothing written. */
        WOULD_ISOLATE,
        /** The cluster's isolation budget is used up: held as a candidate until budget frees up. */
        HELD_BY_BUDGET,
        /** The policy is disabled: not counted. */
        NOT_COUNTED_POLICY_DISABLED,
        /**
         * A fault of a job that arrived later than the allowed lateness behind the job window's event time: it
         * skips the job window and is counted directly (a COUNTED/ISOLATED/... verdict of the counter follows).
         */
        LATE_COUNTED_DIRECTLY,
        /** A fault without a job id while such faults are configured not to be counted. */
        NOT_COUNTED_NO_JOB,
        /** Released because an operator removed it (ConfigMap edit or command); counters cleared. */
        RELEASED_BY_OPERATOR,
        /** Released after fault_free_hours without a fault. */
        AUTO_RELEASED
    }

    /**
     * peerDevices: node/device refs with the same code in the job window (software faults; at most 16 listed,
     * peerDeviceCount says how many there were); recentFaultTimesMs: the counter's timestamps that decided;
     * explanation: one sentence a person can act on.
     */
    public record Evidence(
            long policyVersion,
            List<String> peerDevices,
            int peerDeviceCount,
            List<Long> recentFaultTimesMs,
            String explanation) {
        public Evidence {
            peerDevices = List.copyOf(peerDevices);
            recentFaultTimesMs = List.copyOf(recentFaultTimesMs);
        }
    }
}
