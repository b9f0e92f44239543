package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;
import java.util.Optional;

/**
 * Checks a device fault from another team's collector before it is counted: its names become store keys (joined by
 * NUL), the key of {@code falcon.isolation} ({@code cluster/node}, split at the last '/') and a data key of the
 * edge cluster's {@code clusterd-manual-info-cm}, which Kubernetes accepts only as {@code [-._a-zA-Z0-9]+}. A fault
 * that fails goes to the dead-letter topic with the problem, instead of isolating a device on the wrong node or
 * leaving the executor retrying a ConfigMap update Kubernetes will always refuse.
 */
public final class FaultIntake {
    /** The CLI's limit for a cluster id (falcon clusters add --id). */
    static final int MAX_CLUSTER_ID = 64;
    /** Kubernetes' limit for a node name (a DNS subdomain) and for a ConfigMap key. */
    static final int MAX_NODE_NAME = 253;
    /** Device names ("Ascend910-0"), fault codes ("8C084E00"), levels and job ids are short; this bounds them. */
    static final int MAX_NAME = 256;

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
        Optional<String> cluster = text("clusterId", fault.clusterId(), MAX_CLUSTER_ID);
        if (cluster.isPresent()) {
            return cluster;
        }
        if (fault.clusterId().indexOf('/') >= 0) {
            return Optional.of("clusterId must not contain '/', got " + shown(fault.clusterId()));
        }
        String node = fault.nodeName();
        if (node.isEmpty()
                || node.length() > MAX_NODE_NAME
                || !isConfigMapKey(node)
                || node.equals(".")
                || node.startsWith("..")) {
            return Optional.of("nodeName must be a Kubernetes node name (letters, digits, '-', '_', '.'; at most "
                    + MAX_NODE_NAME + "), got " + shown(node));
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
        return fault.jobId().isPresent() ? text("jobId", fault.jobId().get(), MAX_NAME) : Optional.empty();
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
        if (value.isBlank()) {
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
