package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.fault.NodeIsolation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The frequency stage: counts hardware faults per (node, device, code), isolates a device when the last N fall
 * within the window (clearing that counter), keeps the isolation state per node, releases devices (operator or
 * fault-free) and applies the safeguards (dry-run, per-cluster isolation budget with candidates). Pure over a
 * {@link CountingState}; time is passed in.
 */
public final class FaultCounting {
    private final CountingState state;

    public FaultCounting(CountingState state) {
        this.state = state;
    }

    /** A fault the job window classified as hardware (or one outside any job). */
    public Effects onCountedFault(DeviceFault fault, IsolationPolicy policy, long nowMs) {
        Effects effects = new Effects();
        if (!policy.enabled()) {
            effects.verdict(Verdicts.about(
                    fault,
                    Outcome.NOT_COUNTED_POLICY_DISABLED,
                    policy,
                    "manual isolation is disabled by policy v" + policy.version(),
                    nowMs));
            return effects;
        }
        NodeIsolationState node = state.node(fault.clusterId(), fault.nodeName());
        if (node.isIsolated(fault.deviceName())) {
            NodeIsolationState seen = node.faultSeen(fault.deviceName(), fault.receiveTimeMs());
            if (seen != node) {
                state.putNode(seen);
                node = seen;
            }
        }
        CounterKey key = CounterKey.of(fault);
        List<Long> times = FrequencyRule.record(state.faultTimes(key), fault.receiveTimeMs());
        if (!FrequencyRule.reached(times, policy.faultThreshold(), policy.faultWindowMs())) {
            state.putFaultTimes(key, times);
            List<Long> inWindow = FrequencyRule.withinWindow(times, policy.faultWindowMs());
            effects.verdict(Verdicts.about(
                    fault,
                    Outcome.COUNTED,
                    policy,
                    List.of(),
                    0,
                    inWindow,
                    inWindow.size() + " of " + policy.faultThreshold() + " faults within " + policy.faultWindowHours()
                            + "h",
                    nowMs));
            return effects;
        }
        // dealFrequencyFault: the counter is cleared whatever happens next.
        List<Long> decisive = FrequencyRule.lastN(times, policy.faultThreshold());
        // The RFC's LastSeparateTime: the newest of the N faults that reached the threshold, which is not this
        // fault when a job-window fault is decided after a later fault of the device was counted directly.
        long separateTimeMs = decisive.get(decisive.size() - 1);
        state.putFaultTimes(key, List.of());
        String reached = policy.faultThreshold() + " faults of " + fault.faultCode() + " within "
                + policy.faultWindowHours() + "h";
        if (policy.dryRun()) {
            effects.verdict(Verdicts.about(
                    fault,
                    Outcome.WOULD_ISOLATE,
                    policy,
                    List.of(),
                    0,
                    decisive,
                    "dry-run: " + reached + " would isolate " + fault.deviceRef(),
                    nowMs));
            return effects;
        }
        boolean alreadyIsolated = node.isIsolated(fault.deviceName());
        if (!alreadyIsolated
                && policy.hasBudget()
                && state.isolatedDevices(fault.clusterId()) >= policy.maxIsolatedDevicesPerCluster()) {
            List<Candidate> candidates = new ArrayList<>(state.candidates(fault.clusterId()));
            candidates.removeIf(c -> c.sameDevice(fault.nodeName(), fault.deviceName())
                    && c.fault().faultCode().equals(fault.faultCode()));
            candidates.add(new Candidate(fault, nowMs, separateTimeMs));
            state.putCandidates(fault.clusterId(), candidates);
            effects.verdict(Verdicts.about(
                    fault,
                    Outcome.HELD_BY_BUDGET,
                    policy,
                    List.of(),
                    0,
                    decisive,
                    reached + ", but cluster " + fault.clusterId() + " already has "
                            + policy.maxIsolatedDevicesPerCluster()
                            + " isolated devices (budget): held as a candidate",
                    nowMs));
            return effects;
        }
        isolate(
                node,
                fault,
                decisive,
                separateTimeMs,
                policy,
                nowMs,
                alreadyIsolated ? "re-isolated (LastSeparateTime refreshed): " : "isolated: ",
                effects);
        return effects;
    }

    private void isolate(
            NodeIsolationState node,
            DeviceFault fault,
            List<Long> decisive,
            long separateTimeMs,
            IsolationPolicy policy,
            long nowMs,
            String prefix,
            Effects effects) {
        NodeIsolationState next = node.isolate(fault.deviceName(), fault.faultCode(), separateTimeMs);
        state.putNode(next);
        effects.nodeChanged(next);
        effects.verdict(Verdicts.about(
                fault,
                Outcome.ISOLATED,
                policy,
                List.of(),
                0,
                decisive,
                prefix + policy.faultThreshold() + " faults of " + fault.faultCode() + " within "
                        + policy.faultWindowHours() + "h on " + fault.deviceRef(),
                nowMs));
    }

    /** Releases the device (operator or auto) and clears its counters and candidacies. */
    public Effects release(
            String clusterId,
            String nodeName,
            String deviceName,
            Outcome outcome,
            String reason,
            IsolationPolicy policy,
            long nowMs) {
        Effects effects = new Effects();
        NodeIsolationState node = state.node(clusterId, nodeName);
        String codes = node.device(deviceName)
                .map(d -> d.codes().stream()
                        .map(NodeIsolation.DeviceIsolation::faultCode)
                        .collect(Collectors.joining(",")))
                .orElse("");
        state.clearDevice(clusterId, nodeName, deviceName);
        List<Candidate> candidates = new ArrayList<>(state.candidates(clusterId));
        if (candidates.removeIf(c -> c.sameDevice(nodeName, deviceName))) {
            state.putCandidates(clusterId, candidates);
        }
        if (node.isIsolated(deviceName)) {
            NodeIsolationState next = node.release(deviceName);
            state.putNode(next);
            effects.nodeChanged(next);
        }
        effects.verdict(Verdicts.aboutDevice(
                clusterId,
                nodeName,
                deviceName,
                codes,
                outcome,
                policy,
                reason + "; counters of " + nodeName + "/" + deviceName + " cleared",
                nowMs));
        effects.addAll(promoteCandidates(clusterId, policy, nowMs));
        return effects;
    }

    /** Releases the node's devices that have been fault-free for fault_free_hours (unless -1). */
    public Effects autoRelease(NodeIsolationState node, IsolationPolicy policy, long nowMs) {
        Effects effects = new Effects();
        if (!policy.autoRelease()) {
            return effects;
        }
        for (String device : node.faultFreeDevices(nowMs, policy.faultFreeMs())) {
            effects.addAll(release(
                    node.clusterId(),
                    node.nodeName(),
                    device,
                    Outcome.AUTO_RELEASED,
                    "no fault for " + policy.faultFreeHours() + "h (fault_free_hours) since "
                            + Instant.ofEpochMilli(node.device(device)
                                    .map(d -> Math.max(d.lastFaultMs(), d.lastSeparateTimeMs()))
                                    .orElse(0L)),
                    policy,
                    nowMs));
        }
        return effects;
    }

    /** What {@link #forgetExpired} deleted: how many counters, and which candidates (for the log). */
    public record Forgotten(int counters, List<Candidate> candidates) {
        public Forgotten {
            candidates = List.copyOf(candidates);
        }
    }

    /**
     * Deletes what can no longer take part in a decision at nowMs under any policy: counters whose newest fault is
     * the largest window ({@link FrequencyRule#MAX_WINDOW_MS}) old, and budget candidates whose deciding faults are
     * that old (the counter they came from would have forgotten them too). Without this, the keys of nodes that
     * are gone (node pools are created and deleted per job) would stay forever. Isolations are not touched: they
     * end by release.
     */
    public Forgotten forgetExpired(long nowMs) {
        int counters = state.removeCountersIf(times -> FrequencyRule.isExpired(times, nowMs));
        List<Candidate> expired = new ArrayList<>();
        for (String clusterId : state.clustersWithCandidates()) {
            List<Candidate> candidates = new ArrayList<>(state.candidates(clusterId));
            List<Candidate> old = candidates.stream()
                    .filter(c -> FrequencyRule.isExpired(List.of(c.separateTimeMs()), nowMs))
                    .toList();
            if (!old.isEmpty()) {
                candidates.removeAll(old);
                state.putCandidates(clusterId, candidates);
                expired.addAll(old);
            }
        }
        return new Forgotten(counters, expired);
    }

    /** Isolates held candidates, oldest first, while the cluster's budget allows (budget freed or raised). */
    public Effects promoteCandidates(String clusterId, IsolationPolicy policy, long nowMs) {
        Effects effects = new Effects();
        List<Candidate> candidates = new ArrayList<>(state.candidates(clusterId));
        if (candidates.isEmpty() || policy.dryRun() || !policy.enabled()) {
            return effects;
        }
        boolean changed = false;
        while (!candidates.isEmpty()
                && (!policy.hasBudget() || state.isolatedDevices(clusterId) < policy.maxIsolatedDevicesPerCluster())) {
            Candidate next = candidates.remove(0);
            changed = true;
            NodeIsolationState node = state.node(clusterId, next.fault().nodeName());
            isolate(
                    node,
                    next.fault(),
                    List.of(next.separateTimeMs()),
                    next.separateTimeMs(),
                    policy,
                    nowMs,
                    "isolated from candidate held since " + Instant.ofEpochMilli(next.heldSinceMs()) + ": ",
                    effects);
        }
        if (changed) {
            state.putCandidates(clusterId, candidates);
        }
        return effects;
    }
}
