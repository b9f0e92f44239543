package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;

/** An isolation the cluster's budget held back; isolated in order once budget frees up. */
public record Candidate(DeviceFault fault, long heldSinceMs) {
    public boolean sameDevice(String nodeName, String deviceName) {
        return fault.nodeName().equals(nodeName) && fault.deviceName().equals(deviceName);
    }
}
