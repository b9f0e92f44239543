package io.falcon.faults.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The RFC's frequency counter for one (node, device, code): isolate when the last N fault times fall within the
 * window (newest - oldest of the last N strictly below the window); threshold 1 isolates at once.
 */
public final class FrequencyRule {
    /** The RFC's upper bound of fault_threshold: more history can never matter. */
    public static final int MAX_KEPT = PolicyRules.MAX_THRESHOLD;
    /**
     * History is pruned by the largest window a policy may set, not by the window in force: a hot reload that
     * widens fault_window_hours must see the faults a narrower window would already have dropped.
     */
    public static final long MAX_WINDOW_MS = PolicyRules.MAX_WINDOW_HOURS * 3_600_000L;

    private FrequencyRule() {}

    /**
     * Adds a fault time (kept sorted) and drops what can no longer be part of a decision under any policy: times
     * at least the largest allowed window older than the newest, and all but the last {@link #MAX_KEPT}.
     */
    public static List<Long> record(List<Long> times, long faultTimeMs) {
        List<Long> next = new ArrayList<>(times.size() + 1);
        next.addAll(times);
        int at = next.size();
        while (at > 0 && next.get(at - 1) > faultTimeMs) {
            at--;
        }
        next.add(at, faultTimeMs);
        long newest = next.get(next.size() - 1);
        next.removeIf(t -> t <= newest - MAX_WINDOW_MS);
        while (next.size() > MAX_KEPT) {
            next.remove(0);
        }
        return List.copyOf(next);
    }

    /**
     * Whether a counter can no longer take part in any decision at nowMs: its newest time is at least the largest
     * window old, so the next fault of the key (received now or later) would drop all of it in {@link #record}.
     * Such a counter is deleted rather than kept until a fault of its key comes, which for a node that is gone
     * never does.
     */
    public static boolean isExpired(List<Long> sortedTimes, long nowMs) {
        return sortedTimes.isEmpty() || sortedTimes.get(sortedTimes.size() - 1) <= nowMs - MAX_WINDOW_MS;
    }

    /** isReachFrequency of the RFC over sorted times. */
    public static boolean reached(List<Long> sortedTimes, int threshold, long windowMs) {
        if (sortedTimes.size() < threshold) {
            return false;
        }
        if (threshold == PolicyRules.MIN_THRESHOLD) {
            return true;
        }
        List<Long> recent = sortedTimes.subList(sortedTimes.size() - threshold, sortedTimes.size());
        return recent.get(threshold - 1) - recent.get(0) < windowMs;
    }

    /** The times within the window of the newest one: what the policy in force counts, for evidence. */
    public static List<Long> withinWindow(List<Long> sortedTimes, long windowMs) {
        if (sortedTimes.isEmpty()) {
            return List.of();
        }
        long newest = sortedTimes.get(sortedTimes.size() - 1);
        int from = 0;
        while (sortedTimes.get(from) <= newest - windowMs) {
            from++;
        }
        return List.copyOf(sortedTimes.subList(from, sortedTimes.size()));
    }

    /** The last N times that decided, for evidence. */
    public static List<Long> lastN(List<Long> sortedTimes, int threshold) {
        return List.copyOf(sortedTimes.subList(Math.max(0, sortedTimes.size() - threshold), sortedTimes.size()));
    }
}
