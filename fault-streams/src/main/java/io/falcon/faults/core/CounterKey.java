package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;

/** One frequency counter: the RFC's FaultCounter entry (node, device, code), within a cluster. */
public record CounterKey(String clusterId, String nodeName, String deviceName, String faultCode) {
    public static CounterKey of(DeviceFault fault) {
        return new CounterKey(fault.clusterId(), fault.nodeName(), fault.deviceName(), fault.faultCode());
    }
}
