package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;

/**
 * An isolation the cluster's budget held back; isolated in order once budget frees up. separateTimeMs is the time
 * of the newest of the faults that reached the threshold, the LastSeparateTime it will be isolated with.
 */
public record Candidate(DeviceFault fault, long heldSinceMs, long separateTimeMs) {
    public Candidate {
        // a candidate stored before separateTimeMs existed was held for its own fault's time
        separateTimeMs = separateTimeMs > 0 ? separateTimeMs : fault.receiveTimeMs();
    }

    public boolean sameDevice(String nodeName, String deviceName) {
        return fault.nodeName().equals(nodeName) && fault.deviceName().equals(deviceName);
    }
}
