package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.IsolationCommand;
import java.util.Optional;

/**
 * Checks a device fault from another team's collector before it is counted: its names become store keys (joined by
 * NUL), the key of {@code falcon.isolation} ({@code cluster/node}, split at the last '/') and a data key of the
 * edge cluster's {@code clusterd-manual-info-cm}, which Kubernetes accepts only as {@code [-._a-zA-Z0-9]+}. A fault
 * that fails goes to the dead-letter topic with the problem, instead of isolating a device on the wrong node or
 * leaving the executor retrying a ConfigMap update Kubernetes will always refuse. Every string of the fault is
 * bounded, its {@code meta} too: the fault is stored whole (held in the job window, as a budget candidate), so an
 * unbounded one would make a store value Kafka refuses ({@link StateBounds}). The isolation commands the executor
 * sends from what it reads in the clusters' ConfigMaps are checked the same way ({@link #commandProblem}).
 */
public final class FaultIntake {
    /** The CLI's limit for a cluster id (falcon clusters add --id). */
    public static final int MAX_CLUSTER_ID = 64;
    /** Kubernetes' limit for a node name (a DNS subdomain) and for a ConfigMap key. */
    public static final int MAX_NODE_NAME = 253;
    /**
     * Device names ("Ascend910-0"), fault codes ("8C084E00"), levels, job ids, event ids (UUIDs) and producers are
     * short; this bounds them.
     */
    public static final int MAX_NAME = 256;

    /**
     * How far ahead of this processor's clock a receive time may be (collectors' clocks drift a little). Event time
     * follows the newest receive time, so one fault stamped far in the future would make every later fault of the
     * partition late, or, near Long.MAX_VALUE, overflow the window arithmetic and hold them forever.
     */
    public static final java.time.Duration MAX_AHEAD = java.time.Duration.ofDays(1);

    private FaultIntake() {}

    /** Why the fault cannot be counted (naming the field), or empty when it can; nowMs is this processor's clock. */
    public static Optional<String> problem(DeviceFault fault, long nowMs) {
        if (fault.receiveTimeMs() <= 0) {
            return Optional.of("receiveTimeMs must be a time in epoch milliseconds, got " + fault.receiveTimeMs());
        }
        if (fault.receiveTimeMs() > nowMs + MAX_AHEAD.toMillis()) {
            return Optional.of("receiveTimeMs " + fault.receiveTimeMs() + " is more than " + MAX_AHEAD.toHours()
                    + " h ahead of this clock (" + nowMs + ")");
        }
        Optional<String> cluster = clusterProblem(fault.clusterId());
        if (cluster.isPresent()) {
            return cluster;
        }
        Optional<String> node = nodeProblem("nodeName", fault.nodeName());
        if (node.isPresent()) {
            return node;
        }
        // checked once per fault on the stream thread: plain branches, no lambdas or streams to allocate
        Optional<String> device = text("deviceName", fault.deviceName(), MAX_NAME);
        if (device.isPresent()) {
            return device;
        }
        Optional<String> code = text("faultCode", fault.faultCode(), MAX_NAME);
        if (code.isPresent()) {
            return code;
        }
        if (fault.faultLevel().isPresent()) {
            Optional<String> level = text("faultLevel", fault.faultLevel().get(), MAX_NAME);
            if (level.isPresent()) {
                return level;
            }
        }
        if (fault.jobId().isPresent()) {
            Optional<String> job = text("jobId", fault.jobId().get(), MAX_NAME);
            if (job.isPresent()) {
                return job;
            }
        }
        Optional<String> eventId = text("meta.eventId", fault.meta().eventId(), MAX_NAME);
        if (eventId.isPresent()) {
            return eventId;
        }
        return text("meta.producer", fault.meta().producer(), MAX_NAME);
    }

    /**
     * Why an isolation command cannot be applied (naming the field and the limit), or empty when it can. Its names
     * are stored (the devices others list, the devices Falcon released, adopted isolations) and shown in verdicts,
     * so they are held to the rules of a fault's names, and its lists to {@link StateBounds}.
     */
    public static Optional<String> commandProblem(IsolationCommand command) {
        Optional<String> cluster = clusterProblem(command.clusterId());
        if (cluster.isPresent()) {
            return cluster;
        }
        if (command instanceof IsolationCommand.Release release) {
            Optional<String> node = nodeProblem("nodeName", release.nodeName());
            if (node.isPresent()) {
                return node;
            }
            Optional<String> device = text("deviceName", release.deviceName(), MAX_NAME);
            if (device.isPresent()) {
                return device;
            }
            String reason = release.reason() == null ? "" : release.reason();
            if (reason.length() > StateBounds.MAX_REASON) {
                return Optional.of("reason is longer than " + StateBounds.MAX_REASON + " characters");
            }
            return hasUnpairedSurrogate(reason)
                    ? Optional.of("reason must be well-formed Unicode (it holds an unpaired surrogate)")
                    : Optional.empty();
        }
        if (command instanceof IsolationCommand.ListedByOthers others) {
            int devices = 0;
            for (java.util.Map.Entry<String, java.util.List<String>> node :
                    others.devices().entrySet()) {
                devices += node.getValue().size();
                if (devices > StateBounds.MAX_LISTED_BY_OTHERS_PER_CLUSTER) {
                    return Optional.of("devices lists more than " + StateBounds.MAX_LISTED_BY_OTHERS_PER_CLUSTER
                            + " devices of the cluster");
                }
                Optional<String> problem = nodeProblem("devices node", node.getKey());
                for (int i = 0; problem.isEmpty() && i < node.getValue().size(); i++) {
                    problem = text("devices device", node.getValue().get(i), MAX_NAME);
                }
                if (problem.isPresent()) {
                    return problem;
                }
            }
            return Optional.empty();
        }
        if (command instanceof IsolationCommand.ListedByFalcon falcons) {
            Optional<String> node = nodeProblem("nodeName", falcons.nodeName());
            if (node.isPresent()) {
                return node;
            }
            if (falcons.devices().total().size() > StateBounds.MAX_ISOLATED_DEVICES_PER_NODE) {
                return Optional.of("devices lists more than " + StateBounds.MAX_ISOLATED_DEVICES_PER_NODE
                        + " devices of the node");
            }
            for (String device : falcons.devices().total()) {
                Optional<String> problem = text("devices device", device, MAX_NAME);
                java.util.List<io.falcon.events.fault.NodeIsolation.DeviceIsolation> codes =
                        falcons.devices().detail().getOrDefault(device, java.util.List.of());
                if (problem.isEmpty() && codes.size() > StateBounds.MAX_CODES_PER_DEVICE) {
                    problem = Optional.of("devices lists more than " + StateBounds.MAX_CODES_PER_DEVICE
                            + " fault codes of device " + shown(device));
                }
                for (int i = 0; problem.isEmpty() && i < codes.size(); i++) {
                    problem = text("devices FaultCode", codes.get(i).faultCode(), MAX_NAME);
                    if (problem.isEmpty()) {
                        problem = text("devices FaultLevel", codes.get(i).faultLevel(), MAX_NAME);
                    }
                }
                if (problem.isPresent()) {
                    return problem;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> clusterProblem(String clusterId) {
        Optional<String> cluster = text("clusterId", clusterId, MAX_CLUSTER_ID);
        if (cluster.isPresent()) {
            return cluster;
        }
        if (clusterId.indexOf('/') >= 0) {
            return Optional.of("clusterId must not contain '/', got " + shown(clusterId));
        }
        return Optional.empty();
    }

    private static Optional<String> nodeProblem(String field, String node) {
        if (node == null
                || node.isEmpty()
                || node.length() > MAX_NODE_NAME
                || !isConfigMapKey(node)
                || node.equals(".")
                || node.startsWith("..")) {
            return Optional.of(field + " must be a Kubernetes node name (letters, digits, '-', '_', '.'; at most "
                    + MAX_NODE_NAME + "), got " + shown(node == null ? "" : node));
        }
        return Optional.empty();
    }

    private static boolean hasUnpairedSurrogate(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** {@code [-._a-zA-Z0-9]+}, the characters Kubernetes accepts in a ConfigMap key, without a regex matcher. */
    static boolean isConfigMapKey(String value) {
        if (value.isEmpty()) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_';
            if (!allowed) {
                return false;
            }
        }
        return true;
    }

    /**
     * Non-blank, bounded, without control characters (NUL separates the parts of store keys) and well-formed Unicode:
     * an unpaired surrogate decodes into a String but is written out as bytes no JSON reader takes back, so a node's
     * isolation state holding it could never be read again (found by DeviceFaultFuzzTest).
     */
    private static Optional<String> text(String field, String value, int max) {
        if (value == null || value.isBlank()) {
            return Optional.of(field + " is required");
        }
        if (value.length() > max) {
            return Optional.of(field + " is longer than " + max + " characters");
        }
        // one pass over the chars (control characters are all in the BMP; a surrogate is only a problem unpaired),
        // reporting a control character first as the two separate checks did
        boolean control = false;
        boolean unpaired = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                control = true;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                unpaired = true;
            }
        }
        if (control) {
            return Optional.of(field + " must not contain control characters, got " + shown(value));
        }
        if (unpaired) {
            return Optional.of(
                    field + " must be well-formed Unicode (it holds an unpaired surrogate), got " + shown(value));
        }
        return Optional.empty();
    }

    private static String shown(String value) {
        String escaped = value.codePoints()
                .mapToObj(
                        c -> Character.isISOControl(c) || (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE)
                                ? String.format("\\u%04x", c)
                                : Character.toString(c))
                .reduce("", String::concat);
        return "'" + (escaped.length() > 80 ? escaped.substring(0, 80) + "..." : escaped) + "'";
    }
}
