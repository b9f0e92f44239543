package io.falcon.events;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;

/** A row change re-keyed by tpu_type for the scheduler. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = SchedulerInput.JobChanged.class, name = "JobChanged"),
    @JsonSubTypes.Type(value = SchedulerInput.ClusterChanged.class, name = "ClusterChanged"),
    @JsonSubTypes.Type(value = SchedulerInput.ClusterLeft.class, name = "ClusterLeft")
})
public sealed interface SchedulerInput {
    record JobChanged(JobChange change) implements SchedulerInput {}

    record ClusterChanged(ClusterChange change) implements SchedulerInput {}

    /**
     * The cluster no longer belongs to this partition's TPU type (its row's tpu_type changed): the scheduler task
     * of the old type forgets it as if its row were deleted. Sent keyed by the old tpu_type.
     */
    record ClusterLeft(String clusterId) implements SchedulerInput {}
}
