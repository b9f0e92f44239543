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
 * The job window's decided rounds per (cluster, job, code) ({@link StoreKeys#jobCode}), decoded, with the keys
 * ordered by their newest round: a late fault is judged by the rounds of its code without reading a store or
 * walking the job's other codes, and the rounds that can no longer judge any fault are found without a scan. The
 * changelogged store {@code fault-window-rounds} is the durable copy, and this index is rebuilt from it when the
 * task initialises.
 */
final class DecidedRounds {
    /** A key's place in the expiry order: the first fault time of its newest round. */
    private record Newest(long firstMs, String key) {}

    private static final Comparator<Newest> ORDER = (a, b) -> {
        int byFirst = Long.compare(a.firstMs(), b.firstMs());
        return byFirst != 0 ? byFirst : a.key().compareTo(b.key());
    };

    private final Map<String, List<JobWindow.Round>> byKey = new HashMap<>();
    private final NavigableSet<Newest> newest = new TreeSet<>(ORDER);

    void clear() {
        byKey.clear();
        newest.clear();
    }

    /** How many (cluster, job, code) keys have decided rounds kept. */
    int keys() {
        return byKey.size();
    }

    /** The key's decided rounds (empty when none). */
    List<JobWindow.Round> of(String key) {
        return byKey.getOrDefault(key, List.of());
    }

    /** Replaces the key's rounds; an empty list forgets the key. */
    void put(String key, List<JobWindow.Round> rounds) {
        List<JobWindow.Round> before = byKey.remove(key);
        if (before != null) {
            newest.remove(new Newest(newestFirst(before), key));
        }
        if (!rounds.isEmpty()) {
            byKey.put(key, List.copyOf(rounds));
            newest.add(new Newest(newestFirst(rounds), key));
        }
    }

    /** The keys whose newest round opened before firstMs, oldest first. */
    List<String> keysWithNewestBefore(long firstMs) {
        List<String> keys = new ArrayList<>();
        for (Newest n : newest) {
            if (n.firstMs() >= firstMs) {
                break;
            }
            keys.add(n.key());
        }
        return keys;
    }

    /** The rounds without the given number of those opened first (the first to expire), in the order given. */
    static List<JobWindow.Round> withoutOldest(List<JobWindow.Round> rounds, int count) {
        List<JobWindow.Round> byAge = new ArrayList<>(rounds);
        byAge.sort(Comparator.comparingLong(JobWindow.Round::firstMs));
        java.util.Set<JobWindow.Round> oldest = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        oldest.addAll(byAge.subList(0, Math.min(count, byAge.size())));
        List<JobWindow.Round> kept = new ArrayList<>(rounds.size());
        for (JobWindow.Round round : rounds) {
            if (!oldest.contains(round)) {
                kept.add(round);
            }
        }
        return kept;
    }

    private static long newestFirst(List<JobWindow.Round> rounds) {
        long max = Long.MIN_VALUE;
        for (JobWindow.Round round : rounds) {
            max = Math.max(max, round.firstMs());
        }
        return max;
    }
}
