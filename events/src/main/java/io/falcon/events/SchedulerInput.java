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
    @JsonSubTypes.Type(value = SchedulerInput.ClusterLeft.class, name = "ClusterLeft"),
    @JsonSubTypes.Type(value = SchedulerInput.FaultNoted.class, name = "FaultNoted"),
    @JsonSubTypes.Type(value = SchedulerInput.RetriesSwitched.class, name = "RetriesSwitched")
})
public sealed interface SchedulerInput {
    record JobChanged(JobChange change) implements SchedulerInput {}

    record ClusterChanged(ClusterChange change) implements SchedulerInput {}

    /**
     * The cluster no longer belongs to this partition's TPU type (its row's tpu_type changed): the scheduler task
     * of the old type forgets it as if its row were deleted. Sent keyed by the old tpu_type.
     */
    record ClusterLeft(String clusterId) implements SchedulerInput {}

    /**
     * A fault-streams verdict about a job's device that the job's owner should hear of (issue 18). The scheduler
     * re-publishes it from falcon.fault-verdicts to every partition (only the task that knows the job acts on it).
     */
    record FaultNoted(io.falcon.events.fault.FaultVerdict verdict) implements SchedulerInput {}

    /**
     * An operator switched automatic retries (falcon.scheduler.controls), multicast to every partition so that each
     * scheduler task applies it in its next step.
     */
    record RetriesSwitched(io.falcon.events.control.RetrySwitch value) implements SchedulerInput {}
}
