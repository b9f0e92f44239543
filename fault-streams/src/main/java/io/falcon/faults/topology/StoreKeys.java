package io.falcon.faults.topology;

import io.falcon.faults.core.CounterKey;

/**
 * Store keys whose byte order is the order we scan in: parts joined by NUL (never inside ids), times zero-padded.
 */
final class StoreKeys {
    static final char SEP = '\u0000';

    private StoreKeys() {
    }

    static String time(long ms) {
        return String.format("%019d", Math.max(0, ms));
    }

    static String pending(String jobId, long receiveMs, long sequence) {
        return jobId + SEP + time(receiveMs) + SEP + time(sequence);
    }

    static String jobPrefix(String jobId) {
        return jobId + SEP;
    }

    static String due(long firstReceiveMs, String jobId) {
        return time(firstReceiveMs) + SEP + jobId;
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
