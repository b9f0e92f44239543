package io.falcon.events.status;

import java.time.Instant;

/**
 * When a waiting job is expected to start (its pods running), as an interval: the scheduler's estimate from the
 * slot hand-over times it observed on the job's queue, at the time of the status that carries it.
 *
 * @param earliest the start is expected no sooner than this
 * @param latest the start is expected no later than this (not earlier than earliest)
 */
public record StartEstimate(Instant earliest, Instant latest) {
    public StartEstimate {
        if (latest.isBefore(earliest)) {
            throw new IllegalArgumentException("latest " + latest + " is before earliest " + earliest);
        }
    }
}
