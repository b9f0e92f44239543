package io.falcon.faults.topology;

import io.falcon.faults.core.CounterKey;

/**
 * Store keys whose byte order is the order we scan in: parts joined by NUL (never inside ids), times zero-padded.
 */
final class StoreKeys {
    static final char SEP = '\u0000';

    private StoreKeys() {}

    /** Zero-padded to 19 digits (every non-negative long), so byte order is numeric order. */
    static String time(long ms) {
        String digits = Long.toString(Math.max(0, ms));
        return "0".repeat(19 - digits.length()) + digits;
    }

    /** A job window: job ids are unique only within their cluster. */
    static String job(String clusterId, String jobId) {
        return clusterId + SEP + jobId;
    }

    /**
     * The decided rounds of one code of a job window (under its job key): a job's codes are decided independently,
     * and a storm of distinct codes makes many small values rather than one that grows with the storm.
     */
    static String jobCode(String jobKey, String code) {
        return jobKey + SEP + code;
    }

    /** Whether a key of the decided rounds is a job key (the earlier layout: every code of the job in one value). */
    static boolean isJobKey(String key) {
        int first = key.indexOf(SEP);
        return first >= 0 && key.indexOf(SEP, first + 1) < 0;
    }

    static String counter(CounterKey key) {
        return key.clusterId() + SEP + key.nodeName() + SEP + key.deviceName() + SEP + key.faultCode();
    }

    static String devicePrefix(String clusterId, String nodeName, String deviceName) {
        return clusterId + SEP + nodeName + SEP + deviceName + SEP;
    }

    static String node(String clusterId, String nodeName) {
        return clusterId + SEP + nodeName;
    }

    static String clusterPrefix(String clusterId) {
        return clusterId + SEP;
    }
}
