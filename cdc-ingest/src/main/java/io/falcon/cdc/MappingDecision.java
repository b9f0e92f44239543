package io.falcon.cdc;

import io.falcon.events.DeadLetter;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;

/** What to do with one change record: publish an event, dead-letter it, or skip it (tombstones, heartbeats). */
public sealed interface MappingDecision {

    /** A jobs row change for the jobs topic, keyed by job id. */
    record PublishJob(String key, JobChange change) implements MappingDecision {}

    /** A clusters row change for the clusters topic, keyed by cluster id. */
    record PublishCluster(String key, ClusterChange change) implements MappingDecision {}

    /**
     * A change that cannot be mapped, for the dead-letter topic. key is the row id if known, else "db.table"; the
     * letter's reason names the table, the binlog position and the cause, its payload is the change as JSON.
     */
    record Unmappable(String key, DeadLetter letter) implements MappingDecision {
        public String reason() {
            return letter.reason();
        }
    }

    /** Nothing to publish (Debezium tombstone, heartbeat, schema change, ...). */
    record Skip(String reason) implements MappingDecision {}
}
