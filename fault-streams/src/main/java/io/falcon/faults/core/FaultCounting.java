package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.fault.NodeIsolation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The frequency stage: counts hardware faults per (node, device, code), isolates a device when the last N fall
 * within the window (clearing that counter), keeps the isolation state per node, releases devices (operator or
 * fault-free), applies the safeguards (dry-run, per-cluster isolation budget with candidates) and takes in what the
 * clusters' ConfigMaps list (devices others listed count as isolated; Falcon's own that its state lost are adopted).
 * Pure over a {@link CountingState}; time is passed in.
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
        CounterKey key = CounterKey.of(fault);
        List<Long> times = FrequencyRule.record(state.faultTimes(key), fault.receiveTimeMs());
        boolean reached = FrequencyRule.reached(times, policy.faultThreshold(), policy.faultWindowMs());
        boolean ownIsolation = node.isIsolated(fault.deviceName());
        // a device others listed in the ConfigMap is isolated already: Falcon taking it on needs no budget
        boolean listedByOthers =
                reached && !ownIsolation && isListedByOthers(fault.clusterId(), fault.nodeName(), fault.deviceName());
        boolean heldByBudget = reached
                && !policy.dryRun()
                && !ownIsolation
                && !listedByOthers
                && policy.hasBudget()
                && isolatedInCluster(fault.clusterId()) >= policy.maxIsolatedDevicesPerCluster();
        if (reached && !policy.dryRun()) {
            // checked before anything changes: a refused fault leaves the state as it was (its counter too)
            Optional<String> problem = boundProblem(node, fault, heldByBudget);
            if (problem.isPresent()) {
                return Effects.refused(problem.get());
            }
        }
        if (ownIsolation) {
            NodeIsolationState seen = node.faultSeen(fault.deviceName(), fault.receiveTimeMs());
            if (seen != node) {
                state.putNode(seen);
                node = seen;
            }
        }
        if (!reached) {
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
        String reachedText = policy.faultThreshold() + " faults of " + fault.faultCode() + " within "
                + policy.faultWindowHours() + "h";
        if (policy.dryRun()) {
            effects.verdict(Verdicts.about(
                    fault,
                    Outcome.WOULD_ISOLATE,
                    policy,
                    List.of(),
                    0,
                    decisive,
                    "dry-run: " + reachedText + " would isolate " + fault.deviceRef(),
                    nowMs));
            return effects;
        }
        if (heldByBudget) {
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
                    reachedText + ", but cluster " + fault.clusterId() + " already has "
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
                ownIsolation
                        ? "re-isolated (LastSeparateTime refreshed): "
                        : listedByOthers ? "isolated (already listed in the ConfigMap by others): " : "isolated: ",
                effects);
        return effects;
    }

    /**
     * Why the isolation a fault reached would take a stored value past its {@link StateBounds}: the node's state (a
     * device or a code more than it keeps) or, held by the budget, the cluster's candidates (one more than it keeps;
     * replacing the candidate of the same device and code fits). A candidate must fit its node too, to be isolated
     * once budget frees up.
     */
    private Optional<String> boundProblem(NodeIsolationState node, DeviceFault fault, boolean heldByBudget) {
        Optional<String> problem = node.isolationProblem(fault.deviceName(), fault.faultCode());
        if (problem.isPresent() || !heldByBudget) {
            return problem;
        }
        List<Candidate> candidates = state.candidates(fault.clusterId());
        if (candidates.size() < StateBounds.MAX_CANDIDATES_PER_CLUSTER) {
            return Optional.empty();
        }
        for (Candidate c : candidates) {
            if (c.sameDevice(fault.nodeName(), fault.deviceName())
                    && c.fault().faultCode().equals(fault.faultCode())) {
                return Optional.empty();
            }
        }
        return Optional.of("cluster " + fault.clusterId() + " already holds " + candidates.size()
                + " isolations back for its budget, the most fault-streams keeps per cluster ("
                + StateBounds.MAX_CANDIDATES_PER_CLUSTER + ")");
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
            // a listing of the ConfigMap read before the executor applies this release must not adopt it again
            List<Released> released = new ArrayList<>(state.released(clusterId));
            released.removeIf(r -> r.sameDevice(nodeName, deviceName));
            // oldest first: beyond the bound the oldest is forgotten (a listing lags a release by minutes, not weeks)
            while (released.size() >= StateBounds.MAX_RELEASED_PER_CLUSTER) {
                released.remove(0);
            }
            released.add(new Released(
                    nodeName,
                    deviceName,
                    node.device(deviceName)
                            .map(NodeIsolationState.IsolatedDevice::lastSeparateTimeMs)
                            .orElse(0L),
                    nowMs));
            state.putReleased(clusterId, released);
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
     * are gone (node pools are created and deleted per job) would stay forever. Released devices remembered against
     * stale ConfigMap listings go after the largest window too. Isolations are not touched: they end by release.
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
        for (String clusterId : state.clustersWithReleased()) {
            List<Released> released = new ArrayList<>(state.released(clusterId));
            if (released.removeIf(r -> FrequencyRule.isExpired(List.of(r.releasedAtMs()), nowMs))) {
                state.putReleased(clusterId, released);
            }
        }
        return new Forgotten(counters, expired);
    }

    /**
     * The executor's listing of the devices others listed in the cluster's ConfigMap (the whole cluster): replaces
     * the one before. They use the cluster's budget, so a shorter listing may free budget for held candidates.
     */
    public Effects listedByOthers(
            String clusterId, Map<String, List<String>> devices, IsolationPolicy policy, long nowMs) {
        Map<String, Set<String>> byNode = new TreeMap<>();
        devices.forEach((nodeName, listed) -> {
            if (!listed.isEmpty()) {
                byNode.put(nodeName, new TreeSet<>(listed));
            }
        });
        if (!byNode.equals(state.listedByOthers(clusterId))) {
            state.putListedByOthers(clusterId, byNode);
        }
        return promoteCandidates(clusterId, policy, nowMs);
    }

    /** What a listing of Falcon's devices of a node changed: the devices adopted (none: nothing changed). */
    public record Adoption(Effects effects, List<String> adopted) {
        public Adoption {
            adopted = List.copyOf(adopted);
        }
    }

    /**
     * The executor's listing of the devices of a node the ConfigMap lists as written by Falcon: those this state
     * does not hold were isolated before it was lost and are adopted with the codes listed (whatever the budget or
     * policy: they are isolated), their fault-free time counting from nowMs at the earliest. A device Falcon
     * released since it was listed with that LastSeparateTime is not adopted: the listing was read before the
     * executor applied the release. Devices the listing lacks are left alone (their release comes as a Release).
     */
    public Adoption listedByFalcon(
            String clusterId, String nodeName, NodeIsolation listed, IsolationPolicy policy, long nowMs) {
        NodeIsolationState node = state.node(clusterId, nodeName);
        NodeIsolationState next = node;
        List<String> adopted = new ArrayList<>();
        List<Released> released = state.released(clusterId);
        for (String device : listed.total()) {
            if (next.isIsolated(device)) {
                continue;
            }
            List<NodeIsolation.DeviceIsolation> codes = listed.detail().getOrDefault(device, List.of());
            if (codes.size() > StateBounds.MAX_CODES_PER_DEVICE) {
                return new Adoption(
                        Effects.refused("device " + nodeName + "/" + device + " is listed with " + codes.size()
                                + " fault codes, more than fault-streams keeps per device ("
                                + StateBounds.MAX_CODES_PER_DEVICE + ")"),
                        List.of());
            }
            long newest = codes.stream()
                    .mapToLong(NodeIsolation.DeviceIsolation::lastSeparateTime)
                    .max()
                    .orElse(0);
            boolean releasedSince =
                    released.stream().anyMatch(r -> r.sameDevice(nodeName, device) && newest <= r.lastSeparateTimeMs());
            if (releasedSince) {
                continue;
            }
            next = next.adopt(device, codes, Math.max(newest, nowMs));
            adopted.add(device);
        }
        if (next.devices().size() > StateBounds.MAX_ISOLATED_DEVICES_PER_NODE) {
            // nothing adopted: the listing goes to the dead-letter topic
            return new Adoption(
                    Effects.refused("adopting " + adopted.size() + " devices would give node " + nodeName + " "
                            + next.devices().size() + " isolated devices, more than fault-streams keeps per node ("
                            + StateBounds.MAX_ISOLATED_DEVICES_PER_NODE + ")"),
                    List.of());
        }
        Effects effects = new Effects();
        if (adopted.isEmpty()) {
            return new Adoption(effects, adopted);
        }
        state.putNode(next);
        effects.nodeChanged(next);
        List<Candidate> candidates = new ArrayList<>(state.candidates(clusterId));
        if (candidates.removeIf(c -> c.fault().nodeName().equals(nodeName)
                && adopted.contains(c.fault().deviceName()))) {
            state.putCandidates(clusterId, candidates);
        }
        return new Adoption(effects, adopted);
    }

    private boolean isListedByOthers(String clusterId, String nodeName, String deviceName) {
        return state.listedByOthers(clusterId).getOrDefault(nodeName, Set.of()).contains(deviceName);
    }

    /** The cluster's isolated devices: Falcon's and those others listed in its ConfigMap, each once. */
    public int isolatedInCluster(String clusterId) {
        int count = state.isolatedDevices(clusterId);
        for (Map.Entry<String, Set<String>> listed :
                state.listedByOthers(clusterId).entrySet()) {
            NodeIsolationState node = state.node(clusterId, listed.getKey());
            for (String device : listed.getValue()) {
                if (!node.isIsolated(device)) {
                    count++;
                }
            }
        }
        return count;
    }

    /** Isolates held candidates, oldest first, while the cluster's budget allows (budget freed or raised). */
    public Effects promoteCandidates(String clusterId, IsolationPolicy policy, long nowMs) {
        Effects effects = new Effects();
        List<Candidate> candidates = new ArrayList<>(state.candidates(clusterId));
        if (candidates.isEmpty() || policy.dryRun() || !policy.enabled()) {
            return effects;
        }
        boolean changed = false;
        int at = 0;
        while (at < candidates.size()
                && (!policy.hasBudget() || isolatedInCluster(clusterId) < policy.maxIsolatedDevicesPerCluster())) {
            Candidate next = candidates.get(at);
            NodeIsolationState node = state.node(clusterId, next.fault().nodeName());
            if (node.isolationProblem(next.fault().deviceName(), next.fault().faultCode())
                    .isPresent()) {
                // its node filled up since it was held (StateBounds): it stays held until it fits or expires
                at++;
                continue;
            }
            candidates.remove(at);
            changed = true;
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
