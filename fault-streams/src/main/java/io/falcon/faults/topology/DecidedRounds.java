package io.falcon.faults.topology;

import io.falcon.faults.core.JobWindow;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The job window's decided rounds per (cluster, job), decoded, with the jobs ordered by their newest round: a late
 * fault is judged without reading a store, and the jobs whose rounds can no longer judge any fault are found
 * without a scan. The changelogged store {@code fault-window-rounds} is the durable copy, and this index is
 * rebuilt from it when the task initialises.
 */
final class DecidedRounds {
    /** A job's place in the expiry order: the first fault time of its newest round. */
    private record Newest(long firstMs, String jobKey) {}

    private static final Comparator<Newest> ORDER = (a, b) -> {
        int byFirst = Long.compare(a.firstMs(), b.firstMs());
        return byFirst != 0 ? byFirst : a.jobKey().compareTo(b.jobKey());
    };

    private final Map<String, List<JobWindow.Round>> byJob = new HashMap<>();
    private final NavigableSet<Newest> newest = new TreeSet<>(ORDER);

    void clear() {
        byJob.clear();
        newest.clear();
    }

    /** How many jobs have decided rounds kept. */
    int jobs() {
        return byJob.size();
    }

    /** The job's decided rounds (empty when none). */
    List<JobWindow.Round> of(String jobKey) {
        return byJob.getOrDefault(jobKey, List.of());
    }

    /** Replaces the job's rounds; an empty list forgets the job. */
    void put(String jobKey, List<JobWindow.Round> rounds) {
        List<JobWindow.Round> before = byJob.remove(jobKey);
        if (before != null) {
            newest.remove(new Newest(newestFirst(before), jobKey));
        }
        if (!rounds.isEmpty()) {
            byJob.put(jobKey, List.copyOf(rounds));
            newest.add(new Newest(newestFirst(rounds), jobKey));
        }
    }

    /** The jobs whose newest round opened before firstMs, oldest first. */
    List<String> jobsWithNewestBefore(long firstMs) {
        List<String> jobs = new ArrayList<>();
        for (Newest n : newest) {
            if (n.firstMs() >= firstMs) {
                break;
            }
            jobs.add(n.jobKey());
        }
        return jobs;
    }

    private static long newestFirst(List<JobWindow.Round> rounds) {
        long max = Long.MIN_VALUE;
        for (JobWindow.Round round : rounds) {
            max = Math.max(max, round.firstMs());
        }
        return max;
    }
}
