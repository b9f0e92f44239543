package io.falcon.events.fault;

import io.falcon.events.Meta;
import io.falcon.events.NameUuid;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One fault a device (NPU/TPU chip) reported on a node, as the fault collector received it, keyed by cluster id.
 * receiveTimeMs is the collector's receive time (epoch ms) and is the event time of every rule. meta may be
 * omitted by producers: a deterministic one is derived.
 */
public record DeviceFault(
        Meta meta,
        String clusterId,
        String nodeName,
        String deviceName,
        String faultCode,
        Optional<String> faultLevel,
        Optional<String> jobId,
        long receiveTimeMs) {

    public static final String PRODUCER = "fault-collector";

    public DeviceFault {
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(deviceName, "deviceName");
        Objects.requireNonNull(faultCode, "faultCode");
        faultLevel = faultLevel == null ? Optional.empty() : faultLevel.filter(s -> !s.isBlank());
        jobId = jobId == null ? Optional.empty() : jobId.filter(s -> !s.isBlank());
        if (meta == null) {
            String identity = clusterId + "/" + nodeName + "/" + deviceName + "/" + faultCode + "/" + jobId.orElse("")
                    + "/" + receiveTimeMs;
            meta = new Meta(NameUuid.of(identity), Instant.ofEpochMilli(receiveTimeMs), PRODUCER);
        }
    }

    public static DeviceFault of(
            String clusterId,
            String nodeName,
            String deviceName,
            String faultCode,
            Optional<String> jobId,
            long receiveTimeMs) {
        return new DeviceFault(
                null, clusterId, nodeName, deviceName, faultCode, Optional.empty(), jobId, receiveTimeMs);
    }

    /**
     * The key of the input topic: the cluster id. Every rule of a fault is decided within its cluster (the job
     * window per (cluster, job), the counters per device, the isolation budget per cluster), so fault-streams does
     * all of it in the task that reads the cluster's partition, without a repartition.
     */
    public String topicKey() {
        return clusterId;
    }

    /** node/device, how peers are named in evidence. */
    public String deviceRef() {
        return nodeName + "/" + deviceName;
    }
}
