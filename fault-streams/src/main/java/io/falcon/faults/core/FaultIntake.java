package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;
import java.util.Optional;
import java.util.regex.Pattern;

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

    private static final Pattern CONFIG_MAP_KEY = Pattern.compile("[-._a-zA-Z0-9]+");

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
                || !CONFIG_MAP_KEY.matcher(node).matches()
                || node.equals(".")
                || node.startsWith("..")) {
            return Optional.of("nodeName must be a Kubernetes node name (letters, digits, '-', '_', '.'; at most "
                    + MAX_NODE_NAME + "), got " + shown(node));
        }
        return text("deviceName", fault.deviceName(), MAX_NAME)
                .or(() -> text("faultCode", fault.faultCode(), MAX_NAME))
                .or(() -> fault.faultLevel().flatMap(level -> text("faultLevel", level, MAX_NAME)))
                .or(() -> fault.jobId().flatMap(job -> text("jobId", job, MAX_NAME)));
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
        if (value.codePoints().anyMatch(Character::isISOControl)) {
            return Optional.of(field + " must not contain control characters, got " + shown(value));
        }
        if (value.codePoints().anyMatch(c -> c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE)) {
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
