package io.falcon.events.fault;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.falcon.events.Meta;

/** Commands to fault-streams about isolated devices, keyed by cluster id (co-partitioned with counting). */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({@JsonSubTypes.Type(value = IsolationCommand.Release.class, name = "Release")})
public sealed interface IsolationCommand {
    Meta meta();

    String clusterId();

    /**
     * Release a device (all its fault codes) and clear its counters: an operator removed it from
     * clusterd-manual-info-cm, or asked for it directly. reason says which.
     */
    record Release(Meta meta, String clusterId, String nodeName, String deviceName, String reason)
            implements IsolationCommand {}
}
