package io.falcon.events.control;

import java.time.Instant;
import java.util.Objects;

/**
 * An operator's switch of automatic retries for the whole installation ({@code falcon retries off|on}), on the
 * compacted topic falcon.scheduler.controls under the key {@link #KEY}. The scheduler applies it in the step that
 * reads it: while it is off no failed attempt runs again and no job waiting to run again starts its next attempt
 * (it ends Failed, as its last attempt did). It wins over {@code falcon.scheduler.retry.enabled} until switched again.
 *
 * @param enabled whether failed attempts may run again
 * @param by who switched it (the CLI's user), at most {@link #MAX_TEXT} characters
 * @param reason why, shown in every job's Message it ends, at most {@link #MAX_TEXT} characters
 * @param at when it was switched
 */
public record RetrySwitch(boolean enabled, String by, String reason, Instant at) {
    /** The one key of the controls topic this record is written under. */
    public static final String KEY = "retries";

    public static final int MAX_TEXT = 200;

    public RetrySwitch {
        Objects.requireNonNull(at, "at");
        by = bounded(by == null ? "" : by);
        reason = bounded(reason == null ? "" : reason);
    }

    private static String bounded(String text) {
        return text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT - 3) + "...";
    }

    /** How a Message tells it: "switched off by ops at 2026-12-05T10:00:00Z: retry storm on edge-3". */
    public String told() {
        return "switched " + (enabled ? "on" : "off") + (by.isEmpty() ? "" : " by " + by) + " at " + at
                + (reason.isEmpty() ? "" : ": " + reason);
    }
}
