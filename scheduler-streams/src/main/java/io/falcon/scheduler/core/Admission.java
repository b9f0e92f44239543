package io.falcon.scheduler.core;

import io.falcon.events.PriorityLimits;
import io.falcon.events.config.SchedulerKeys;

/**
 * What a submission must stay within to be taken: every input a tenant controls is bounded, so that one tenant cannot
 * jump the queues, fill them, or exhaust the scheduler's heap (which holds every live job and its spec).
 *
 * @param priorityLimits the priorities each actor may use
 * @param maxSpecBytes the largest spec, in UTF-8 bytes
 * @param maxLiveJobsPerActor how many jobs of one actor may be live (submitted, not ended) at once
 * @param maxLiveJobs how many jobs may be live at once over all actors
 */
public record Admission(PriorityLimits priorityLimits, int maxSpecBytes, int maxLiveJobsPerActor, int maxLiveJobs) {

    /** The defaults declared in the settings catalog. */
    public static Admission defaults() {
        return new Admission(
                PriorityLimits.parse(SchedulerKeys.PRIORITY_LIMITS.defaultValue()),
                Math.toIntExact(SchedulerKeys.MAX_SPEC_BYTES.defaultValue()),
                Math.toIntExact(SchedulerKeys.MAX_LIVE_JOBS_PER_ACTOR.defaultValue()),
                Math.toIntExact(SchedulerKeys.MAX_LIVE_JOBS.defaultValue()));
    }

    public Admission withPriorityLimits(PriorityLimits limits) {
        return new Admission(limits, maxSpecBytes, maxLiveJobsPerActor, maxLiveJobs);
    }

    public Admission withLiveJobCaps(int perActor, int total) {
        return new Admission(priorityLimits, maxSpecBytes, perActor, total);
    }
}
