package io.falcon.faults.topology;

import io.falcon.events.fault.DeviceFault;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The job window's held faults, decoded, per (cluster, job) in receive-time order, with the jobs ordered by their
 * first fault: a decision reads no store and opens no iterator. The changelogged store stays the durable copy (the
 * processor writes the faults' pages through) and this index is rebuilt from it when the task initialises. Memory
 * is the faults held within one window (plus grace) of event time.
 */
final class HeldFaults {
    /** One held fault: its arrival order in the task, and the page and slot it is stored in. */
    record Held(long arrival, DeviceFault fault, HeldPage page, int slot) {}

    /** A job's place in the decision order: its first fault's receive time. */
    private record Due(long firstMs, String jobKey) {}

    /**
     * Receive time, then arrival: written out rather than composed from {@code Comparator.comparingLong}, whose
     * shared lambdas the JIT sees called from everywhere and does not inline here (a tenth of adding a fault).
     */
    private static int order(Held a, Held b) {
        int byTime = Long.compare(a.fault().receiveTimeMs(), b.fault().receiveTimeMs());
        return byTime != 0 ? byTime : Long.compare(a.arrival(), b.arrival());
    }

    private static final Comparator<Due> DUE_ORDER = (a, b) -> {
        int byFirst = Long.compare(a.firstMs(), b.firstMs());
        return byFirst != 0 ? byFirst : a.jobKey().compareTo(b.jobKey());
    };

    private final Map<String, List<Held>> byJob = new HashMap<>();
    private final NavigableSet<Due> due = new TreeSet<>(DUE_ORDER);
    private int size;

    void clear() {
        byJob.clear();
        due.clear();
        size = 0;
    }

    int size() {
        return size;
    }

    /** Holds a fault; faults mostly arrive in order, so this is an append. */
    void add(String jobKey, Held held) {
        List<Held> list = byJob.get(jobKey);
        if (list == null) {
            list = new ArrayList<>();
            byJob.put(jobKey, list);
        }
        int at = list.size();
        while (at > 0 && order(list.get(at - 1), held) > 0) {
            at--;
        }
        if (at == 0 && !list.isEmpty()) {
            due.remove(new Due(list.get(0).fault().receiveTimeMs(), jobKey));
        }
        list.add(at, held);
        if (at == 0) {
            due.add(new Due(held.fault().receiveTimeMs(), jobKey));
        }
        size++;
    }

    /** The jobs whose first fault was received at or before lastFirstMs, oldest first. */
    List<String> jobsWithFirstUpTo(long lastFirstMs) {
        List<String> jobs = new ArrayList<>();
        for (Due d : due) {
            if (d.firstMs() > lastFirstMs) {
                break;
            }
            jobs.add(d.jobKey());
        }
        return jobs;
    }

    /** The job's held faults in order (empty when none). */
    List<DeviceFault> faults(String jobKey) {
        List<Held> list = byJob.getOrDefault(jobKey, List.of());
        List<DeviceFault> faults = new ArrayList<>(list.size());
        for (Held h : list) {
            faults.add(h.fault());
        }
        return faults;
    }

    /**
     * Replaces the job's faults by those still held (decided ones removed) and returns the removed ones.
     * remaining must be a subsequence, by identity, of the job's faults.
     */
    List<Held> keep(String jobKey, List<DeviceFault> remaining) {
        List<Held> list = byJob.getOrDefault(jobKey, List.of());
        if (list.isEmpty()) {
            return List.of();
        }
        due.remove(new Due(list.get(0).fault().receiveTimeMs(), jobKey));
        List<Held> next = new ArrayList<>(remaining.size());
        List<Held> removed = new ArrayList<>(list.size() - remaining.size());
        // remaining is in the job's order: one merge walk, no identity map of the kept faults
        int r = 0;
        for (Held h : list) {
            if (r < remaining.size() && remaining.get(r) == h.fault()) {
                next.add(h);
                r++;
            } else {
                removed.add(h);
            }
        }
        if (r != remaining.size()) {
            throw new IllegalArgumentException("the remaining faults of " + jobKey.replace(StoreKeys.SEP, '/')
                    + " are not a subsequence of its held faults");
        }
        size -= removed.size();
        if (next.isEmpty()) {
            byJob.remove(jobKey);
        } else {
            byJob.put(jobKey, next);
            due.add(new Due(next.get(0).fault().receiveTimeMs(), jobKey));
        }
        return removed;
    }
}
