package io.falcon.scheduler.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The waiting jobs of one (cluster, topology) queue and its acquiring slots (one by the design's rule; {@code
 * acquirers-per-queue} of them), held in the order they were taken.
 *
 * <p>Pick rule (seed section 4, with priorities): jobs are ordered by {@link Entry#rank}, which is submission time
 * moved earlier by the job's priority times the aging interval; with every priority 0 that is submission order.
 * Take each actor's first job in that order; if the first of these belongs to the actor served last and the second
 * has the same priority, take the second (round-robin within a priority); else take the first.
 *
 * <p>Why a rank and not "priority, then submission time": a job's effective priority is its priority plus one level
 * per aging interval waited, and two jobs' effective priorities compare exactly as their ranks do, at every instant
 * (both gain levels at the same rate). So the rank never changes while a job waits and the ordered sets never need
 * re-sorting as time passes: aging costs nothing. Each actor's jobs sit in their own ordered set and the actors'
 * heads in another, so a pick, an insert and a removal are all O(log n).
 */
public final class WaitQueue {
    /**
     * A waiting job.
     *
     * @param rank submission time in ms minus priority times the aging interval in ms: the smaller, the sooner
     * @param seq submission time in ms (when the submission was committed)
     * @param commitOrder the submission's binlog position, for submissions committed in the same millisecond
     */
    public record Entry(long rank, long seq, long commitOrder, int priority, String jobId, String actor, String name) {
        /** A job of priority 0, whose rank is its submission time. */
        public Entry(long seq, String jobId, String actor, String name) {
            this(seq, seq, 0, 0, jobId, actor, name);
        }

        /** The entry of a job submitted at {@code seq} ms with this priority, under this aging interval. */
        public static Entry of(long seq, int priority, long agingMillis, String jobId, String actor, String name) {
            return of(seq, 0, priority, agingMillis, jobId, actor, name);
        }

        /** As {@link #of(long, int, long, String, String, String)}, at a binlog position. */
        public static Entry of(
                long seq, long commitOrder, int priority, long agingMillis, String jobId, String actor, String name) {
            return new Entry(seq - (long) priority * agingMillis, seq, commitOrder, priority, jobId, actor, name);
        }
    }

    /**
     * Rank first; at an equal rank the higher priority, then submission time, then binlog position, then job id (a
     * total order).
     */
    private static final Comparator<Entry> PICK_ORDER = Comparator.comparingLong(Entry::rank)
            .thenComparing(Comparator.comparingInt(Entry::priority).reversed())
            .thenComparingLong(Entry::seq)
            .thenComparingLong(Entry::commitOrder)
            .thenComparing(Entry::jobId);

    private final Map<String, TreeSet<Entry>> byActor = new HashMap<>();
    private final TreeSet<Entry> heads = new TreeSet<>(PICK_ORDER);
    /** Every waiting job by rank: how many would go before a newcomer, for cluster choice by expected start. */
    private final TreeSet<Entry> all = new TreeSet<>(PICK_ORDER);

    private Optional<String> lastServedActor = Optional.empty();
    private final java.util.LinkedHashSet<String> slotHolders = new java.util.LinkedHashSet<>();
    private int size;

    public void add(Entry entry) {
        TreeSet<Entry> own = byActor.computeIfAbsent(entry.actor(), a -> new TreeSet<>(PICK_ORDER));
        Entry oldHead = own.isEmpty() ? null : own.first();
        if (!own.add(entry)) {
            return;
        }
        all.add(entry);
        size++;
        if (oldHead == null || PICK_ORDER.compare(entry, oldHead) < 0) {
            if (oldHead != null) {
                heads.remove(oldHead);
            }
            heads.add(entry);
        }
    }

    public boolean remove(Entry entry) {
        TreeSet<Entry> own = byActor.get(entry.actor());
        if (own == null || !own.contains(entry)) {
            return false;
        }
        boolean wasHead = own.first().equals(entry);
        own.remove(entry);
        all.remove(entry);
        size--;
        if (wasHead) {
            heads.remove(entry);
            if (!own.isEmpty()) {
                heads.add(own.first());
            }
        }
        if (own.isEmpty()) {
            byActor.remove(entry.actor());
        }
        return true;
    }

    /** The job the pick rule chooses next, without removing it. */
    public Optional<Entry> peekNext() {
        if (heads.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(choose(heads, lastServedActor));
    }

    /**
     * The first candidate, unless it is the last-served actor's and the second has the same priority: the
     * round-robin gives way only within a priority, so a higher-priority job is never passed over for fairness.
     */
    private static Entry choose(TreeSet<Entry> candidates, Optional<String> last) {
        Entry first = candidates.first();
        if (candidates.size() > 1 && last.filter(first.actor()::equals).isPresent()) {
            Entry second = candidates.higher(first);
            if (second.priority() == first.priority()) {
                return second;
            }
        }
        return first;
    }

    /** Removes and returns the next job, remembering its actor for the round-robin. */
    public Optional<Entry> pollNext() {
        Optional<Entry> next = peekNext();
        next.ifPresent(entry -> {
            remove(entry);
            lastServedActor = Optional.of(entry.actor());
        });
        return next;
    }

    /**
     * The order in which the waiting jobs would be picked if nothing else arrived, up to limit entries, in
     * O(k log n). Each step picks one of the two earliest candidates, so only the earliest k + 2 actor heads can
     * ever be picked within k steps: the rest of the heads are never copied.
     */
    public List<Entry> pickOrder(int limit) {
        List<Entry> order = new ArrayList<>();
        TreeSet<Entry> candidates = new TreeSet<>(PICK_ORDER);
        for (Entry head : heads) {
            if (candidates.size() >= (long) limit + 2) {
                break;
            }
            candidates.add(head);
        }
        Optional<String> last = lastServedActor;
        while (order.size() < limit && !candidates.isEmpty()) {
            Entry pick = choose(candidates, last);
            candidates.remove(pick);
            order.add(pick);
            last = Optional.of(pick.actor());
            Entry next = byActor.get(pick.actor()).higher(pick);
            if (next != null) {
                candidates.add(next);
            }
        }
        return order;
    }

    /**
     * Where the entry stands among the waiting jobs in pick order (1 = next), if within the first limit positions;
     * O(k log n) for position k, so callers bound it.
     */
    public java.util.OptionalInt positionOf(Entry target, int limit) {
        List<Entry> order = pickOrder(limit);
        int index = order.indexOf(target);
        return index < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(index + 1);
    }

    /**
     * How many waiting jobs rank before the given one (which need not be queued), counting at most limit: O(k log
     * n) for k counted. The round-robin may still move it by one place either way.
     */
    public int countAhead(Entry newcomer, int limit) {
        int count = 0;
        for (Entry entry : all) {
            if (count >= limit || PICK_ORDER.compare(entry, newcomer) >= 0) {
                break;
            }
            count++;
        }
        return count;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return heads.isEmpty();
    }

    /** The jobs acquiring resources, in the order they took their slots. */
    public List<String> slotHolders() {
        return List.copyOf(slotHolders);
    }

    public int slotsHeld() {
        return slotHolders.size();
    }

    public boolean holdsSlot(String jobId) {
        return slotHolders.contains(jobId);
    }

    /** Idempotent: a job takes one slot however often it is granted (a redelivery, a restore). */
    public void takeSlot(String jobId) {
        slotHolders.add(jobId);
    }

    public void releaseSlot(String jobId) {
        slotHolders.remove(jobId);
    }

    public Optional<String> lastServedActor() {
        return lastServedActor;
    }

    public void restoreLastServedActor(Optional<String> actor) {
        lastServedActor = actor;
    }
}
