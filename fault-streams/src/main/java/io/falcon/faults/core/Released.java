package io.falcon.faults.core;

/**
 * A device Falcon released (operator or auto-release), remembered so that a listing of the cluster's ConfigMap the
 * executor read before it applied the release does not adopt the device again: such a listing shows the device
 * with a LastSeparateTime no newer than lastSeparateTimeMs (a later isolation would be newer). Kept for the largest
 * fault window after releasedAtMs (wall clock).
 */
public record Released(String nodeName, String deviceName, long lastSeparateTimeMs, long releasedAtMs) {
    public boolean sameDevice(String node, String device) {
        return nodeName.equals(node) && deviceName.equals(device);
    }
}
