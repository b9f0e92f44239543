package io.falcon.testkit.builders;

import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import java.time.Instant;
import java.util.Optional;

/**
 * A device fault as a fault collector reports it: {@code deviceFault("c1", "node-7", "npu-3").receivedAt(ms).build()}.
 * By default a hardware fault code 0x80E18402 at level L2, outside any job, received at {@link #RECEIVED_AT}.
 */
public final class DeviceFaultBuilder {
    public static final long RECEIVED_AT = Instant.parse("2026-12-02T10:00:00Z").toEpochMilli();

    private final String clusterId;
    private final String nodeName;
    private final String deviceName;
    private String faultCode = "0x80E18402";
    private Optional<String> faultLevel = Optional.of("L2");
    private Optional<String> jobId = Optional.empty();
    private long receiveTimeMs = RECEIVED_AT;
    private String producer = "test";

    private DeviceFaultBuilder(String clusterId, String nodeName, String deviceName) {
        this.clusterId = clusterId;
        this.nodeName = nodeName;
        this.deviceName = deviceName;
    }

    public static DeviceFaultBuilder deviceFault(String clusterId, String nodeName, String deviceName) {
        return new DeviceFaultBuilder(clusterId, nodeName, deviceName);
    }

    public DeviceFaultBuilder code(String value) {
        faultCode = value;
        return this;
    }

    public DeviceFaultBuilder level(String value) {
        faultLevel = Optional.of(value);
        return this;
    }

    /** The job the device ran when it faulted (the fault is then keyed by the job). */
    public DeviceFaultBuilder job(String value) {
        jobId = Optional.of(value);
        return this;
    }

    /** The collector's receive time, the event time of every rule (epoch ms). */
    public DeviceFaultBuilder receivedAt(long epochMillis) {
        receiveTimeMs = epochMillis;
        return this;
    }

    public DeviceFaultBuilder producer(String value) {
        producer = value;
        return this;
    }

    public DeviceFault build() {
        return new DeviceFault(
                Meta.of(producer, Instant.ofEpochMilli(receiveTimeMs)),
                clusterId,
                nodeName,
                deviceName,
                faultCode,
                faultLevel,
                jobId,
                receiveTimeMs);
    }
}
