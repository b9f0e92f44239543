package io.falcon.events;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;

/** A row change re-keyed by tpu_type for the scheduler. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = SchedulerInput.JobChanged.class, name = "JobChanged"),
        @JsonSubTypes.Type(value = SchedulerInput.ClusterChanged.class, name = "ClusterChanged")})
public sealed interface SchedulerInput {
    record JobChanged(JobChange change) implements SchedulerInput {
    }

    record ClusterChanged(ClusterChange change) implements SchedulerInput {
    }
}
