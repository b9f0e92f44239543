package io.falcon.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.List;

/**
 * The clusters.status column (seed: active / maintenance / offline), with its wire strings. Only an active cluster
 * takes new jobs; a cluster in maintenance keeps its running jobs and Falcon keeps managing what it has there; an
 * offline one is also no longer watched by the executor.
 */
public enum ClusterStatus {
    ACTIVE("active"),
    MAINTENANCE("maintenance"),
    OFFLINE("offline"),
    /**
     * Any other value: a status added by a newer schema, or MySQL's '' for a value its ENUM column refused outside
     * strict mode. Treated like maintenance, the cautious reading: no new jobs start there and its waiting jobs move
     * elsewhere, but its running jobs and resources are left alone (see docs/topics.md).
     */
    UNKNOWN("unknown");

    private final String wireName;

    ClusterStatus(String wireName) {
        this.wireName = wireName;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    /** Never fails: a row with a status this version does not know must still reach the scheduler. */
    @JsonCreator
    public static ClusterStatus fromWire(String name) {
        return Arrays.stream(values())
                .filter(s -> s != UNKNOWN && s.wireName.equals(name))
                .findFirst()
                .orElse(UNKNOWN);
    }

    /** The statuses an operator can set: the values of the clusters.status column. */
    public static List<ClusterStatus> settable() {
        return List.of(ACTIVE, MAINTENANCE, OFFLINE);
    }

    /** Whether new jobs may be placed and started on a cluster in this status. */
    public boolean schedulable() {
        return this == ACTIVE;
    }
}
